//! The hex view's virtual scrolling: which rows are on screen for a scroll position, and where
//! to scroll to show a row. Only the rows on screen are rendered, with a fixed row height, so a
//! 1 GiB byte space costs the same as a 1 KiB one.
//!
//! Browsers cap an element's height (Chromium near 33 million pixels, Firefox near 17 million),
//! and 1 GiB at 16 bytes and 20 px a row would need 1.3 billion. Past [`MAX_SPACER`] the
//! scrollbar is scaled: its range maps linearly onto the rows, so dragging it still reaches every
//! row, and the wheel moves by rows as usual.

pub const BYTES_PER_ROW: u64 = 16;
/// Row height in CSS pixels; `.hex-row` in style.css has the same height.
pub const ROW_HEIGHT: f64 = 20.0;
/// The tallest scrolling area made, in CSS pixels.
pub const MAX_SPACER: f64 = 4_000_000.0;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// Rows in the byte space.
    pub rows: u64,
    /// Height of the scrolling area, in CSS pixels.
    pub spacer: f64,
}

impl Grid {
    pub fn new(space_size: u64) -> Grid {
        let rows = space_size.div_ceil(BYTES_PER_ROW);
        Grid { rows, spacer: (rows as f64 * ROW_HEIGHT).min(MAX_SPACER) }
    }

    /// Whether the scrollbar is scaled (the space is too tall to draw at full height).
    pub fn scaled(&self) -> bool {
        (self.rows as f64 * ROW_HEIGHT) > MAX_SPACER
    }

    /// Rows fully visible in a viewport this tall.
    pub fn full_rows(viewport: f64) -> u64 {
        (viewport / ROW_HEIGHT).floor().max(1.0) as u64
    }

    /// Rows to render for a viewport this tall (a partly visible one at the bottom included).
    pub fn rendered_rows(&self, viewport: f64) -> u64 {
        ((viewport / ROW_HEIGHT).ceil() as u64 + 1).min(self.rows)
    }

    /// The largest first row: the one that puts the last row at the bottom.
    fn max_first(&self, viewport: f64) -> u64 {
        self.rows.saturating_sub(Self::full_rows(viewport))
    }

    /// The first row on screen at this scroll position.
    pub fn first_row(&self, scroll_top: f64, viewport: f64) -> u64 {
        let max_first = self.max_first(viewport);
        let row = if self.scaled() {
            let range = (self.spacer - viewport).max(1.0);
            ((scroll_top / range).clamp(0.0, 1.0) * max_first as f64).round() as u64
        } else {
            (scroll_top.max(0.0) / ROW_HEIGHT).floor() as u64
        };
        row.min(max_first)
    }

    /// The scroll position that makes `row` the first row on screen.
    pub fn scroll_top_for(&self, row: u64, viewport: f64) -> f64 {
        let max_first = self.max_first(viewport);
        let row = row.min(max_first);
        if self.scaled() {
            let range = (self.spacer - viewport).max(1.0);
            if max_first == 0 {
                0.0
            } else {
                row as f64 / max_first as f64 * range
            }
        } else {
            row as f64 * ROW_HEIGHT
        }
    }

    /// The first row to show so that `offset` is on screen: unchanged when it already is,
    /// otherwise a third of the way down, with context above it.
    pub fn reveal(&self, first: u64, offset: u64, viewport: f64) -> u64 {
        let row = offset / BYTES_PER_ROW;
        let full = Self::full_rows(viewport);
        if row >= first && row < first + full {
            return first;
        }
        row.saturating_sub(full / 3).min(self.max_first(viewport))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;
    const VIEW: f64 = 400.0; // 20 rows

    #[test]
    fn small_spaces_scroll_one_row_per_row_height() {
        let g = Grid::new(10_000);
        assert!(!g.scaled());
        assert_eq!(g.rows, 625);
        assert_eq!(g.spacer, 625.0 * ROW_HEIGHT);
        assert_eq!(g.first_row(0.0, VIEW), 0);
        assert_eq!(g.first_row(41.0, VIEW), 2);
        assert_eq!(g.scroll_top_for(2, VIEW), 40.0);
        // The last row can be brought to the bottom, not further.
        assert_eq!(g.first_row(1e9, VIEW), 625 - 20);
        assert_eq!(g.rendered_rows(VIEW), 21);
    }

    #[test]
    fn a_gibibyte_reaches_every_row_within_the_spacer_limit() {
        let g = Grid::new(GIB);
        assert!(g.scaled());
        assert_eq!(g.rows, GIB / 16);
        assert_eq!(g.spacer, MAX_SPACER);
        let last_first = g.rows - 20;
        assert_eq!(g.first_row(0.0, VIEW), 0);
        assert_eq!(g.first_row(MAX_SPACER - VIEW, VIEW), last_first);
        // Round trip: scrolling to a row shows that row.
        for row in [0, 1, 12345, g.rows / 2, last_first - 1, last_first] {
            let top = g.scroll_top_for(row, VIEW);
            assert!((0.0..=MAX_SPACER - VIEW).contains(&top));
            let back = g.first_row(top, VIEW);
            assert!(back.abs_diff(row) <= 1, "row {row} came back as {back}");
        }
        // Rendering cost does not depend on the space size: 20 full rows and a partial one.
        assert_eq!(g.rendered_rows(VIEW), 21);
        assert_eq!(Grid::new(1 << 20).rendered_rows(VIEW), 21);
    }

    #[test]
    fn revealing_keeps_the_view_when_the_offset_is_on_screen() {
        let g = Grid::new(1 << 20);
        assert_eq!(g.reveal(10, 10 * 16 + 5, VIEW), 10);
        assert_eq!(g.reveal(10, 29 * 16, VIEW), 10);
        assert_eq!(g.reveal(10, 30 * 16, VIEW), 30 - 6);
        assert_eq!(g.reveal(100, 0, VIEW), 0);
        assert_eq!(g.reveal(0, (1 << 20) - 1, VIEW), g.rows - 20);
    }

    #[test]
    fn empty_and_tiny_spaces() {
        let g = Grid::new(0);
        assert_eq!(g.rows, 0);
        assert_eq!(g.first_row(100.0, VIEW), 0);
        assert_eq!(g.rendered_rows(VIEW), 0);
        let g = Grid::new(5);
        assert_eq!(g.rows, 1);
        assert_eq!(g.first_row(100.0, VIEW), 0);
    }
}
