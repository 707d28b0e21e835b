use ratatui::Frame;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::app::{App, Focus};
use crate::compose::{Field, Loaded};
use crate::keymap::{Cmd, Scope};
use crate::labels::count;
use crate::labels::short_model;
use crate::layout::{Areas, MEDIA_ROWS};
use crate::theme;
use reel_rules::text::{clean, excerpt};

/// The last `max` characters of a line being typed, so its end (and the cursor) stays in view.
pub(crate) fn tail(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max { text.to_string() } else { format!("…{}", text.chars().skip(n + 1 - max).collect::<String>()) }
}

/// The key bound to a command, as the footer writes it.
pub fn key(app: &App, scope: Scope, cmd: Cmd) -> String {
    app.keymap().key_for(scope, cmd).unwrap_or_else(|| "?".into())
}

fn focused(app: &App, f: Field) -> bool {
    app.overlay().is_none() && app.focus() == Focus::Form(f)
}

/// The problem to show beside a field: a blank prompt is not an error before the first edit.
fn problem(app: &App, field: Field) -> Option<&str> {
    if field == Field::Prompt && !app.form().touched() {
        return None;
    }
    app.form().check().first_problem(field)
}

/// "Label  value  ✗ problem" on one line.
fn line<'a>(app: &App, field: Field, value: String, width: u16) -> Line<'a> {
    let label_style = if focused(app, field) { theme::focused_label() } else { theme::label() };
    let mut spans = vec![Span::styled(format!("{:<10}", field.label()), label_style), Span::raw(" ")];
    let used = 11 + value.chars().count();
    spans.push(Span::raw(value));
    if let Some(p) = problem(app, field) {
        // "  ✗ " takes four cells; the rest is cut with "…" and shown in full below the form.
        let room = (width as usize).saturating_sub(used + 4);
        if room > 3 {
            spans.push(Span::styled(format!("  ✗ {}", excerpt(p, room)), theme::error()));
        }
    }
    Line::from(spans)
}

fn text_block<'a>(app: &App, field: Field, title: &'a str, width: u16) -> Block<'a> {
    let style = if focused(app, field) { theme::focused_border() } else { theme::border() };
    let mut b = Block::default().borders(Borders::ALL).border_style(style).title(Span::styled(title, theme::label()));
    if let Some(p) = problem(app, field) {
        b = b.title_bottom(Span::styled(
            format!(" ✗ {} ", excerpt(p, (width as usize).saturating_sub(6))),
            theme::error(),
        ));
    }
    b
}

pub fn draw(frame: &mut Frame, a: &Areas, app: &App) {
    let in_form = matches!(app.focus(), Focus::Form(_));
    let title = match (app.form().batch(), app.form().parent()) {
        (Some(b), _) => format!(" Compose · batch {} ", excerpt(&clean(b.file()), 40)),
        (None, Some(p)) => format!(" Compose (varying task {p}) "),
        (None, None) => " Compose ".to_string(),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if in_form { theme::focused_border() } else { theme::border() })
        .title(Span::styled(title, theme::title()));
    frame.render_widget(block, a.form);
    let f = app.form();

    for (field, area, title, text) in [
        (Field::Prompt, a.field(Field::Prompt), " Prompt ", f.prompt()),
        (Field::Negative, a.field(Field::Negative), " Negative ", f.negative()),
    ] {
        let block = text_block(app, field, title, area.width);
        let inner = block.inner(area);
        frame.render_widget(block, area);
        frame.render_widget(text, inner);
    }

    let w = a.form.width.saturating_sub(2);
    let room = (w as usize).saturating_sub(11);
    let singles = [
        // The whole id when it fits, else the short form, so the mode is never what is cut.
        (
            Field::Model,
            if f.model_id().chars().count() <= room {
                clean(f.model_id())
            } else {
                excerpt(&short_model(f.model_id()), room)
            },
        ),
        (
            Field::Seconds,
            if focused(app, Field::Seconds) { format!("{}▏", f.seconds()) } else { f.seconds().to_string() },
        ),
        (Field::Resolution, format!("◂ {} ▸", f.resolution())),
        (Field::Ratio, format!("◂ {} ▸", f.ratio())),
        (Field::Watermark, if f.watermark() { "[x] on".into() } else { "[ ] off".into() }),
        (Field::Copies, if focused(app, Field::Copies) { format!("{}▏", f.copies()) } else { f.copies().to_string() }),
        (
            Field::Grid,
            match (f.grid().is_empty(), focused(app, Field::Grid)) {
                (true, false) if room >= 26 => "off (e.g. 16:9 9:16 5 10)".into(),
                (true, false) => "off (e.g. 16:9 5 10)".into(),
                (_, true) => format!("{}▏", tail(&clean(f.grid()), room.saturating_sub(1))),
                (false, false) => excerpt(f.grid(), room),
            },
        ),
    ];
    for (field, value) in singles {
        let area = a.field(field);
        let style = if field == Field::Grid && f.grid().is_empty() && !focused(app, field) {
            theme::dim()
        } else {
            Default::default()
        };
        frame.render_widget(Paragraph::new(line(app, field, value, w)).style(style), area);
    }

    let media_area = a.field(Field::Media);
    let mut lines = vec![line(
        app,
        Field::Media,
        if f.media().is_empty() {
            format!("none ({} adds one)", key(app, Scope::Form, Cmd::MediaAdd))
        } else {
            format!(
                "{}: {} edits, {} removes",
                count(f.media().len(), "item"),
                key(app, Scope::Form, Cmd::Choose),
                key(app, Scope::Form, Cmd::MediaRemove)
            )
        },
        w,
    )];
    let start = f.media_cursor().saturating_sub(MEDIA_ROWS as usize - 1);
    for (i, m) in f.media().iter().enumerate().skip(start).take(MEDIA_ROWS as usize) {
        let marker = if i == f.media_cursor() && focused(app, Field::Media) { "›" } else { " " };
        let secs = m.seconds.as_deref().map(|s| format!(" {s} s")).unwrap_or_default();
        let shown = m.local.as_ref().map_or(&m.url, |l| &l.path);
        let status = f.media_status(m).map(|s| format!(" {} ·", clean(&s.summary(&m.kind)))).unwrap_or_default();
        // The preview of images and videos goes in the brackets (issue 16 draws frames).
        let preview = if m.kind.contains("audio") { "[♪] " } else { "[▫] " };
        // What was measured comes before the URL, which is the first thing cut on a narrow pane.
        let text = format!("{marker}{preview}{}{status}{secs} {}", m.kind, clean(shown));
        lines.push(Line::raw(excerpt(&text, w as usize)));
    }
    frame.render_widget(Paragraph::new(lines), media_area);

    if let Some(b) = f.batch() {
        let (summary, notes) = batch(app, b, w);
        frame.render_widget(Paragraph::new(summary), a.summary);
        frame.render_widget(Paragraph::new(notes).wrap(Wrap { trim: true }), a.problems);
        return;
    }
    let c = f.check();
    let summary = if !f.touched() {
        Line::styled(format!("Type a prompt; {} sends it", key(app, Scope::Text, Cmd::Submit)), theme::dim())
    } else if c.plan.is_empty() {
        Line::styled(format!("{} · fix the ✗ fields to send", count(c.count, "task")), theme::dim())
    } else {
        let tasks = count(c.count, "task");
        let room = (w as usize).saturating_sub(tasks.chars().count());
        let mut rest = format!(" · billed {} · cost {}", c.billed, c.cost);
        if rest.chars().count() > room {
            rest = format!(" {}", excerpt(&format!("· {} · {}", c.billed, c.cost), room.saturating_sub(1)));
        }
        Line::from(vec![Span::styled(tasks, theme::title()), Span::raw(rest)])
    };
    frame.render_widget(Paragraph::new(summary), a.summary);

    // The focused field's problems first, in full: beside the field they may be cut.
    let shown = c.problems.iter().filter(|(field, _)| *field != Field::Prompt || f.touched());
    let (mine, others): (Vec<_>, Vec<_>) = shown.partition(|(field, _)| focused(app, *field));
    let mut notes: Vec<Line> = mine
        .into_iter()
        .map(|(field, p)| {
            Line::styled(format!("✗ {}: {p}", field.label()), theme::error().add_modifier(Modifier::BOLD))
        })
        .chain(others.into_iter().map(|(_, p)| Line::styled(format!("✗ {p}"), theme::error())))
        .collect();
    notes.extend(c.warnings.iter().map(|w| Line::styled(format!("! {w}"), theme::warn())));
    frame.render_widget(Paragraph::new(notes).wrap(Wrap { trim: true }), a.problems);
}

/// Row errors listed below the form; the rest are counted.
const MAX_ROW_ERRORS: usize = 50;

/// A loaded batch file in place of the form's check: what Ctrl-S sends (the same figures as
/// `reel submit --from`), where it comes from, and every row error.
fn batch<'a>(app: &App, b: &Loaded, w: u16) -> (Line<'a>, Vec<Line<'a>>) {
    let send = key(app, Scope::Text, Cmd::Submit);
    let unload = key(app, Scope::Text, Cmd::LeaveForm);
    let summary = if !b.problems().is_empty() {
        let them = if b.problems().len() == 1 { "it" } else { "them" };
        Line::styled(format!("{} · fix {them} to send", count(b.problems().len(), "row error")), theme::error())
    } else if b.count() == 0 {
        Line::styled("nothing left to send".to_string(), theme::dim())
    } else {
        let tasks = count(b.count(), "task");
        let room = (w as usize).saturating_sub(tasks.chars().count() + 1);
        let rest = excerpt(&format!("· billed {} · cost {}", b.billed(), b.cost()), room);
        Line::from(vec![Span::styled(tasks, theme::title()), Span::raw(format!(" {rest}"))])
    };
    let mut from = format!("{}: {} → {}", clean(b.file()), count(b.rows(), "row"), count(b.tasks(), "task"));
    if b.left_out() > 0 {
        from.push_str(&format!(" ({} sent before, left out)", b.left_out()));
    }
    let mut notes = vec![Line::styled(from, theme::label())];
    if b.sending() {
        notes.push(Line::styled("Sending…", theme::dim()));
    } else if b.refreshing() {
        notes.push(Line::styled("Expanding again over the changed form…", theme::dim()));
    }
    notes.push(Line::styled(
        format!("The form's fields are the defaults; {send} sends, {unload} unloads"),
        theme::dim(),
    ));
    // A pane shows a few dozen lines at most: a file of thousands of bad rows is not drawn whole.
    let shown = b.problems().len().min(MAX_ROW_ERRORS);
    notes.extend(
        b.problems()[..shown].iter().map(|p| Line::styled(format!("✗ {}", clean(&p.to_string())), theme::error())),
    );
    if b.problems().len() > shown {
        let n = b.problems().len() - shown;
        let more = format!("… and {n} more row error{}", if n == 1 { "" } else { "s" });
        notes.push(Line::styled(more, theme::error()));
    }
    (summary, notes)
}
