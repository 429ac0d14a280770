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

/// The bands of the map, parents before the spaces derived from them.
pub fn space_maps(doc: &Doc) -> Vec<SpaceMap> {
    let mut order = Vec::new();
    let mut stack: Vec<u32> = (0..doc.spaces.len() as u32).filter(|&s| is_root_space(doc, s)).rev().collect();
    while let Some(s) = stack.pop() {
        order.push(s);
        let children: Vec<u32> =
            (0..doc.spaces.len() as u32).filter(|&c| c != s && parent_space(doc, c) == Some(s)).collect();
        stack.extend(children.into_iter().rev());
    }
    order.into_iter().map(|s| space_map(doc, s)).collect()
}

fn parent_space(doc: &Doc, space: u32) -> Option<u32> {
    doc.spaces.get(space as usize)?.origin.map(|o| o.space).filter(|&p| p < space)
}

fn is_root_space(doc: &Doc, space: u32) -> bool {
    parent_space(doc, space).is_none()
}

fn space_map(doc: &Doc, space: u32) -> SpaceMap {
    let size = doc.spaces[space as usize].size;
    let mut regions = Vec::new();
    let mut levels = 0;
    if size > 0 {
        for (node, level) in doc.nodes_in_space(space) {
            let span = doc.nodes[node].span;
            if span.size == 0 {
                continue;
            }
            levels = levels.max(level + 1);
            regions.push(Region {
                node,
                level,
                x: span.offset as f64 / size as f64,
                width: span.size.min(size.saturating_sub(span.offset)) as f64 / size as f64,
            });
        }
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
