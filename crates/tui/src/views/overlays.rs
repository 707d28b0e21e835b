//! The small overlays: the pickers (models, state groups), the media item editor, the line
//! for a task's tags, and the questions, each naming all its answers.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::app::{App, PickerKind, Question, Screen, TagInput};
use crate::compose::{MediaEditor, PathInput};
use crate::keymap::{Cmd, Scope};
use crate::labels::count;
use crate::layout::centered;
use crate::theme;
use reel_rules::text::excerpt;

/// A picker: its entries narrowed to what was typed, the cursor's highlighted; the title
/// says what was typed, or that typing narrows the list.
pub fn picker(frame: &mut Frame, app: &App, kind: PickerKind, cursor: usize) {
    let entries = app.picker_entries(kind);
    let shown = app.picker_shown(kind);
    let what = match (kind, app.screen()) {
        (PickerKind::Model, _) => "Model",
        (PickerKind::States, Screen::History) => "Show history tasks",
        (PickerKind::States, Screen::Dashboard) => "Show tasks",
    };
    let filter = app.picker_filter();
    let title = if filter.is_empty() {
        format!(" {what} · type to narrow ")
    } else {
        format!(" {what} · {}▏ ", excerpt(filter, 40))
    };
    // The box keeps the height of the whole list, so it does not jump while typing.
    let h = (entries.len().max(1) as u16 + 2).min(frame.area().height);
    let area = centered(frame.area(), 84, h);
    let mut lines: Vec<Line> = shown
        .iter()
        .map(|i| {
            let style = if *i == cursor { theme::selected() } else { Default::default() };
            Line::styled(format!(" {}", entries[*i]), style)
        })
        .collect();
    if lines.is_empty() {
        let noun = if kind == PickerKind::Model { "model" } else { "group" };
        lines.push(Line::styled(format!(" No {noun} matches \"{}\"", excerpt(filter, 40)), theme::warn()));
    }
    let at = shown.iter().position(|i| *i == cursor).unwrap_or(0);
    let scroll = at.saturating_sub(h.saturating_sub(3) as usize) as u16;
    let block = Block::default().borders(Borders::ALL).border_style(theme::focused_border()).title(title);
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}

pub fn media(frame: &mut Frame, app: &App, m: &MediaEditor) {
    let area = centered(frame.area(), 72, 7);
    let part = |i: usize, label: &str, value: String| {
        let style = if m.part() == i { theme::focused_label() } else { theme::label() };
        Line::from(vec![Span::styled(format!(" {label:<9}"), style), Span::raw(format!(" {value}"))])
    };
    let cursor = |i: usize| if m.part() == i { "▏" } else { "" };
    let key = |cmd| app.keymap().key_for(Scope::MediaEditor, cmd).unwrap_or_default();
    let hint = format!(
        " {}{} type   {}{} part   {} clear   {} save   {} cancel",
        key(Cmd::ValuePrev),
        key(Cmd::ValueNext),
        key(Cmd::FieldUp),
        key(Cmd::FieldDown),
        key(Cmd::ClearLine),
        key(Cmd::Choose),
        key(Cmd::CloseOverlay)
    );
    let lines = vec![
        part(0, "Type", format!("◂ {} ▸", m.kind())),
        part(1, "URL/file", {
            let hint = if m.url().is_empty() { "  (https://…, or a file: /…, ./…, ~/…)" } else { "" };
            format!("{}{}{hint}", reel_rules::text::clean(m.url()), cursor(1))
        }),
        part(2, "Seconds", format!("{}{}  (reference video or audio only)", m.seconds(), cursor(2))),
        Line::styled(hint, theme::dim()),
    ];
    let title = if m.index().is_some() { " Edit media item " } else { " Add media item " };
    let block = Block::default().borders(Borders::ALL).border_style(theme::focused_border()).title(title);
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The path of a batch file to load into the form.
pub fn batch_path(frame: &mut Frame, app: &App, p: &PathInput) {
    let area = centered(frame.area(), 72, 5);
    let key = |cmd| app.keymap().key_for(Scope::Path, cmd).unwrap_or_default();
    let hint = format!(
        " {} load   {} complete   {} clear   {} cancel",
        key(Cmd::Choose),
        key(Cmd::CompletePath),
        key(Cmd::ClearLine),
        key(Cmd::CloseOverlay)
    );
    let shown = reel_rules::text::clean(p.text());
    let room = usize::from(area.width.saturating_sub(5));
    let lines = vec![
        Line::from(vec![
            Span::styled(" File ", theme::focused_label()),
            Span::raw(format!(" {}▏", crate::compose::view::tail(&shown, room))),
        ]),
        Line::styled(" ~ is your home; a relative path starts where reel was started", theme::dim()),
        Line::styled(hint, theme::dim()),
    ];
    let title = " Load a batch file (JSON lines, CSV, text) ";
    let block = Block::default().borders(Borders::ALL).border_style(theme::focused_border()).title(title);
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The question's text and its answers (`key`, what it does).
fn question(app: &App, q: &Question) -> (String, Vec<(Cmd, String)>) {
    match q {
        Question::Delete(id) => (
            format!("Delete the record of task {id}? Its timeline goes with it; a form varying it keeps its text."),
            vec![
                (Cmd::Yes, "record only".into()),
                (Cmd::YesWithFile, "record and video file".into()),
                (Cmd::No, "keep it".into()),
            ],
        ),
        Question::Budget { text, .. } => {
            (text.clone(), vec![(Cmd::Yes, "send anyway".into()), (Cmd::No, "do not send".into())])
        }
        Question::Again { count: n, billed, cost, .. } => (
            format!("Send {} again? Billed {billed} · cost {cost}.", count(*n, "task")),
            vec![(Cmd::Yes, format!("send {}", count(*n, "task"))), (Cmd::No, "keep them as they are".into())],
        ),
        Question::Batch { count: n, billed, cost, .. } => (
            format!("Send {} ({billed} billed, {cost})? One batch.", count(*n, "task")),
            vec![(Cmd::Yes, format!("send {}", count(*n, "task"))), (Cmd::No, "do not send".into())],
        ),
        Question::Vary(t) => (
            format!("Replace the unsent prompt in the form with task {}'s? (undo in the prompt brings it back)", t.id),
            vec![(Cmd::Yes, "replace it".into()), (Cmd::No, "keep my draft".into())],
        ),
        Question::Quit { unfinished, held } => (
            crate::app::quit_question(
                app.after_quit(),
                *unfinished,
                *held,
                app.header().service.health == reel_engine::Health::KeyRefused,
            ),
            vec![(Cmd::Yes, "quit".into()), (Cmd::No, "stay".into())],
        ),
    }
}

pub fn confirm(frame: &mut Frame, app: &App, q: &Question) {
    let area = centered(frame.area(), 76, 7);
    let (text, answers) = question(app, q);
    let mut keys = Vec::new();
    for (cmd, what) in answers {
        let key = app.keymap().key_for(Scope::Confirm, cmd).unwrap_or_default();
        keys.push(Span::styled(format!(" {key} "), theme::key()));
        keys.push(Span::raw(format!("{what}   ")));
    }
    let lines = vec![Line::raw(format!(" {text}")), Line::raw(""), Line::from(keys)];
    let block = Block::default().borders(Borders::ALL).border_style(theme::focused_border()).title(" Are you sure? ");
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(block), area);
}

/// The line for a task's tags: what it has now, and what is typed.
pub fn tags(frame: &mut Frame, app: &App, input: &TagInput) {
    let area = centered(frame.area(), 72, 4);
    let key = |cmd| app.keymap().key_for(Scope::Tagging, cmd).unwrap_or_default();
    let now = if input.tags.is_empty() {
        "none yet".to_string()
    } else {
        input.tags.iter().map(|t| format!("#{}", reel_rules::text::clean(t))).collect::<Vec<_>>().join(" ")
    };
    let lines = vec![
        Line::from(vec![Span::styled(" Tags now ", theme::label()), Span::raw(excerpt(&now, 60))]),
        Line::from(vec![
            Span::styled(" Add      ", theme::focused_label()),
            Span::raw(format!("{}▏", reel_rules::text::clean(&input.text))),
        ]),
    ];
    let title = format!(
        " Tags for task {} · {} adds · -word takes one off · {} cancels ",
        input.id,
        key(Cmd::Choose),
        key(Cmd::CloseOverlay)
    );
    let block = Block::default().borders(Borders::ALL).border_style(theme::focused_border()).title(title);
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
