//! A labelled line, as the detail pane and the previews write their fields, and the values
//! every view writes the same way.

use ratatui::text::{Line, Span};

use crate::theme;

/// `Model    acme/aurora-3.0/…`: the name in a column of its own, then the value.
pub fn field<'a>(name: &str, value: String) -> Line<'a> {
    Line::from(vec![Span::styled(format!("{name:<9}"), theme::label()), Span::raw(value)])
}

/// A task's seconds as every view writes them: `auto` for the service's choice (-1), else
/// `10 s`.
pub fn seconds(s: i64) -> String {
    if s < 0 { "auto".to_string() } else { format!("{s} s") }
}

/// A task's rating and pick as the table and the history rows show them: `★4✓`, `★4`, `✓`.
pub fn review_mark(r: &reel_store::Review) -> String {
    let rating = r.rating.map(|n| format!("★{n}")).unwrap_or_default();
    format!("{rating}{}", if r.picked { "✓" } else { "" })
}

#[cfg(test)]
mod tests {
    use reel_store::Review;

    #[test]
    fn a_rating_and_a_pick_are_marked_one_way() {
        let cases = [
            (Review::default(), ""),
            (Review { rating: Some(4), ..Review::default() }, "★4"),
            (Review { picked: true, ..Review::default() }, "✓"),
            (Review { rating: Some(5), picked: true, tags: vec!["keeper".into()] }, "★5✓"),
            (Review { tags: vec!["keeper".into()], ..Review::default() }, ""),
        ];
        for (r, mark) in cases {
            assert_eq!(super::review_mark(&r), mark, "{r:?}");
        }
    }

    #[test]
    fn seconds_are_written_one_way() {
        for (s, want) in [(-1, "auto"), (0, "0 s"), (5, "5 s"), (10, "10 s")] {
            assert_eq!(super::seconds(s), want);
        }
    }
}
