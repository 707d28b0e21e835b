//! Where a task's frames go inside a detail pane, as a pure function of the pane's inner area,
//! the video's shape and the terminal cell's shape: the poster beside the text, the strip of
//! frames under both, or nothing when the pane is too small for a picture worth looking at.

use ratatui::layout::Rect;

/// Columns the text beside the poster keeps, whatever the poster wants: enough that a model
/// name or an id is not broken mid-word (so the task table's pane at 80x24 shows text only).
pub const MIN_TEXT: u16 = 40;
/// The smallest poster drawn, in cells; smaller and the pane shows text only.
const MIN_POSTER: (u16, u16) = (8, 3);
/// Rows the pane needs before a strip is drawn under the poster.
const STRIP_FROM_ROWS: u16 = 10;
/// Columns between strip frames and between the poster and the text.
const GAP: u16 = 1;

/// The picture areas of a detail pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fit {
    pub poster: Rect,
    /// Left to right, as many as fit (up to the strip's frame count).
    pub strip: Vec<Rect>,
    /// What is left for the text.
    pub text: Rect,
}

/// Cells a picture of `aspect` (width / height) takes across `rows`, with cells `cell` (pixel
/// width, height) in shape.
fn cols_for(rows: u16, aspect: f64, cell: (u16, u16)) -> u16 {
    let ratio = f64::from(cell.1.max(1)) / f64::from(cell.0.max(1));
    (f64::from(rows) * aspect * ratio).round().clamp(0.0, f64::from(u16::MAX)) as u16
}

fn rows_for(cols: u16, aspect: f64, cell: (u16, u16)) -> u16 {
    let ratio = f64::from(cell.1.max(1)) / f64::from(cell.0.max(1));
    (f64::from(cols) / aspect / ratio).round().clamp(0.0, f64::from(u16::MAX)) as u16
}

/// The poster (and strip of `frames`) for a video of `aspect` in `inner`; `None` when the pane
/// is too small, so the text keeps the whole pane.
pub fn fit(inner: Rect, aspect: f64, cell: (u16, u16), frames: usize) -> Option<Fit> {
    if !aspect.is_finite() || aspect <= 0.0 {
        return None;
    }
    let aspect = aspect.clamp(0.2, 5.0);
    let widest = inner.width.saturating_sub(MIN_TEXT + GAP).min((u32::from(inner.width) * 45 / 100) as u16);
    if widest < MIN_POSTER.0 || inner.height < MIN_POSTER.1 {
        return None;
    }
    // The strip first: it takes at most a third of the pane, and only from a roomy pane.
    let n = frames as u16;
    let mut strip_rows = 0;
    let mut frame_cols = 0;
    if n > 0 && inner.height >= STRIP_FROM_ROWS {
        let cols = inner.width.saturating_sub(GAP * (n - 1)) / n;
        let rows = rows_for(cols, aspect, cell).clamp(2, inner.height / 3);
        frame_cols = cols.min(cols_for(rows, aspect, cell));
        if frame_cols >= 4 {
            strip_rows = rows;
        }
    }
    let rows = inner.height - strip_rows - u16::from(strip_rows > 0);
    let mut poster = (cols_for(rows, aspect, cell), rows);
    if poster.0 > widest {
        poster = (widest, rows_for(widest, aspect, cell).min(rows));
    }
    if poster.0 < MIN_POSTER.0 || poster.1 < MIN_POSTER.1 {
        return None;
    }
    let strip = (0..if strip_rows > 0 { n } else { 0 })
        .map(|i| Rect {
            x: inner.x + i * (frame_cols + GAP),
            y: inner.y + inner.height - strip_rows,
            width: frame_cols,
            height: strip_rows,
        })
        .collect();
    Some(Fit {
        poster: Rect { x: inner.x, y: inner.y, width: poster.0, height: poster.1 },
        strip,
        text: Rect { x: inner.x + poster.0 + GAP, y: inner.y, width: inner.width - poster.0 - GAP, height: rows },
    })
}

/// The history grid: cells of a poster with the prompt under it, row by row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    pub cols: u16,
    pub rows: u16,
    /// One cell: the poster's cells (the prompt's line comes under it).
    pub poster: (u16, u16),
}

/// Lines of text under each poster of the grid.
pub const GRID_TEXT_ROWS: u16 = 2;
/// A grid cell's poster width, in columns, before spare room is shared out.
const GRID_POSTER_COLS: u16 = 18;

impl Grid {
    /// The grid that fills `area` with 16:9 posters; at least one cell.
    pub fn of(area: Rect, cell: (u16, u16)) -> Grid {
        let width = GRID_POSTER_COLS.min(area.width.max(1));
        let cols = ((area.width + GAP) / (width + GAP)).max(1);
        // Spare columns widen every poster a little rather than sit at the right.
        let width = ((area.width + GAP) / cols).saturating_sub(GAP).max(1);
        let poster_rows = rows_for(width, 16.0 / 9.0, cell).max(1);
        let rows = (area.height / (poster_rows + GRID_TEXT_ROWS)).max(1);
        Grid { cols, rows, poster: (width, poster_rows) }
    }

    pub fn cells(&self) -> usize {
        usize::from(self.cols) * usize::from(self.rows)
    }

    /// The area of cell `i` (counted from the first cell on screen) inside `area`.
    pub fn cell(&self, area: Rect, i: usize) -> Rect {
        let (col, row) = ((i % usize::from(self.cols)) as u16, (i / usize::from(self.cols)) as u16);
        Rect {
            x: area.x + col * (self.poster.0 + GAP),
            y: area.y + row * (self.poster.1 + GRID_TEXT_ROWS),
            width: self.poster.0,
            height: self.poster.1 + GRID_TEXT_ROWS,
        }
    }

    /// The first row shown, keeping the selected cell's row near the middle (like the list).
    pub fn first_row(&self, selected: usize, len: usize) -> usize {
        let cols = usize::from(self.cols);
        let (row, total, rows) = (selected / cols, len.div_ceil(cols), usize::from(self.rows));
        if total <= rows { 0 } else { row.saturating_sub(rows / 2).min(total - rows) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HALF: (u16, u16) = (10, 20);
    const WIDE: f64 = 16.0 / 9.0;

    fn r(x: u16, y: u16, w: u16, h: u16) -> Rect {
        Rect { x, y, width: w, height: h }
    }

    #[test]
    fn poster_and_strip_by_pane_size() {
        // (pane inner, aspect, poster, strip frames (count, width, height), text width)
        type Case = (Rect, f64, Option<Rect>, (usize, u16, u16), u16);
        let cases: [Case; 8] = [
            // The task table's pane at 80x24: a poster would break the text mid-word.
            (r(47, 15, 44, 6), WIDE, None, (0, 0, 0), 0),
            // 100 columns: a small poster, no strip.
            (r(35, 20, 64, 6), WIDE, Some(r(35, 20, 21, 6)), (0, 0, 0), 42),
            // History at 80x24.
            (r(1, 14, 78, 7), WIDE, Some(r(1, 14, 25, 7)), (0, 0, 0), 52),
            // The dashboard at 160x48: poster beside the text, five frames under both.
            (r(57, 32, 102, 14), WIDE, Some(r(57, 32, 32, 9)), (5, 14, 4), 69),
            // A portrait video is narrow.
            (r(0, 0, 102, 14), 9.0 / 16.0, Some(r(0, 0, 10, 9)), (5, 5, 4), 91),
            // Too narrow for a poster beside 28 columns of text.
            (r(0, 0, 36, 10), WIDE, None, (0, 0, 0), 0),
            // Too low.
            (r(0, 0, 80, 2), WIDE, None, (0, 0, 0), 0),
            // A nonsense shape draws nothing.
            (r(0, 0, 80, 20), f64::NAN, None, (0, 0, 0), 0),
        ];
        for (inner, aspect, poster, (n, fw, fh), text) in cases {
            let got = fit(inner, aspect, HALF, 5);
            assert_eq!(got.as_ref().map(|f| f.poster), poster, "{inner:?} {aspect}");
            if let Some(f) = got {
                assert_eq!(f.strip.len(), n, "{inner:?}");
                assert!(f.strip.iter().all(|s| (s.width, s.height) == (fw, fh)), "{inner:?}: {:?}", f.strip);
                assert_eq!(f.text.width, text, "{inner:?}");
                for s in &f.strip {
                    assert!(s.right() <= inner.right() && s.bottom() == inner.bottom(), "{s:?} in {inner:?}");
                    assert!(s.y >= f.poster.bottom(), "the strip is under the poster");
                }
                assert!(f.poster.right() < f.text.x && f.text.right() == inner.right());
            }
        }
    }

    #[test]
    fn every_size_fits_inside_the_pane() {
        for w in 0..120 {
            for h in 0..30 {
                let inner = r(3, 2, w, h);
                if let Some(f) = fit(inner, WIDE, HALF, 5) {
                    for a in f.strip.iter().chain([&f.poster, &f.text]) {
                        assert!(inner.contains(a.as_position()) && a.right() <= inner.right(), "{a:?} in {inner:?}");
                        assert!(a.bottom() <= inner.bottom(), "{a:?} in {inner:?}");
                    }
                    assert!(f.text.width >= MIN_TEXT);
                }
            }
        }
    }

    #[test]
    fn grid_cells() {
        // 158 columns: eight posters of 18 columns; 43 rows of 7 (5 + 2) make six rows.
        let g = Grid::of(r(1, 2, 158, 43), HALF);
        assert_eq!(g, Grid { cols: 8, rows: 6, poster: (18, 5) });
        assert_eq!(g.cell(r(1, 2, 158, 43), 7), r(134, 2, 18, 7));
        assert_eq!(g.cell(r(1, 2, 158, 43), 9), r(20, 9, 18, 7));
        // 78 columns at 80x24.
        assert_eq!(Grid::of(r(1, 2, 78, 17), HALF), Grid { cols: 4, rows: 2, poster: (18, 5) });
        // A sliver still has one cell.
        assert_eq!(Grid::of(r(0, 0, 5, 1), HALF).cells(), 1);
        let g = Grid { cols: 4, rows: 2, poster: (20, 6) };
        // (selected, rows loaded, first row shown)
        for (selected, len, want) in [(0, 100, 0), (9, 100, 1), (3, 8, 0), (7, 12, 0), (30, 40, 6), (39, 40, 8)] {
            assert_eq!(g.first_row(selected, len), want, "{selected} of {len}");
        }
    }
}
