//! Geometry of the layout map: each byte space drawn as a band of proportional regions, one row
//! per nesting level within that space, and the spaces ordered so that a decompressed space
//! follows the space its compressed bytes came from (indented one step per level).

use crate::wire::doc::{Doc, NodeId};
use offload::tree::NodeKind;

/// One node drawn in its space. `x` and `width` are fractions of the space's size.
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    pub node: NodeId,
    pub level: u32,
    pub x: f64,
    pub width: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SpaceMap {
    pub space: u32,
    /// How many decompressions away from the file this space is.
    pub indent: u32,
    /// Rows of nesting drawn.
    pub levels: u32,
    pub regions: Vec<Region>,
}

/// Most bands drawn: a package's members open thousands of spaces, and a band per space made a
/// map of tens of thousands of elements that every layout of the page paid for. Past this,
/// the file's band and those on the way to the selected node's space are drawn.
pub const MAX_BANDS: usize = 24;
/// Most regions drawn in one band, the largest first (and those of the selected node's chain):
/// a wheel's 13,000 members are each far narrower than a pixel.
pub const MAX_REGIONS: usize = 1500;

/// The bands of the map, parents before the spaces derived from them: every space, or past
/// [`MAX_BANDS`], the file's and those from it to the space of `selected` ([`bands_shown`]).
pub fn space_maps(doc: &Doc) -> Vec<SpaceMap> {
    space_maps_around(doc, None)
}

/// [`space_maps`], drawn around the node `selected` where there are too many spaces to draw.
pub fn space_maps_around(doc: &Doc, selected: Option<NodeId>) -> Vec<SpaceMap> {
    let shown = bands_shown(doc, selected);
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); doc.spaces.len()];
    let mut roots = Vec::new();
    for &s in &shown {
        match parent_space(doc, s) {
            Some(p) if shown.contains(&p) => children[p as usize].push(s),
            _ => roots.push(s),
        }
    }
    let mut order = Vec::new();
    let mut stack: Vec<u32> = roots.into_iter().rev().collect();
    while let Some(s) = stack.pop() {
        order.push(s);
        stack.extend(children[s as usize].iter().rev());
    }
    let levels = space_levels(doc);
    let keep = selected.map(|id| doc.ancestors(id).into_iter().chain([id]).collect::<Vec<_>>()).unwrap_or_default();
    order.into_iter().map(|s| space_map(doc, s, &levels, &keep)).collect()
}

/// The spaces whose bands are drawn: all of them up to [`MAX_BANDS`], else space 0 and the
/// spaces from it to the space of `selected`, in order.
pub fn bands_shown(doc: &Doc, selected: Option<NodeId>) -> Vec<u32> {
    let count = doc.spaces.len() as u32;
    if count as usize <= MAX_BANDS {
        return (0..count).collect();
    }
    let mut chain = Vec::new();
    let mut at = selected.and_then(|id| doc.nodes.get(id)).map(|n| n.span.space);
    while let Some(s) = at.filter(|&s| s < count && !chain.contains(&s)) {
        chain.push(s);
        at = parent_space(doc, s);
    }
    if !chain.contains(&0) {
        chain.push(0);
    }
    chain.sort_unstable();
    chain
}

/// Each node's row in its space's band: how many of its ancestors lie in the same space. One
/// pass over the nodes (pre-order: a parent comes before its children).
fn space_levels(doc: &Doc) -> Vec<u32> {
    let mut levels = vec![0u32; doc.nodes.len()];
    for (id, n) in doc.nodes.iter().enumerate() {
        levels[id] = ancestors_in_space(doc, &levels, n.parent.filter(|&p| p < id), n.span.space);
    }
    levels
}

/// How many nodes from `at` up to the root lie in `space`: one more than the level of the
/// nearest of them, whose own count is already in `levels`.
fn ancestors_in_space(doc: &Doc, levels: &[u32], mut at: Option<NodeId>, space: u32) -> u32 {
    while let Some(a) = at {
        if doc.nodes[a].span.space == space {
            return levels[a] + 1;
        }
        at = doc.nodes[a].parent.filter(|&p| p < a);
    }
    0
}

fn parent_space(doc: &Doc, space: u32) -> Option<u32> {
    doc.spaces.get(space as usize)?.origin.map(|o| o.space).filter(|&p| p < space)
}

fn space_map(doc: &Doc, space: u32, node_levels: &[u32], keep: &[NodeId]) -> SpaceMap {
    let size = doc.spaces[space as usize].size;
    let mut regions = Vec::new();
    let mut levels = 0;
    if size > 0 {
        for (node, n) in doc.nodes.iter().enumerate().filter(|(_, n)| n.span.space == space && n.span.size > 0) {
            let level = node_levels[node];
            levels = levels.max(level + 1);
            let span = n.span;
            regions.push(Region {
                node,
                level,
                x: span.offset as f64 / size as f64,
                width: span.size.min(size.saturating_sub(span.offset)) as f64 / size as f64,
            });
        }
    }
    if regions.len() > MAX_REGIONS {
        // The widest, and the selected node's chain, in the order they were found.
        let mut by_width: Vec<usize> = (0..regions.len()).collect();
        by_width.sort_by(|&a, &b| regions[b].width.total_cmp(&regions[a].width));
        let mut drawn = vec![false; regions.len()];
        by_width.iter().take(MAX_REGIONS).for_each(|&i| drawn[i] = true);
        regions.iter().enumerate().filter(|(_, r)| keep.contains(&r.node)).for_each(|(i, _)| drawn[i] = true);
        let mut i = 0;
        regions.retain(|_| {
            i += 1;
            drawn[i - 1]
        });
    }
    SpaceMap { space, indent: doc.space_depth(space), levels, regions }
}

/// Node kinds drawn on the map, in order of first appearance: the legend.
pub fn legend(doc: &Doc, maps: &[SpaceMap]) -> Vec<NodeKind> {
    let mut kinds: Vec<NodeKind> = Vec::new();
    for r in maps.iter().flat_map(|m| &m.regions) {
        let k = doc.nodes[r.node].kind;
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    kinds
}
