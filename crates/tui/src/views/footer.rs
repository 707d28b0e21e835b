//! The status line and the footer: the keys of the part of the screen that has them, the
//! most used first, cut to the width but never the keys to quit and to open the help.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::{App, Level, Overlay, Question};
use crate::keymap::{Cmd, Scope};
use crate::theme;

/// What one footer entry takes on screen: the key, a space, the word, two spaces.
fn width(item: &(String, String)) -> usize {
    item.0.chars().count() + item.1.chars().count() + 3
}

/// The entries that fit `width` columns, in their order, then those marked `keep` (quit and
/// help) at the end, whatever else has to go.
pub fn fit(items: Vec<(String, String)>, keep: &[&str], room: usize) -> Vec<(String, String)> {
    let (kept, others): (Vec<_>, Vec<_>) = items.into_iter().partition(|i| keep.contains(&i.1.as_str()));
    let mut used: usize = kept.iter().map(width).sum();
    let mut out = Vec::new();
    for item in others {
        if used + width(&item) <= room {
            used += width(&item);
            out.push(item);
        }
    }
    out.extend(kept);
    out
}

/// The answers of a question, with their keys as bound.
fn answers(app: &App, q: &Question) -> Vec<(String, String)> {
    let key = |cmd| app.keymap().key_for(Scope::Confirm, cmd).unwrap_or_default();
    let pair = |cmd, word: &str| (key(cmd), word.to_string());
    match q {
        Question::Delete(_) => {
            vec![pair(Cmd::Yes, "record"), pair(Cmd::YesWithFile, "record and file"), pair(Cmd::No, "keep")]
        }
        Question::Budget { .. } => vec![pair(Cmd::Yes, "send anyway"), pair(Cmd::No, "do not send")],
        Question::Again { .. } | Question::Batch { .. } => vec![pair(Cmd::Yes, "send them"), pair(Cmd::No, "keep")],
        Question::Quit { .. } => vec![pair(Cmd::Yes, "quit"), pair(Cmd::No, "stay")],
        Question::Vary(_) => vec![pair(Cmd::Yes, "replace"), pair(Cmd::No, "keep my draft")],
    }
}

pub fn draw(frame: &mut Frame, status: Rect, footer: Rect, app: &App) {
    if let Some(s) = app.status() {
        let style = match s.level {
            Level::Info => theme::label(),
            Level::Warn => theme::warn(),
            Level::Error => theme::error(),
        };
        frame.render_widget(Paragraph::new(Line::styled(format!(" {}", s.text), style)), status);
    }
    // A question's answers keep their order; elsewhere quit and help are kept, at the end.
    let (items, keep): (_, &[&str]) = match app.overlay() {
        Some(Overlay::Confirm(q)) => (answers(app, q), &[]),
        _ => {
            let mut items = app.keymap().footer(app.scope());
            // While a preview plays, its keys come first; the pane's Space and Esc are theirs.
            if app.playing() && matches!(app.scope(), Scope::Table | Scope::Detail | Scope::History) {
                let playing = app.keymap().footer(Scope::Playing);
                let paused = app.previews().playing().is_some_and(|p| p.paused);
                items.retain(|(k, _)| !playing.iter().any(|(p, _)| p == k));
                let own = playing.into_iter().filter(|(_, w)| w == "pause" || w == "stop");
                items.splice(
                    0..0,
                    own.map(|(k, w)| if w == "pause" && paused { (k, "go on".to_string()) } else { (k, w) }),
                );
            }
            // Where letters are typed (the form, a search) quitting has no letter of its own.
            if app.overlay().is_none()
                && !items.iter().any(|(_, w)| w == "quit")
                && let Some(key) = app.keymap().key_for(app.scope(), Cmd::ForceQuit)
            {
                items.push((key, "quit".to_string()));
            }
            // In the form, the key to send stays with quit and help.
            let form = matches!(app.scope(), Scope::Text | Scope::Line | Scope::Form);
            (items, if form { &["send", "quit", "help"] } else { &["quit", "help"] })
        }
    };
    let mut spans = vec![Span::raw(" ")];
    for (key, what) in fit(items, keep, footer.width.saturating_sub(1) as usize) {
        spans.push(Span::styled(key, theme::key()));
        spans.push(Span::styled(format!(" {what}  "), theme::label()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), footer);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keymap::Keymap;

    #[test]
    fn quit_and_help_always_fit() {
        let k = Keymap::new(&[]);
        for scope in Scope::ALL {
            for room in [40, 79, 159] {
                let shown = fit(k.footer(scope), &["quit", "help"], room);
                let used: usize = shown.iter().map(width).sum();
                let wanted = k.footer(scope).iter().filter(|i| i.1 == "help").count();
                assert_eq!(shown.iter().filter(|i| i.1 == "help").count(), wanted, "{scope:?} at {room}");
                assert!(used <= room.max(20), "{scope:?} at {room}: {shown:?}");
            }
        }
        let table = fit(k.footer(Scope::Table), &["quit", "help"], 79);
        assert_eq!(table.first().map(|i| i.1.as_str()), Some("open"), "most used first");
        let last: Vec<&str> = table.iter().rev().take(2).map(|i| i.1.as_str()).collect();
        assert_eq!(last, vec!["help", "quit"], "quit and help last, always: {table:?}");
    }
}
