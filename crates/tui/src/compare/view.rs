//! The compare view: takes side by side, each with its poster (or the frame of the clock while
//! they play together) and, under it, what tells it apart from the others: the prompt's words
//! only it has, the settings that differ, its render time, billed seconds and cost. In blind
//! mode the takes are letters and the model and settings wait for every rating.

use ratatui::Frame;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::app::{App, CompareAreas, TakeArea};
use crate::compare::Compare;
use crate::compare::diff::{differing, words};
use crate::labels::{elapsed_ms, short_model};
use crate::preview::view::{draw_picture, stand_in};
use crate::theme;
use crate::views::field::field;
use reel_engine::ledger::{billable, billed_text, is_demo};
use reel_rules::Pricing;
use reel_rules::text::{clean, clock};
use reel_store::TaskRecord;

/// A word of the prompt this take alone has.
fn only_here() -> Style {
    theme::warn().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
}

/// What a take cost, as the detail pane and the ledger count it: nothing for a take never
/// rendered or of demo mode, the price of its billed seconds, or why there is no figure.
pub fn cost_text(t: &TaskRecord, pricing: &Pricing) -> String {
    if !billable(t.state, t.remote_completed_at.is_some()) {
        return "nothing".into();
    }
    if is_demo(t.profile.as_deref(), &t.base_url) {
        return crate::compose::FREE_DEMO.into();
    }
    match t.billed_seconds {
        Some(billed) => pricing.cost(&t.model, billed).map_or_else(|| "no price set".into(), |c| pricing.format(c)),
        None => "not known yet".into(),
    }
}

/// The stars of a rating: ★★★☆☆.
fn stars(rating: u8) -> String {
    let n = usize::from(rating.min(5));
    format!("{}{}", "★".repeat(n), "☆".repeat(5 - n))
}

pub fn draw(frame: &mut Frame, app: &App) {
    let (Some(c), Some(areas)) = (app.compare(), app.compare_areas()) else { return };
    title(frame, c, &areas);
    for a in &areas.takes {
        take(frame, app, c, a);
    }
}

fn title(frame: &mut Frame, c: &Compare, areas: &CompareAreas) {
    let n = c.takes().len();
    let mut parts = vec![format!("Comparing {n} takes")];
    if let (Some(first), Some(last)) = (areas.takes.first(), areas.takes.last())
        && areas.takes.len() < n
    {
        parts.push(format!("{}-{} shown, PgDn for more", first.index + 1, last.index + 1));
    }
    if c.blind() {
        parts.push(if c.revealed() { "blind, revealed".into() } else { "blind: rate every take to reveal".into() });
    }
    match c.playback() {
        Some(p) if p.clock.is_some_and(|k| k.paused()) => parts.push("❚❚ paused".into()),
        Some(p) if p.clock.is_some() => parts.push("▶ playing together".into()),
        Some(_) => parts.push("decoding…".into()),
        None => {}
    }
    frame.render_widget(Paragraph::new(Span::styled(parts.join(" · "), theme::title())), areas.title);
}

fn take(frame: &mut Frame, app: &App, c: &Compare, a: &TakeArea) {
    let t = &c.takes()[a.index];
    let id = t.record.id;
    let revealed = c.revealed();
    let mut head = vec![Span::styled(format!(" {} ", c.name(a.index)), theme::title())];
    if c.blind() && revealed {
        head.push(Span::raw(format!("#{id} ")));
    }
    if revealed {
        head.push(Span::styled(format!("{} ", clean(&short_model(&t.record.model))), theme::label()));
    }
    if let Some(r) = c.rating(id) {
        head.push(Span::styled(format!("{} ", stars(r)), theme::warn()));
    }
    if c.picked() == Some(id) {
        head.push(Span::styled("✓ picked ", theme::ok()));
    }
    let focused = a.index == c.focus();
    let border = if focused { theme::focused_border() } else { theme::border() };
    let block = Block::default().borders(Borders::ALL).border_style(border).title(Line::from(head));
    frame.render_widget(block, a.cell);
    if let Some(poster) = a.poster {
        match (&t.file, c.picture(a.index, poster.as_size())) {
            (_, Some(p)) => draw_picture(frame, poster, p),
            (None, None) => stand_in(frame, poster, &["no saved video", "no video", "…"]),
            (Some((sha, _)), None) => {
                let why = match app.previews().missing(sha) {
                    Some(crate::preview::Missing::Failed(_)) => "no preview: the file cannot be read",
                    Some(crate::preview::Missing::NeedsFfmpeg(_)) => "no preview: ffmpeg is missing",
                    _ => "making preview…",
                };
                stand_in(frame, poster, &[why, "…"]);
            }
        }
    }
    let lines = text(app, c, a.index, revealed);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), a.text);
}

/// Under the poster: the settings that differ (when shown), the figures, the prompt's words.
fn text<'a>(app: &App, c: &Compare, index: usize, revealed: bool) -> Vec<Line<'a>> {
    let t = &c.takes()[index].record;
    let others = c.others(index);
    let mut lines = Vec::new();
    if revealed {
        let mut all = vec![t];
        all.extend(others.iter().copied());
        let differ = differing(&all);
        if differ.is_empty() {
            lines.push(Line::styled("Same settings as the others", theme::dim()));
        }
        for s in differ {
            lines.push(field(s.label(), clean(&s.value(t))));
        }
        let took = clock(elapsed_ms(t, app.now_ms()) / 1000);
        let cost = cost_text(t, app.pricing_ref());
        lines.push(field("Took", format!("{took} · billed {} · {cost}", billed_text(t))));
    } else {
        lines.push(Line::styled("Model and settings hidden until every take is rated", theme::dim()));
    }
    // The whole prompt, the words no other take has marked: the difference in its place.
    let other_prompts: Vec<&str> = others.iter().map(|o| o.prompt.as_str()).collect();
    let mut spans = vec![Span::styled(format!("{:<9}", "Prompt"), theme::label())];
    for (i, word) in words(&clean(&t.prompt), &other_prompts).into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw(" "));
        }
        spans.push(if word.only_here { Span::styled(word.text, only_here()) } else { Span::raw(word.text) });
    }
    lines.push(Line::from(spans));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::LocalState;
    use reel_store::fixtures::record;

    #[test]
    fn a_take_costs_what_its_billed_seconds_cost() {
        let pricing = Pricing { currency: "$".into(), per_second: [("m".to_string(), 0.05)].into_iter().collect() };
        let base = {
            let mut t = record(1, LocalState::Downloaded);
            t.model = "m".into();
            t.profile = None;
            t.base_url = "https://api.example.com".into();
            t.remote_completed_at = Some(t.created_at / 1000 + 60);
            t.billed_seconds = Some(8.0);
            t
        };
        let with = |f: &dyn Fn(&mut TaskRecord)| {
            let mut t = base.clone();
            f(&mut t);
            t
        };
        let cases = [
            (base.clone(), "$0.40"),
            (with(&|t| t.model = "other".into()), "no price set"),
            (with(&|t| t.billed_seconds = None), "not known yet"),
            (
                with(&|t| {
                    t.state = LocalState::Failed;
                    t.remote_completed_at = None;
                }),
                "nothing",
            ),
            (
                with(&|t| {
                    t.profile = Some("demo".into());
                    t.base_url = "http://127.0.0.1:9/".into();
                }),
                crate::compose::FREE_DEMO,
            ),
        ];
        for (t, want) in cases {
            assert_eq!(cost_text(&t, &pricing), want, "{:?} {:?} {:?}", t.model, t.billed_seconds, t.state);
        }
        assert_eq!(stars(4), "★★★★☆");
        assert_eq!(stars(9), "★★★★★");
    }
}
