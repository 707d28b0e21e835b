//! Where the takes go: how many side by side and in how many rows for the room there is, each
//! take's box, and inside it the poster above the text. Pure: sizes in, rectangles out.

use ratatui::layout::Rect;

/// The smallest box a take is drawn in: a poster worth looking at and a few lines under it.
pub const MIN_CELL: (u16, u16) = (34, 12);
/// Rows under the poster kept for the text (the prompt's words, the settings, the times).
pub const TEXT_ROWS: u16 = 7;
/// At most this many takes on screen at once; more are paged through.
pub const MOST: usize = 4;

/// Takes across and down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    pub cols: u16,
    pub rows: u16,
}

impl Grid {
    /// Takes on one page.
    pub fn per_page(self) -> usize {
        usize::from(self.cols) * usize::from(self.rows)
    }
}

/// Rows a 16:9 poster takes in a box of `width` columns and `height` rows of cells twice as
/// tall as wide, after the text's rows.
fn poster_rows(width: u16, height: u16) -> u16 {
    let by_width = (u32::from(width) * 9 / 32) as u16;
    by_width.min(height.saturating_sub(TEXT_ROWS))
}

/// The grid for `takes` takes in `body`: the one that shows the most of them (up to
/// [`MOST`]) in boxes no smaller than [`MIN_CELL`], then the one with the largest posters,
/// then the one with the fewest empty boxes. With no room even for one box, one take in all of
/// `body`.
pub fn choose(body: Rect, takes: usize) -> Grid {
    let want = takes.clamp(1, MOST);
    let candidates = [(4, 1), (2, 2), (3, 1), (2, 1), (1, 2), (1, 1)];
    candidates
        .into_iter()
        .map(|(cols, rows)| Grid { cols, rows })
        .filter(|g| g.per_page() <= want.max(2) || (want == 3 && g.per_page() == 4))
        .filter(|g| {
            let (w, h) = (body.width / g.cols, body.height / g.rows);
            w >= MIN_CELL.0 && h >= MIN_CELL.1
        })
        .max_by_key(|g| {
            let shown = g.per_page().min(want);
            let poster = poster_rows(body.width / g.cols - 2, body.height / g.rows - 2);
            let empty = g.per_page() - shown;
            (shown, poster, std::cmp::Reverse(empty))
        })
        .unwrap_or(Grid { cols: 1, rows: 1 })
}

/// The boxes of a page of `grid` in `body`, left to right, then top to bottom.
pub fn cells(body: Rect, grid: Grid) -> Vec<Rect> {
    let (w, h) = (body.width / grid.cols.max(1), body.height / grid.rows.max(1));
    (0..grid.rows)
        .flat_map(|r| (0..grid.cols).map(move |c| (c, r)))
        .map(|(c, r)| {
            // The last column and row take what the division left over.
            let width = if c + 1 == grid.cols { body.width - w * c } else { w };
            let height = if r + 1 == grid.rows { body.height - h * r } else { h };
            Rect { x: body.x + w * c, y: body.y + h * r, width, height }
        })
        .collect()
}

/// The first take of the page that holds take `focus`, with `per_page` takes a page.
pub fn first_shown(focus: usize, per_page: usize) -> usize {
    focus / per_page.max(1) * per_page.max(1)
}

/// Inside a take's box (`inner`, without its border): the poster on top, centred, shaped
/// `aspect` (width / height) in cells `cell` pixels in shape, and the text under it. No poster
/// when the box is too short.
pub fn poster_and_text(inner: Rect, aspect: f64, cell: (u16, u16)) -> (Option<Rect>, Rect) {
    let rows = inner.height.saturating_sub(TEXT_ROWS);
    if rows < 3 || inner.width < 8 || !aspect.is_finite() || aspect <= 0.0 {
        return (None, inner);
    }
    let ratio = f64::from(cell.1.max(1)) / f64::from(cell.0.max(1));
    let fits = |r: u16| (f64::from(r) * aspect.clamp(0.2, 5.0) * ratio).round() as u16;
    let mut height = rows;
    while height > 3 && fits(height) > inner.width {
        height -= 1;
    }
    let width = fits(height).clamp(1, inner.width);
    let poster = Rect { x: inner.x + (inner.width - width) / 2, y: inner.y, width, height };
    let text = Rect { y: inner.y + height, height: inner.height - height, ..inner };
    (Some(poster), text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(w: u16, h: u16) -> Rect {
        Rect::new(0, 1, w, h)
    }

    #[test]
    fn the_grid_fits_the_room() {
        // (body, takes, grid as (cols, rows))
        let cases = [
            ((80, 21), 2, (2, 1)),
            ((80, 21), 3, (2, 1)),
            ((80, 21), 4, (2, 1)),
            ((80, 21), 9, (2, 1)),
            ((160, 45), 2, (2, 1)),
            ((160, 45), 3, (3, 1)),
            ((160, 45), 4, (2, 2)),
            ((240, 40), 4, (4, 1)),
            ((200, 30), 4, (4, 1)),
            ((60, 40), 2, (1, 2)),
            ((40, 10), 2, (1, 1)),
            ((80, 21), 1, (1, 1)),
        ];
        for ((w, h), takes, (cols, rows)) in cases {
            assert_eq!(choose(body(w, h), takes), Grid { cols, rows }, "{takes} takes in {w}x{h}");
        }
    }

    #[test]
    fn boxes_cover_the_body() {
        let two = cells(Rect::new(0, 1, 81, 21), Grid { cols: 2, rows: 1 });
        assert_eq!(two, [Rect::new(0, 1, 40, 21), Rect::new(40, 1, 41, 21)]);
        let four = cells(Rect::new(0, 1, 160, 45), Grid { cols: 2, rows: 2 });
        assert_eq!(four.len(), 4);
        assert_eq!(four[3], Rect::new(80, 23, 80, 23));
    }

    #[test]
    fn pages_start_at_a_multiple_of_their_size() {
        let cases = [(0, 2, 0), (1, 2, 0), (2, 2, 2), (5, 2, 4), (3, 4, 0), (4, 4, 4), (3, 0, 3)];
        for (focus, per_page, want) in cases {
            assert_eq!(first_shown(focus, per_page), want, "focus {focus}, {per_page} a page");
        }
    }

    #[test]
    fn the_poster_sits_above_the_text() {
        let half = (10, 20);
        // A 38x19 box at 16:9: 10 rows would be 36 columns.
        let (poster, text) = poster_and_text(Rect::new(1, 2, 38, 19), 16.0 / 9.0, half);
        assert_eq!(poster, Some(Rect::new(2, 2, 36, 10)));
        assert_eq!(text, Rect::new(1, 12, 38, 9));
        // Narrow: the width decides.
        let (poster, _) = poster_and_text(Rect::new(0, 0, 20, 30), 16.0 / 9.0, half);
        assert_eq!(poster.map(|p| (p.width, p.height)), Some((18, 5)));
        // Portrait, centred.
        let (poster, _) = poster_and_text(Rect::new(0, 0, 40, 17), 9.0 / 16.0, half);
        assert_eq!(poster, Some(Rect::new(14, 0, 11, 10)));
        // Too short for a poster: all text.
        let (poster, text) = poster_and_text(Rect::new(0, 0, 40, 9), 16.0 / 9.0, half);
        assert_eq!((poster, text), (None, Rect::new(0, 0, 40, 9)));
    }
}
