//! The tree view's rows: the document's nodes in the order the tree shows them, as one flat list
//! that the view draws a window of and the keys move along. A view over the document, which it
//! never reorders (edits name nodes by their child indices, `Doc::path_of`).
//!
//! Packages are where trees get large (a framework wheel has 13,000 members, most of them small
//! Python files), so under a package the members that hold device code (an image, or a node a
//! device target names, anywhere below them) come first, in package order, and every other member
//! is behind one synthetic row, "13,001 other members", collapsed until opened and filtered by a
//! name the user types, as `offload list` lists the first and counts the others. A package with no
//! member holding device code and fewer than [`GROUP_FROM`] members shows its members as they are:
//! there is nothing to put first and they fit on a screen.

use crate::wire::doc::{Doc, NodeId};
use offload::tree::{NodeKind, Severity};
use std::collections::BTreeMap;

/// Packages without a member holding device code show their members directly below this many.
pub const GROUP_FROM: usize = 50;

/// A row of the tree: a node, or the group of a package's members without device code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowKey {
    Node(NodeId),
    /// The "other members" row of this package node.
    Others(NodeId),
}

impl RowKey {
    /// The row's element id, which `aria-activedescendant` names.
    pub fn element_id(self) -> String {
        match self {
            RowKey::Node(id) => format!("node-{id}"),
            RowKey::Others(package) => format!("others-{package}"),
        }
    }
}

/// One row as the tree shows it: what it is, and its place among its siblings (WAI-ARIA's
/// `aria-level`, `aria-posinset`, `aria-setsize`, which a flat list of rows must say itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    pub key: RowKey,
    /// Nesting as shown, 0 for the root: a member in a group is one deeper than its package's
    /// device members.
    pub depth: u32,
    /// 1-based position among the rows with the same parent row.
    pub position: usize,
    pub set_size: usize,
}

impl Row {
    pub fn level(&self) -> u32 {
        self.depth + 1
    }
}

/// What the user did with one package's group of other members.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OtherMembers {
    pub open: bool,
    /// Members shown when open: those whose name contains this text (any ASCII case).
    pub filter: String,
}

/// Each package's group of other members, by package node; absent is closed and unfiltered.
pub type Groups = BTreeMap<NodeId, OtherMembers>;

/// Which nodes hold device code: an image, or a node a device target names, at or below them.
/// One walk over the document, done once per document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceCode(Vec<bool>);

impl DeviceCode {
    pub fn of(doc: &Doc) -> DeviceCode {
        let mut holds: Vec<bool> = doc.nodes.iter().map(|n| n.kind == NodeKind::Image).collect();
        for node in doc.targets.iter().filter_map(|t| t.node) {
            if let Some(h) = holds.get_mut(node) {
                *h = true;
            }
        }
        // Pre-order puts every child after its parent: walking backwards reaches a node's whole
        // subtree before the node.
        for id in (0..doc.nodes.len()).rev() {
            if let Some(parent) = doc.nodes[id].parent.filter(|_| holds[id]) {
                holds[parent] = true;
            }
        }
        DeviceCode(holds)
    }

    pub fn holds(&self, node: NodeId) -> bool {
        self.0.get(node).copied().unwrap_or(false)
    }
}

/// How a node's children are shown.
#[derive(Debug, PartialEq, Eq)]
pub enum Children<'d> {
    /// As they are, in document order.
    Plain(&'d [NodeId]),
    /// A package's: `first` (its members with device code, and any child that is not a member),
    /// then the group row holding `others`, both in package order.
    Grouped { first: Vec<NodeId>, others: Vec<NodeId> },
}

/// How `node`'s children are shown (see the module's documentation).
pub fn children<'d>(doc: &'d Doc, device: &DeviceCode, node: NodeId) -> Children<'d> {
    let n = &doc.nodes[node];
    if n.kind != NodeKind::Package {
        return Children::Plain(&n.children);
    }
    let is_other = |c: &NodeId| doc.nodes[*c].kind == NodeKind::PackageMember && !device.holds(*c);
    let (others, first): (Vec<NodeId>, Vec<NodeId>) = n.children.iter().partition(|c| is_other(c));
    if others.is_empty() || (first.is_empty() && n.children.len() < GROUP_FROM) {
        return Children::Plain(&n.children);
    }
    Children::Grouped { first, others }
}

/// The package whose group row holds `node`, when it is in one.
pub fn group_of(doc: &Doc, device: &DeviceCode, node: NodeId) -> Option<NodeId> {
    let parent = doc.nodes.get(node)?.parent?;
    match children(doc, device, parent) {
        Children::Grouped { others, .. } if others.contains(&node) => Some(parent),
        _ => None,
    }
}

/// Whether a member is shown under `filter` (already trimmed and in lower case): its name, else
/// its label, contains it.
pub fn matches(doc: &Doc, member: NodeId, filter: &str) -> bool {
    if filter.is_empty() {
        return true;
    }
    let name = doc.text(member, "name").unwrap_or(&doc.nodes[member].label);
    name.to_ascii_lowercase().contains(filter)
}

/// The filter as [`matches`] takes it.
pub fn normal_filter(filter: &str) -> String {
    filter.trim().to_ascii_lowercase()
}

/// The members of a group that its filter lets through.
pub fn shown_others(doc: &Doc, others: &[NodeId], group: Option<&OtherMembers>) -> Vec<NodeId> {
    let filter = normal_filter(group.map_or("", |g| g.filter.as_str()));
    others.iter().copied().filter(|&m| matches(doc, m, &filter)).collect()
}

/// Every row the tree shows, top to bottom: the root, and below each expanded node its children
/// as [`children`] orders them, a group's members only while it is open.
pub fn visible_rows(doc: &Doc, device: &DeviceCode, expanded: &[bool], groups: &Groups) -> Vec<Row> {
    let mut walk = Walk { doc, device, expanded, groups, rows: Vec::new() };
    if !doc.nodes.is_empty() {
        walk.node(0, 0, 1, 1);
    }
    walk.rows
}

struct Walk<'a> {
    doc: &'a Doc,
    device: &'a DeviceCode,
    expanded: &'a [bool],
    groups: &'a Groups,
    rows: Vec<Row>,
}

impl Walk<'_> {
    fn node(&mut self, id: NodeId, depth: u32, position: usize, set_size: usize) {
        self.rows.push(Row { key: RowKey::Node(id), depth, position, set_size });
        let open = self.expanded.get(id).copied().unwrap_or(false);
        if open && !self.doc.nodes[id].children.is_empty() {
            self.children(id, depth + 1);
        }
    }

    fn children(&mut self, id: NodeId, depth: u32) {
        match children(self.doc, self.device, id) {
            Children::Plain(all) => self.siblings(all, depth),
            Children::Grouped { first, others } => {
                let set_size = first.len() + 1;
                for (i, &c) in first.iter().enumerate() {
                    self.node(c, depth, i + 1, set_size);
                }
                self.rows.push(Row { key: RowKey::Others(id), depth, position: set_size, set_size });
                let group = self.groups.get(&id);
                if group.is_some_and(|g| g.open) {
                    self.siblings(&shown_others(self.doc, &others, group), depth + 1);
                }
            }
        }
    }

    fn siblings(&mut self, ids: &[NodeId], depth: u32) {
        for (i, &c) in ids.iter().enumerate() {
            self.node(c, depth, i + 1, ids.len());
        }
    }
}

/// Where `key` is among `rows`.
pub fn index_of(rows: &[Row], key: RowKey) -> Option<usize> {
    rows.iter().position(|r| r.key == key)
}

/// The row that stands for `key` when `key` itself is hidden: the nearest row above it in the
/// tree that is shown (its group's row, or an ancestor's, or theirs).
pub fn nearest_shown(doc: &Doc, device: &DeviceCode, rows: &[Row], key: RowKey) -> Option<usize> {
    if let Some(i) = index_of(rows, key) {
        return Some(i);
    }
    let mut at = match key {
        RowKey::Node(id) | RowKey::Others(id) => id,
    };
    loop {
        if let Some(i) = index_of(rows, RowKey::Node(at)) {
            return Some(i);
        }
        if let Some(i) = group_of(doc, device, at).and_then(|p| index_of(rows, RowKey::Others(p))) {
            return Some(i);
        }
        at = doc.nodes.get(at)?.parent?;
    }
}

/// The parent row of the row at `index`: the nearest row above it that is less deep.
pub fn parent_row(rows: &[Row], index: usize) -> Option<usize> {
    let depth = rows.get(index)?.depth;
    rows[..index].iter().rposition(|r| r.depth < depth)
}

/// The first child row of the row at `index`, when its children are shown.
pub fn first_child_row(rows: &[Row], index: usize) -> Option<usize> {
    let depth = rows.get(index)?.depth;
    rows.get(index + 1).filter(|r| r.depth > depth).map(|_| index + 1)
}

/// What a group row says of its members: how many, how many its filter shows, and the worst
/// finding among them (a warning inside a closed group must not go unseen).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupSummary {
    pub members: usize,
    pub shown: usize,
    pub worst: Option<Severity>,
}

/// The summary of every group row among `rows`, by package.
pub fn group_summaries(
    doc: &Doc,
    device: &DeviceCode,
    rows: &[Row],
    groups: &Groups,
) -> BTreeMap<NodeId, GroupSummary> {
    let packages = rows.iter().filter_map(|r| match r.key {
        RowKey::Others(package) => Some(package),
        RowKey::Node(_) => None,
    });
    packages
        .filter_map(|package| {
            let Children::Grouped { others, .. } = children(doc, device, package) else { return None };
            let summary = GroupSummary {
                members: others.len(),
                shown: shown_others(doc, &others, groups.get(&package)).len(),
                worst: others.iter().filter_map(|&m| doc.nodes[m].worst).max(),
            };
            Some((package, summary))
        })
        .collect()
}

/// Height of every row of the tree, in CSS pixels (`.tree [role=treeitem]` in style.css): rows
/// are one line each, so that where a row is follows from its index alone.
pub const ROW_HEIGHT: f64 = 22.0;
/// Trees of up to this many rows are drawn whole; larger ones only around the rows in view.
pub const DRAW_ALL_UP_TO: usize = 250;
/// Rows drawn above and below those in view, so that scrolling never shows a gap.
pub const OVERSCAN: usize = 60;
/// Rows taken to be in view before the tree's height is known.
const FIRST_ROWS: usize = 40;

/// The rows to draw of `total`, for a tree scrolled to `scroll_top` that shows `height` pixels.
pub fn window(total: usize, scroll_top: f64, height: f64) -> std::ops::Range<usize> {
    if total <= DRAW_ALL_UP_TO {
        return 0..total;
    }
    let in_view = if height > 0.0 { (height / ROW_HEIGHT).ceil() as usize } else { FIRST_ROWS };
    let top = ((scroll_top.max(0.0) / ROW_HEIGHT) as usize).min(total);
    top.saturating_sub(OVERSCAN)..(top + in_view + OVERSCAN).min(total)
}

/// The scroll position that brings the row at `index` into a view of `height` pixels scrolled to
/// `scroll_top`, moving as little as possible; `None` when it is in view already.
pub fn scroll_to_show(index: usize, scroll_top: f64, height: f64) -> Option<f64> {
    let top = index as f64 * ROW_HEIGHT;
    if top < scroll_top {
        Some(top)
    } else if top + ROW_HEIGHT > scroll_top + height {
        Some((top + ROW_HEIGHT - height).max(0.0))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use offload::tree::{Node, Span, Tree};

    /// A wheel of `members` small files; those at `device_at` hold an AMDGPU image. Node ids:
    /// 0 the file, 1 the package, then each member followed by its image.
    fn wheel(members: usize, device_at: &[usize]) -> Doc {
        let mut package = Node::new(NodeKind::Package, format!("zip package, {members} members"), Span::new(0, 0, 1));
        for m in 0..members {
            let name = if device_at.contains(&m) { format!("lib/libk{m}.so") } else { format!("pkg/Mod_{m}.py") };
            let mut member = Node::new(NodeKind::PackageMember, format!("{name} (1 B)"), Span::new(0, m as u64, 1));
            member.field("name", name.as_str(), None);
            if device_at.contains(&m) {
                member.children.push(Node::new(
                    NodeKind::Image,
                    "AMDGPU code object gfx90a",
                    Span::new(0, m as u64, 1),
                ));
            }
            package.children.push(member);
        }
        let mut root = Node::new(NodeKind::File, "w.whl", Span::new(0, 0, members as u64));
        root.children.push(package);
        Doc::from_tree(&Tree { spaces: Vec::new(), root }, &|_| None)
    }

    fn all_expanded(doc: &Doc) -> Vec<bool> {
        doc.nodes.iter().map(|n| !n.children.is_empty()).collect()
    }

    fn member(doc: &Doc, m: usize) -> NodeId {
        doc.nodes[1].children[m]
    }

    fn open(package: NodeId, filter: &str) -> Groups {
        Groups::from([(package, OtherMembers { open: true, filter: filter.into() })])
    }

    fn keys(rows: &[Row]) -> Vec<RowKey> {
        rows.iter().map(|r| r.key).collect()
    }

    #[test]
    fn members_with_device_code_come_first_and_the_others_wait_behind_one_closed_row() {
        let doc = wheel(1000, &[700, 3, 999]);
        let device = DeviceCode::of(&doc);
        let rows = visible_rows(&doc, &device, &all_expanded(&doc), &Groups::new());
        let (m3, m700, m999) = (member(&doc, 3), member(&doc, 700), member(&doc, 999));
        let expected = [
            RowKey::Node(0),
            RowKey::Node(1),
            RowKey::Node(m3),
            RowKey::Node(m3 + 1),
            RowKey::Node(m700),
            RowKey::Node(m700 + 1),
            RowKey::Node(m999),
            RowKey::Node(m999 + 1),
            RowKey::Others(1),
        ];
        assert_eq!(keys(&rows), expected, "device members in package order, each with its image, then the group");
        let levels: Vec<u32> = rows.iter().map(Row::level).collect();
        assert_eq!(levels, [1, 2, 3, 4, 3, 4, 3, 4, 3]);
        let places: Vec<(usize, usize)> = rows.iter().map(|r| (r.position, r.set_size)).collect();
        assert_eq!(places[2], (1, 4), "three device members and the group row are the package's four rows");
        assert_eq!(places[8], (4, 4));
        let summaries = group_summaries(&doc, &device, &rows, &Groups::new());
        assert_eq!(summaries[&1], GroupSummary { members: 997, shown: 997, worst: None });
    }

    #[test]
    fn an_open_group_shows_every_other_member_in_package_order_one_level_deeper() {
        let doc = wheel(1000, &[3]);
        let device = DeviceCode::of(&doc);
        let rows = visible_rows(&doc, &device, &all_expanded(&doc), &open(1, ""));
        assert_eq!(rows.len(), 2 + 2 + 1 + 999);
        let group = index_of(&rows, RowKey::Others(1)).unwrap();
        let members: Vec<&Row> = rows[group + 1..].iter().collect();
        let expected: Vec<RowKey> = (0..1000).filter(|&m| m != 3).map(|m| RowKey::Node(member(&doc, m))).collect();
        assert_eq!(members.iter().map(|r| r.key).collect::<Vec<_>>(), expected);
        assert!(members.iter().all(|r| r.level() == 4 && r.set_size == 999));
        assert_eq!(members.last().map(|r| r.position), Some(999));
        // Closing the package hides its group too.
        let mut expanded = all_expanded(&doc);
        expanded[1] = false;
        assert_eq!(keys(&visible_rows(&doc, &device, &expanded, &open(1, ""))), [RowKey::Node(0), RowKey::Node(1)]);
    }

    #[test]
    fn a_filter_shows_the_members_whose_name_contains_it_in_any_case() {
        let doc = wheel(200, &[0]);
        let device = DeviceCode::of(&doc);
        let groups = open(1, "  mod_1 ");
        let rows = visible_rows(&doc, &device, &all_expanded(&doc), &groups);
        let group = index_of(&rows, RowKey::Others(1)).unwrap();
        let names: Vec<&str> = rows[group + 1..]
            .iter()
            .map(|r| match r.key {
                RowKey::Node(id) => doc.text(id, "name").unwrap(),
                RowKey::Others(_) => panic!("one group"),
            })
            .collect();
        // 1, 10–19, 100–199.
        assert_eq!(names.len(), 1 + 10 + 100);
        assert!(names.iter().all(|n| n.to_ascii_lowercase().contains("mod_1")), "{names:?}");
        assert!(rows[group + 1..].iter().all(|r| r.set_size == 111));
        let summary = group_summaries(&doc, &device, &rows, &groups)[&1];
        assert_eq!((summary.members, summary.shown), (199, 111));
        let none = visible_rows(&doc, &device, &all_expanded(&doc), &open(1, "nothing like it"));
        assert_eq!(none.last().map(|r| r.key), Some(RowKey::Others(1)), "the group row stays, empty");
    }

    #[test]
    fn packages_without_device_code_group_their_members_only_when_they_are_many() {
        let small = wheel(GROUP_FROM - 1, &[]);
        let device = DeviceCode::of(&small);
        let rows = visible_rows(&small, &device, &all_expanded(&small), &Groups::new());
        assert_eq!(rows.len(), 2 + GROUP_FROM - 1, "shown as they are");
        assert_eq!(children(&small, &device, 1), Children::Plain(&small.nodes[1].children));

        let large = wheel(GROUP_FROM, &[]);
        let device = DeviceCode::of(&large);
        let rows = visible_rows(&large, &device, &all_expanded(&large), &Groups::new());
        assert_eq!(keys(&rows), [RowKey::Node(0), RowKey::Node(1), RowKey::Others(1)]);
        assert_eq!((rows[2].position, rows[2].set_size), (1, 1));
        // Every member holding device code: no group row.
        let all_device = wheel(60, &(0..60).collect::<Vec<_>>());
        let device = DeviceCode::of(&all_device);
        assert!(visible_rows(&all_device, &device, &all_expanded(&all_device), &Groups::new())
            .iter()
            .all(|r| matches!(r.key, RowKey::Node(_))));
    }

    #[test]
    fn a_file_without_packages_shows_its_expanded_nodes_in_document_order() {
        let doc = crate::wire::doc::explore_bytes(
            include_bytes!("../../../tests/fixtures/hip_elf_2arch_compressed.o"),
            "hip.o",
        );
        let device = DeviceCode::of(&doc);
        let rows = visible_rows(&doc, &device, &all_expanded(&doc), &Groups::new());
        assert_eq!(keys(&rows), (0..doc.nodes.len()).map(RowKey::Node).collect::<Vec<_>>());
        assert!(rows.iter().enumerate().all(|(id, r)| r.depth == doc.nodes[id].depth));
        let section = doc.nodes.iter().position(|n| n.label.starts_with("section .hip_fatbin")).unwrap();
        let mut expanded = all_expanded(&doc);
        expanded[section] = false;
        let rows = visible_rows(&doc, &device, &expanded, &Groups::new());
        let hidden = doc.nodes[section].subtree_end - section - 1;
        assert_eq!(rows.len(), doc.nodes.len() - hidden);
        assert!(device.holds(0) && device.holds(section), "the section holds the bundle's images");
    }

    #[test]
    fn parents_children_and_hidden_rows_are_found_among_the_rows() {
        let doc = wheel(100, &[50]);
        let device = DeviceCode::of(&doc);
        let expanded = all_expanded(&doc);
        let rows = visible_rows(&doc, &device, &expanded, &open(1, ""));
        let group = index_of(&rows, RowKey::Others(1)).unwrap();
        assert_eq!(parent_row(&rows, group + 1), Some(group), "a grouped member's parent row is its group");
        assert_eq!(parent_row(&rows, group), Some(1), "the group's is its package");
        assert_eq!(first_child_row(&rows, group), Some(group + 1));
        assert_eq!(first_child_row(&rows, rows.len() - 1), None);
        assert_eq!(parent_row(&rows, 0), None);
        // Closed, its members stand behind the group row; the package's image behind its member.
        let closed = visible_rows(&doc, &device, &expanded, &Groups::new());
        let hidden = RowKey::Node(member(&doc, 7));
        assert_eq!(nearest_shown(&doc, &device, &closed, hidden), index_of(&closed, RowKey::Others(1)));
        let mut collapsed = expanded.clone();
        collapsed[member(&doc, 50)] = false;
        let rows = visible_rows(&doc, &device, &collapsed, &Groups::new());
        let image = RowKey::Node(member(&doc, 50) + 1);
        assert_eq!(nearest_shown(&doc, &device, &rows, image), index_of(&rows, RowKey::Node(member(&doc, 50))));
        assert_eq!(group_of(&doc, &device, member(&doc, 7)), Some(1));
        assert_eq!(group_of(&doc, &device, member(&doc, 50)), None);
    }

    #[test]
    fn a_group_row_tells_the_worst_finding_among_its_members() {
        let mut doc = wheel(100, &[0]);
        let m = member(&doc, 42);
        doc.nodes[m].worst = Some(Severity::Warning);
        let device = DeviceCode::of(&doc);
        let rows = visible_rows(&doc, &device, &all_expanded(&doc), &Groups::new());
        assert_eq!(group_summaries(&doc, &device, &rows, &Groups::new())[&1].worst, Some(Severity::Warning));
    }

    #[test]
    fn only_the_rows_around_the_view_are_drawn_in_a_large_tree() {
        assert_eq!(window(DRAW_ALL_UP_TO, 5000.0, 400.0), 0..DRAW_ALL_UP_TO, "small trees are drawn whole");
        let rows = 13_000;
        let in_view = (600.0 / ROW_HEIGHT).ceil() as usize;
        assert_eq!(window(rows, 0.0, 600.0), 0..in_view + OVERSCAN);
        let top = 5000;
        let drawn = window(rows, top as f64 * ROW_HEIGHT, 600.0);
        assert_eq!(drawn, top - OVERSCAN..top + in_view + OVERSCAN);
        let bottom = window(rows, (rows as f64) * ROW_HEIGHT - 600.0, 600.0);
        assert_eq!(bottom.end, rows, "the last row is drawn at the bottom");
        assert!(bottom.len() < 300 && drawn.len() < 300);
        assert_eq!(window(rows, 0.0, 0.0).len(), FIRST_ROWS + OVERSCAN, "before the height is known");
    }

    #[test]
    fn the_active_row_is_scrolled_into_view_by_the_least_movement() {
        let h = 10.0 * ROW_HEIGHT;
        assert_eq!(scroll_to_show(5, 0.0, h), None);
        assert_eq!(scroll_to_show(10, 0.0, h), Some(ROW_HEIGHT), "one row down");
        assert_eq!(scroll_to_show(3, 5.0 * ROW_HEIGHT, h), Some(3.0 * ROW_HEIGHT), "up to the row");
        assert_eq!(scroll_to_show(12_999, 0.0, h), Some(12_990.0 * ROW_HEIGHT));
    }
}
