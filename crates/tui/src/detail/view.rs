//! The detail pane: every parameter of the selected task, its media, file, error and timeline.
//! It scrolls when focused; `height` tells `update` how far it can.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::app::App;
use crate::keymap::{Cmd, Scope};
use crate::tasks::Row;
use crate::theme;
use crate::views::field::field;
use reel_api::types::message_of;
use reel_engine::ledger::billed_text;
use reel_rules::text::{clean, clock, excerpt, local_clock, size};
use reel_store::{LocalState, TaskRecord};

/// Settings, media items (one line each, numbered as the prompt refers to them) of a task.
pub fn parameters<'a>(t: &TaskRecord) -> Vec<Line<'a>> {
    let watermark = if t.watermark { "on" } else { "off" };
    let secs = crate::views::field::seconds(t.seconds);
    let mut lines = vec![field("Model", clean(&t.model)), field("Prompt", clean(&t.prompt))];
    if let Some(n) = &t.negative_prompt {
        lines.push(field("Negative", clean(n)));
    }
    lines.push(field(
        "Settings",
        format!("{secs} · {} · {} · watermark {watermark} · billed {}", t.resolution, t.ratio, billed_text(t)),
    ));
    if let Some(said) = reel_rules::rendered::said(t.asked(), &t.rendered) {
        lines.push(Line::from(vec![
            Span::styled(format!("{:<9}", "Rendered"), theme::label()),
            Span::styled(clean(&said), theme::warn()),
        ]));
    }
    if let Some(b) = t.batch_id {
        lines.push(field("Batch", format!("#{b}")));
    }
    let mut seen: Vec<&str> = Vec::new();
    for m in &t.media {
        seen.push(&m.kind);
        let n = seen.iter().filter(|k| **k == m.kind).count();
        let secs = m.seconds.map(|s| format!(" ({s} s)")).unwrap_or_default();
        let from = m.local.as_ref().map(|l| format!(" from {}", clean(&l.path))).unwrap_or_default();
        lines.push(field("Media", format!("{} {n}: {}{secs}{from}", clean(&m.kind), clean(&m.url))));
    }
    if !t.review.is_empty() {
        lines.push(field("Review", clean(&t.review.summary())));
    }
    lines
}

/// An error as the service or reel put it; for a task still waiting to be sent, why it waits.
pub fn error_line<'a>(e: &serde_json::Value, state: LocalState) -> Line<'a> {
    let message = message_of(e).unwrap_or_else(|| e.to_string());
    let (label, style) =
        if state == LocalState::Waiting { ("Waits", theme::warn()) } else { ("Error", theme::error()) };
    Line::from(vec![Span::styled(format!("{label:<9}"), theme::label()), Span::styled(clean(&message), style)])
}

/// Rows `lines` take when wrapped at word boundaries to `width` columns, as the pane wraps them.
pub fn wrapped_height(lines: &[Line], width: u16) -> u16 {
    let w = usize::from(width.max(1));
    let rows = |l: &Line| {
        let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
        let (mut rows, mut col) = (1usize, 0usize);
        for word in text.split(' ') {
            let ww = Span::raw(word).width();
            let need = if col == 0 { ww } else { col + 1 + ww };
            if need <= w {
                col = need;
            } else if ww <= w {
                rows += 1;
                col = ww;
            } else {
                rows += usize::from(col > 0) + ww.div_ceil(w) - 1;
                col = ww - (ww.div_ceil(w) - 1) * w;
            }
        }
        rows as u16
    };
    lines.iter().map(rows).sum()
}

fn lines<'a>(app: &App, row: &Row) -> Vec<Line<'a>> {
    let t = &row.record;
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("Task {} ", t.id), theme::title()),
        Span::styled(
            t.remote_id
                .as_deref()
                .map(|r| excerpt(r, 40))
                .unwrap_or_else(|| format!("({})", t.state.without_remote_id())),
            theme::dim(),
        ),
        Span::raw("  "),
        Span::styled(row.state_label.clone(), theme::state(t.state)),
    ])];
    if t.state == LocalState::SubmitUnknown {
        let todo = "the answer to its send was lost, so the service may have it (and bill it); r sends it again \
                    with the same idempotency key, which a service that took the first uses to refuse a second";
        lines.push(field("To do", todo.to_string()));
    }
    if let Some(p) = t.parent_id {
        lines.push(field("Parent", format!("task {p}")));
    }
    if t.state.is_polled() || t.state.needs_download() {
        let mut parts = Vec::new();
        if let Some(p) = t.progress {
            parts.push(format!("{p:.0}% done"));
        }
        if let Some(eta) = row.eta_ms.filter(|e| *e > app.now_ms()) {
            parts.push(format!("about {} left", clock((eta - app.now_ms()) / 1000)));
        }
        if let Some(x) = row.transfer {
            parts.push(format!("{} of {} saved", size(x.bytes), x.total.map_or("?".into(), size)));
        }
        if let (Some(d), true) = (t.url_deadline, t.state.needs_download()) {
            parts.push(format!("URL good for {}", clock((d - app.now_ms()).max(0) / 1000)));
        }
        if !parts.is_empty() {
            lines.push(field("Progress", parts.join(" · ")));
        }
    }
    lines.extend(parameters(t));
    lines.extend(crate::preview::view::note(app, t, row.file_present));
    if let Some(p) = &t.file_path {
        let bytes = t.file_size.map(|s| format!(" ({})", size(s as u64))).unwrap_or_default();
        lines.push(match row.file_present {
            Some(false) => Line::from(vec![
                Span::styled(format!("{:<9}", "File"), theme::label()),
                Span::styled(format!("missing: {} (moved or deleted)", clean(p)), theme::warn()),
            ]),
            _ => field("File", format!("{}{bytes}", clean(p))),
        });
    }
    if let Some(from) = &t.imported_from {
        lines.push(field("Imported", format!("from {}", clean(from))));
    }
    if let Some(e) = &t.error {
        lines.push(error_line(e, t.state));
    }
    if let Some(events) = app.table().timeline(t.id)
        && let Some(first) = events.first()
    {
        let mut steps = vec![format!("{} {}", first.state, local_clock(first.at))];
        steps.extend(events.iter().skip(1).map(|e| format!("{} +{}", e.state, clock((e.at - first.at) / 1000))));
        lines.push(field("Timeline", steps.join(" → ")));
        // The engine's last word, unless it only repeats the error or the file line above.
        let error = t.error.as_ref().map(|e| clean(&message_of(e).unwrap_or_else(|| e.to_string())));
        if let Some(note) = events.iter().rev().find_map(|e| e.detail.as_deref().filter(|d| !d.is_empty()))
            && Some(clean(note)) != error
            && !note.starts_with("saved ")
        {
            lines.push(field("Note", clean(note)));
        }
    }
    lines
}

/// Rows the selected task's detail takes at `width` columns.
pub fn height(app: &App, width: u16) -> u16 {
    app.table().selected_row().map_or(0, |row| wrapped_height(&lines(app, row), width))
}

/// A detail pane's content: the poster beside the text and the strip under both when the task
/// has a saved video and there is room, else the text alone; the text scrolls, with a hint
/// when it is longer than its area (`scope`: where Tab gives the pane the keys).
pub fn body(frame: &mut Frame, area: Rect, mut block: Block, lines: Vec<Line>, app: &App, scope: Scope) {
    let focused = app.detail_focused();
    let inner = block.inner(area);
    let fit = app.preview_fit(inner);
    let text = fit.as_ref().map_or(inner, |(_, f)| f.text);
    let total = wrapped_height(&lines, text.width);
    let scroll = app.detail_scroll().min(total.saturating_sub(text.height));
    if total > text.height {
        let more = if scroll + text.height < total { "↓ more" } else { "end" };
        let tab = crate::compose::view::key(app, scope, Cmd::NextFocus);
        let hint = if focused { more.to_string() } else { format!("{more} · {tab} to scroll") };
        block = block.title_bottom(Span::styled(format!(" {hint} "), theme::label()));
    }
    frame.render_widget(block, area);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).scroll((scroll, 0)), text);
    if let Some((s, f)) = fit {
        crate::preview::view::pictures(frame, app, &s.sha256, &f);
    }
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let focused = app.detail_focused();
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { theme::focused_border() } else { theme::border() })
        .title(Span::styled(" Detail ", theme::title()));
    let Some(row) = app.table().selected_row() else {
        let text = app.welcome().unwrap_or("Select a task to see its parameters and timeline.").to_string();
        frame.render_widget(Paragraph::new(text).style(theme::dim()).wrap(Wrap { trim: true }).block(block), area);
        return;
    };
    let lines = lines(app, row);
    body(frame, area, block, lines, app, Scope::Table);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_heights() {
        let cases: [(&str, u16, u16); 5] = [
            ("", 10, 1),
            ("short", 10, 1),
            ("a red fox in the snow", 10, 3),
            ("abcdefghijklmnopqrstuvwxy", 10, 3),
            ("ab abcdefghijklmnop", 10, 3),
        ];
        for (text, width, want) in cases {
            assert_eq!(wrapped_height(&[Line::raw(text)], width), want, "{text:?} at {width}");
        }
    }
}
