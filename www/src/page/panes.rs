//! How the shown views of a tab share the window: the tree, the centre column (summary,
//! kernels, layout map, hex view, stacked) and the inspector side by side, each taking a share
//! of the room its row or column has; splitters between neighbours move room from one to the
//! other; one view can be maximised, taking all of it. Each tab keeps its own [`Panes`].
//!
//! Shares are flex grow factors over a basis of zero, so two neighbours' sizes are in the
//! ratio of their shares (the splitters and gaps between them have fixed sizes). Browser-free,
//! tested natively; the components `pane` and `splitter` draw and drive it.

/// Views that can be shown or hidden, in the order of their shortcuts (1 to 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Summary,
    Tree,
    Map,
    Hex,
    Inspector,
    Kernels,
    /// A device image's code: disassembled, or PTX text (hidden until asked for).
    Code,
}

impl View {
    pub const ALL: [View; 7] =
        [View::Summary, View::Tree, View::Map, View::Hex, View::Inspector, View::Kernels, View::Code];

    pub fn name(self) -> &'static str {
        match self {
            View::Summary => "Summary",
            View::Tree => "Tree",
            View::Map => "Layout map",
            View::Hex => "Hex",
            View::Inspector => "Inspector",
            View::Kernels => "Kernels",
            View::Code => "Code",
        }
    }

    /// The key that shows or hides this view.
    pub fn key(self) -> char {
        (b'1' + self as u8) as char
    }

    /// Its name in the page's markup (`data-view`, ids, classes).
    pub fn slug(self) -> &'static str {
        match self {
            View::Summary => "summary",
            View::Tree => "tree",
            View::Map => "map",
            View::Hex => "hex",
            View::Inspector => "inspector",
            View::Kernels => "kernels",
            View::Code => "code",
        }
    }

    pub fn from_slug(slug: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.slug() == slug)
    }
}

/// A place that takes a share of the room: one of the seven views, or the centre column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    View(View),
    /// The column the summary, kernels, layout map and hex view are stacked in.
    Centre,
}

impl Slot {
    fn index(self) -> usize {
        match self {
            Slot::View(v) => v as usize,
            Slot::Centre => 7,
        }
    }

    /// Its name in the page's markup (keys, ids).
    pub fn slug(self) -> &'static str {
        match self {
            Slot::View(v) => v.slug(),
            Slot::Centre => "centre",
        }
    }

    /// What the slot is called in a splitter's accessible name.
    pub fn name(self) -> &'static str {
        match self {
            Slot::View(v) => v.name(),
            Slot::Centre => "the centre column",
        }
    }
}

/// The smallest part of two neighbours' room a splitter leaves to either of them.
pub const MIN_FRACTION: f64 = 0.05;
/// How far one press of an arrow key on a splitter moves it, as a part of the two neighbours'
/// room.
pub const KEY_STEP: f64 = 0.05;

/// One tab's layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Panes {
    /// Per slot ([`View`] as index, then the centre column): its share of its row or column.
    shares: [f64; 8],
    /// The view shown alone, in the whole tab, if any.
    pub maximised: Option<View>,
}

impl Default for Panes {
    /// The tree a fifth of the width and the inspector a quarter, the centre the rest; in the
    /// centre the hex view the tallest, the map the shortest.
    fn default() -> Self {
        let mut shares = [1.0; 8];
        shares[View::Tree as usize] = 22.0;
        shares[View::Inspector as usize] = 25.0;
        shares[7] = 53.0;
        shares[View::Summary as usize] = 30.0;
        shares[View::Kernels as usize] = 25.0;
        shares[View::Map as usize] = 18.0;
        shares[View::Hex as usize] = 40.0;
        shares[View::Code as usize] = 45.0;
        Panes { shares, maximised: None }
    }
}

impl Panes {
    /// The slot's share (a flex grow factor).
    pub fn share(&self, slot: Slot) -> f64 {
        self.shares[slot.index()]
    }

    /// The part of the room of `first` and `second` (neighbours, in this order) that `first`
    /// has.
    pub fn fraction(&self, first: Slot, second: Slot) -> f64 {
        let (a, b) = (self.share(first), self.share(second));
        a / (a + b)
    }

    /// Gives `first` the part `fraction` of its and `second`'s room (kept between
    /// [`MIN_FRACTION`] and 1 − [`MIN_FRACTION`]), leaving the other slots as they are.
    pub fn resize(&mut self, first: Slot, second: Slot, fraction: f64) {
        if first == second || !fraction.is_finite() {
            return;
        }
        let fraction = fraction.clamp(MIN_FRACTION, 1.0 - MIN_FRACTION);
        let total = self.share(first) + self.share(second);
        self.shares[first.index()] = total * fraction;
        self.shares[second.index()] = total * (1.0 - fraction);
    }

    /// Maximises `view`, or restores the layout when it is the one maximised.
    pub fn toggle_maximised(&mut self, view: View) {
        self.maximised = if self.maximised == Some(view) { None } else { Some(view) };
    }

    /// Shows `view` alone in the whole tab (a view opened to be read at length: the Code view,
    /// see `state::open_view`).
    pub fn maximise(&mut self, view: View) {
        self.maximised = Some(view);
    }

    /// `view` was opened or asked for (its key, a button that names it): it is put on screen,
    /// restoring the layout if another view is maximised.
    pub fn reveal(&mut self, view: View) {
        if self.maximised.is_some_and(|m| m != view) {
            self.maximised = None;
        }
    }

    /// `view` was hidden: if it was the one maximised, the layout is restored, so that showing
    /// it again opens it as it opened the first time.
    pub fn closed(&mut self, view: View) {
        if self.maximised == Some(view) {
            self.maximised = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUMMARY: Slot = Slot::View(View::Summary);
    const HEX: Slot = Slot::View(View::Hex);
    const MAP: Slot = Slot::View(View::Map);

    #[test]
    fn a_splitter_moves_room_between_its_two_neighbours_only() {
        let mut p = Panes::default();
        let (map, pair) = (p.share(MAP), p.share(SUMMARY) + p.share(HEX));
        p.resize(SUMMARY, HEX, 0.75);
        assert!((p.fraction(SUMMARY, HEX) - 0.75).abs() < 1e-12);
        assert!((p.share(SUMMARY) + p.share(HEX) - pair).abs() < 1e-9, "the pair keeps its room");
        assert_eq!(p.share(MAP), map, "the others keep theirs");
    }

    #[test]
    fn neither_neighbour_is_squeezed_to_nothing() {
        let mut p = Panes::default();
        p.resize(SUMMARY, HEX, 0.0);
        assert!((p.fraction(SUMMARY, HEX) - MIN_FRACTION).abs() < 1e-12);
        p.resize(SUMMARY, HEX, 7.0);
        assert!((p.fraction(SUMMARY, HEX) - (1.0 - MIN_FRACTION)).abs() < 1e-12);
        let before = p.clone();
        p.resize(SUMMARY, HEX, f64::NAN);
        p.resize(HEX, HEX, 0.5);
        assert_eq!(p, before, "nonsense changes nothing");
    }

    #[test]
    fn the_default_columns_are_tree_centre_inspector_and_the_hex_view_is_the_tallest() {
        let p = Panes::default();
        let tree = p.fraction(Slot::View(View::Tree), Slot::Centre);
        assert!(tree > 0.2 && tree < 0.5, "{tree}");
        for v in [View::Summary, View::Map, View::Kernels] {
            assert!(p.share(HEX) > p.share(Slot::View(v)));
        }
        assert_eq!(p.maximised, None);
    }

    #[test]
    fn a_view_asked_for_is_put_on_screen_and_a_hidden_one_gives_the_layout_back() {
        let mut p = Panes::default();
        p.maximise(View::Code);
        p.reveal(View::Code);
        assert_eq!(p.maximised, Some(View::Code), "asking for the view maximised keeps it");
        p.closed(View::Hex);
        assert_eq!(p.maximised, Some(View::Code), "hiding another view leaves it");
        p.reveal(View::Kernels);
        assert_eq!(p.maximised, None, "the Kernels view asked for from the Code view is shown");
        p.maximise(View::Code);
        p.closed(View::Code);
        assert_eq!(p.maximised, None, "hidden, it gives the layout back");
    }

    #[test]
    fn maximising_twice_restores() {
        let mut p = Panes::default();
        p.toggle_maximised(View::Hex);
        assert_eq!(p.maximised, Some(View::Hex));
        p.toggle_maximised(View::Tree);
        assert_eq!(p.maximised, Some(View::Tree), "another view takes its place");
        p.toggle_maximised(View::Tree);
        assert_eq!(p.maximised, None);
    }
}
