use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::api::types::message_of;
use crate::text::{clean, clock, excerpt, local_clock, size};
use crate::tui::app::App;
use crate::tui::theme;

fn field<'a>(name: &'a str, value: String) -> Line<'a> {
    Line::from(vec![Span::styled(format!("{name:<9}"), theme::label()), Span::raw(value)])
}

pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::border())
        .title(Span::styled(" Detail ", theme::title()));
    let Some(row) = app.table.selected_row() else {
        let text = app.welcome.clone().unwrap_or_else(|| "Select a task to see its parameters and timeline.".into());
        frame.render_widget(Paragraph::new(text).style(theme::dim()).wrap(Wrap { trim: true }).block(block), area);
        return;
    };
    let t = &row.record;
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("Task {} ", t.id), theme::title()),
        Span::styled(
            t.remote_id.as_deref().map(|r| excerpt(r, 40)).unwrap_or_else(|| "(not accepted)".into()),
            theme::dim(),
        ),
        Span::raw("  "),
        Span::styled(t.state.to_string(), theme::state(t.state)),
    ])];
    if let Some(p) = t.parent_id {
        lines.push(field("Parent", format!("task {p}")));
    }
    if t.state.is_polled() || t.state.needs_download() {
        let mut parts = Vec::new();
        if let Some(p) = t.progress {
            parts.push(format!("{p:.0}% done"));
        }
        if let Some(eta) = row.eta_ms.filter(|e| *e > app.now_ms) {
            parts.push(format!("about {} left", clock((eta - app.now_ms) / 1000)));
        }
        if let Some(x) = row.transfer {
            parts.push(format!("{} of {} saved", size(x.bytes), x.total.map_or("?".into(), size)));
        }
        if let (Some(d), true) = (t.url_deadline, t.state.needs_download()) {
            parts.push(format!("URL good for {}", clock((d - app.now_ms).max(0) / 1000)));
        }
        if !parts.is_empty() {
            lines.push(field("Progress", parts.join(" · ")));
        }
    }
    lines.push(field("Model", clean(&t.model)));
    lines.push(field("Prompt", clean(&t.prompt)));
    if let Some(n) = &t.negative_prompt {
        lines.push(field("Negative", clean(n)));
    }
    let billed = t.billed_seconds.map_or("unknown".into(), |b| format!("{b} s"));
    let watermark = if t.watermark { "on" } else { "off" };
    lines.push(field(
        "Settings",
        format!("{} s · {} · {} · watermark {watermark} · billed {billed}", t.seconds, t.resolution, t.ratio),
    ));
    for m in &t.media {
        let secs = m.seconds.map(|s| format!(" ({s} s)")).unwrap_or_default();
        lines.push(field("Media", format!("{} {}{secs}", m.kind, clean(&m.url))));
    }
    if let Some(p) = &t.file_path {
        let bytes = t.file_size.map(|s| format!(" ({})", size(s as u64))).unwrap_or_default();
        lines.push(field("File", format!("{}{bytes}", clean(p))));
    }
    if let Some(e) = &t.error {
        let message = message_of(e).unwrap_or_else(|| e.to_string());
        lines.push(Line::from(vec![
            Span::styled(format!("{:<9}", "Error"), theme::label()),
            Span::styled(clean(&message), theme::error()),
        ]));
    }
    if let Some(events) = app.table.timelines.get(&t.id)
        && let Some(first) = events.first()
    {
        let mut steps = vec![format!("{} {}", first.state, local_clock(first.at))];
        steps.extend(events.iter().skip(1).map(|e| format!("{} +{}", e.state, clock((e.at - first.at) / 1000))));
        lines.push(field("Timeline", steps.join(" → ")));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(block), area);
}
