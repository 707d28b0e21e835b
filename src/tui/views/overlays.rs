//! The small overlays: the pickers (models, state groups), the media item editor, and the
//! questions, each naming all its answers.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::rules::ModelId;
use crate::tui::app::{App, PickerKind, Question, Screen};
use crate::tui::form::MediaEditor;
use crate::tui::keymap::{Cmd, Scope};
use crate::tui::labels::Filter;
use crate::tui::labels::count;
use crate::tui::layout::centered;
use crate::tui::theme;

pub fn picker(frame: &mut Frame, app: &App, kind: PickerKind, cursor: usize) {
    let entries: Vec<String> = match kind {
        PickerKind::Model => app
            .form()
            .models()
            .iter()
            .map(|id| {
                let mode = id.parse::<ModelId>().map(|m| m.mode.to_string()).unwrap_or_default();
                format!(" {id:<44} {mode}")
            })
            .collect(),
        PickerKind::States => Filter::ALL.iter().map(|f| format!(" {:<9} {}", f.label(), f.describe())).collect(),
    };
    let title = match (kind, app.screen()) {
        (PickerKind::Model, _) => " Model ",
        (PickerKind::States, Screen::History) => " Show history tasks ",
        (PickerKind::States, Screen::Dashboard) => " Show tasks ",
    };
    let h = (entries.len() as u16 + 2).min(frame.area().height);
    let area = centered(frame.area(), 84, h);
    let lines: Vec<Line> = entries
        .into_iter()
        .enumerate()
        .map(|(i, text)| Line::styled(text, if i == cursor { theme::selected() } else { Default::default() }))
        .collect();
    let scroll = cursor.saturating_sub(h.saturating_sub(3) as usize) as u16;
    let block = Block::default().borders(Borders::ALL).border_style(theme::focused_border()).title(title);
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}

pub fn media(frame: &mut Frame, app: &App, m: &MediaEditor) {
    let area = centered(frame.area(), 72, 7);
    let part = |i: usize, label: &str, value: String| {
        let style = if m.part == i { theme::focused_label() } else { theme::label() };
        Line::from(vec![Span::styled(format!(" {label:<9}"), style), Span::raw(format!(" {value}"))])
    };
    let cursor = |i: usize| if m.part == i { "▏" } else { "" };
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
        part(0, "Type", format!("◂ {} ▸", m.kind)),
        part(1, "URL/file", {
            let hint = if m.url.is_empty() { "  (https://…, or a file: /…, ./…, ~/…)" } else { "" };
            format!("{}{}{hint}", crate::text::clean(&m.url), cursor(1))
        }),
        part(2, "Seconds", format!("{}{}  (reference video or audio only)", m.seconds, cursor(2))),
        Line::styled(hint, theme::dim()),
    ];
    let title = if m.index.is_some() { " Edit media item " } else { " Add media item " };
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
        Question::Vary(t) => (
            format!("Replace the unsent prompt in the form with task {}'s? (undo in the prompt brings it back)", t.id),
            vec![(Cmd::Yes, "replace it".into()), (Cmd::No, "keep my draft".into())],
        ),
        Question::Quit { unfinished, held } => (
            crate::tui::app::quit_question(app.after_quit(), *unfinished, *held),
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
