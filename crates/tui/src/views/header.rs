use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::App;
use crate::labels::count;
use crate::theme;
use reel_engine::Health;
use reel_rules::text::{clean, excerpt};

pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let h = app.header();
    let mut spans = vec![Span::styled(" reel ", theme::title())];
    if let Some(host) = &h.far {
        spans.push(Span::styled(format!(" on {} ", excerpt(&clean(host), 32)), theme::label()));
    }
    if h.demo {
        spans.push(Span::styled(" DEMO: simulator ", theme::demo()));
    }
    let n = app.table().len();
    let running = app.table().running();
    spans.push(Span::styled(format!("  {}, {running} active", count(n, "task")), theme::label()));
    let health_style = match h.service.health {
        Health::Ok => theme::ok(),
        Health::RateLimited => theme::warn(),
        Health::Failing | Health::Unreachable | Health::KeyRefused => theme::error(),
    };
    spans.extend(link(app));
    // The service's health is the engine's word: not claimed while no engine is attached.
    if app.link().attached() {
        if let Some(disk) = &h.service.disk {
            spans.push(Span::styled(format!("  {}", disk.summary()), theme::error()));
        }
        spans.push(Span::raw("  service "));
        spans.push(Span::styled(h.service.service_summary(app.now_ms()), health_style));
    }
    // The profile and the address come last, each whole or not at all on a narrow terminal;
    // in demo mode the badge already says where tasks go.
    let profile = h.profile.as_ref().map(|p| Span::styled(format!("  {}", excerpt(p, 16)), theme::label()));
    let address = (!h.demo).then(|| Span::styled(format!("  {}", excerpt(&clean(&h.base_url), 48)), theme::dim()));
    let mut line = Line::from(spans);
    for span in [profile, address].into_iter().flatten() {
        if line.width() + span.width() <= usize::from(area.width) {
            line.push_span(span);
        }
    }
    frame.render_widget(Paragraph::new(line), area);
}

/// The link to the engine process, while something is wrong with it.
fn link(app: &App) -> Option<Span<'static>> {
    let what = app.header().far.as_ref().map_or_else(|| "engine".to_string(), |h| format!("link to {}", clean(h)));
    let text = app.link().describe_as(app.now_ms(), &what)?;
    let style = if app.link().attached() { theme::warn() } else { theme::error() };
    Some(Span::styled(format!("  {text}"), style))
}
