//! The default bindings. Within a scope, the order is the footer's order: the most used first.

use crossterm::event::KeyCode as K;

use super::Cmd::*;
use super::Scope::*;
use super::{Binding, Cmd, Key, Scope};

fn b(scope: Scope, key: Key, cmd: Cmd, help: &str, footer: Option<&str>) -> Binding {
    Binding { scope, key, cmd, help: help.to_string(), footer: footer.map(str::to_string), entry: None }
}

/// The movement keys of a list or a scrolling pane.
fn movement(scope: Scope, what: &str, out: &mut Vec<Binding>) {
    out.extend([
        b(scope, Key::plain(K::Up), Up, &format!("{what} up"), None),
        b(scope, Key::ch('k'), Up, &format!("{what} up"), None),
        b(scope, Key::plain(K::Down), Down, &format!("{what} down"), None),
        b(scope, Key::ch('j'), Down, &format!("{what} down"), None),
        b(scope, Key::plain(K::PageUp), PageUp, "a page up", None),
        b(scope, Key::plain(K::PageDown), PageDown, "a page down", None),
        b(scope, Key::plain(K::Home), Top, "to the top", None),
        b(scope, Key::plain(K::End), Bottom, "to the end", None),
    ]);
}

pub fn bindings() -> Vec<Binding> {
    let mut v = vec![
        b(Global, Key::ctrl('c'), ForceQuit, "quit (asks first while tasks are unfinished)", None),
        b(Global, Key::plain(K::F(1)), Help, "this help", Some("help")),
        b(Global, Key::plain(K::Tab), NextFocus, "next field or pane", Some("next")),
        b(Global, Key::plain(K::BackTab), PrevFocus, "previous field or pane", None),
        b(Global, Key::ctrl('s'), Submit, "send the form (copies or grid as set)", Some("send")),
        b(Global, Key::ctrl('z'), Suspend, "suspend to the shell (fg comes back)", None),
        b(Text, Key::plain(K::Esc), LeaveForm, "leave the form for the task table, or unload a batch", Some("tasks")),
        b(Text, Key::ctrl('e'), EditInEditor, "edit the text in $EDITOR", Some("$EDITOR")),
        b(Text, Key::ctrl('u'), ClearLine, "delete to the start of the line", None),
        b(Text, Key::ctrl('z'), Undo, "undo", Some("undo")),
        b(Text, Key::ctrl('r'), Redo, "redo", None),
        b(Text, Key::ctrl('o'), LoadBatch, "load a batch file (JSONL, CSV, text) into the form", Some("batch")),
        b(Line, Key::plain(K::Esc), LeaveForm, "leave the form for the task table, or unload a batch", Some("tasks")),
        b(Line, Key::plain(K::Up), FieldUp, "previous field", None),
        b(Line, Key::plain(K::Down), FieldDown, "next field", None),
        b(Line, Key::ctrl('u'), ClearLine, "clear the field", Some("clear")),
        b(Line, Key::ctrl('o'), LoadBatch, "load a batch file (JSONL, CSV, text) into the form", None),
        b(Form, Key::plain(K::Esc), LeaveForm, "leave the form for the task table, or unload a batch", Some("tasks")),
        b(Form, Key::plain(K::Left), ValuePrev, "previous choice", Some("change")),
        b(Form, Key::plain(K::Right), ValueNext, "next choice", None),
        b(Form, Key::plain(K::Enter), Choose, "open the model list / edit the media item", Some("choose")),
        b(Form, Key::ch('a'), MediaAdd, "add a media item", Some("add media")),
        b(Form, Key::ch('x'), MediaRemove, "remove the media item", None),
        b(Form, Key::ctrl('o'), LoadBatch, "load a batch file (JSONL, CSV, text) into the form", None),
        b(Form, Key::ch(' '), Toggle, "toggle the watermark", None),
        b(Form, Key::plain(K::Up), FieldUp, "previous field (or media item)", None),
        b(Form, Key::plain(K::Down), FieldDown, "next field (or media item)", None),
        b(Form, Key::ch('?'), Help, "this help", Some("help")),
        b(Table, Key::ch('o'), Open, "open the video in the player", Some("open")),
        b(Table, Key::ch('p'), Play, "play the video here, in the detail pane (again: stop)", Some("play")),
        b(Table, Key::ch('e'), Vary, "copy into the form to vary it", Some("vary")),
        b(Table, Key::ch('r'), Resubmit, "send again as is (or resend an unknown one)", Some("again")),
        b(Table, Key::ch(' '), Mark, "mark or unmark (actions apply to every marked task)", Some("mark")),
        b(Table, Key::ch('f'), Filter, "show all, active, done or problem tasks", Some("filter")),
        b(Table, Key::ch('/'), Search, "search prompts as you type", Some("search")),
        b(Table, Key::ch('H'), ShowHistory, "history of every task", Some("history")),
        b(Table, Key::ch('n'), NewPrompt, "write a new prompt", Some("new")),
        b(Table, Key::ch('s'), Sort, "change the sort order", Some("sort")),
        b(Table, Key::ch('z'), Zoom, "hide or show the form: the tasks take its width", Some("zoom")),
        b(Table, Key::ch('+'), RateUp, "rate one step up (1 to 5)", Some("rate")),
        b(Table, Key::ch('-'), RateDown, "rate one step down (below 1: no rating)", None),
        b(Table, Key::ch('*'), TogglePick, "pick it as the winner, or take the pick back", None),
        b(Table, Key::ch('t'), EditTags, "add tags (-word takes one off)", None),
        b(Table, Key::ch('C'), Compare, "compare the marked tasks (or the batch) side by side", Some("compare")),
        b(Table, Key::ch('d'), Download, "download the file again", None),
        b(Table, Key::ch('c'), Recheck, "check a stalled, expired, lost or failed download again", None),
        b(Table, Key::ch('y'), CopyPath, "copy the file path", None),
        b(Table, Key::ch('Y'), CopyUrl, "copy the video URL", None),
        b(Table, Key::plain(K::Esc), ClearSelection, "clear marks and search", None),
        b(Table, Key::ch('q'), Quit, "quit (asks first while tasks are unfinished)", Some("quit")),
        b(Table, Key::ch('?'), Help, "this help", Some("help")),
    ];
    movement(Table, "a task", &mut v);
    v.extend([
        b(Detail, Key::plain(K::Esc), LeaveForm, "back to the task table", Some("tasks")),
        b(Detail, Key::ch('z'), Zoom, "hide or show the form: the tasks take its width", None),
        b(Detail, Key::ch('q'), Quit, "quit (asks first while tasks are unfinished)", Some("quit")),
        b(Detail, Key::ch('?'), Help, "this help", Some("help")),
    ]);
    movement(Detail, "scroll", &mut v);
    v.extend([
        b(Playing, Key::ch(' '), PlayPause, "pause or go on playing", Some("pause")),
        b(Playing, Key::plain(K::Esc), PlayStop, "stop playing (back to the poster)", Some("stop")),
    ]);
    v.extend([
        b(Comparing, Key::ch('p'), Play, "play the takes together, on one clock (again: stop)", Some("play")),
        b(Comparing, Key::plain(K::Esc), CloseOverlay, "close the comparison", Some("close")),
        b(Comparing, Key::plain(K::Left), ValuePrev, "the take to the left", Some("take")),
        b(Comparing, Key::plain(K::Right), ValueNext, "the take to the right", None),
        b(Comparing, Key::ch('h'), ValuePrev, "the take to the left", None),
        b(Comparing, Key::ch('l'), ValueNext, "the take to the right", None),
        b(Comparing, Key::ch('1'), Rate1, "rate the take 1 (of 5)", Some("rate")),
        b(Comparing, Key::ch('2'), Rate2, "rate the take 2", None),
        b(Comparing, Key::ch('3'), Rate3, "rate the take 3", None),
        b(Comparing, Key::ch('4'), Rate4, "rate the take 4", None),
        b(Comparing, Key::ch('5'), Rate5, "rate the take 5", None),
        b(Comparing, Key::plain(K::Enter), Pick, "pick the take as the winner", Some("pick")),
        b(Comparing, Key::ch('b'), Blind, "blind: shuffled, models hidden until all are rated", Some("blind")),
        b(Comparing, Key::plain(K::PageDown), PageDown, "the next takes (more than fit)", Some("more")),
        b(Comparing, Key::plain(K::PageUp), PageUp, "the previous takes", None),
        b(Comparing, Key::ch('q'), CloseOverlay, "close the comparison", None),
        b(Comparing, Key::ch('?'), Help, "this help", Some("help")),
    ]);
    v.extend([
        b(History, Key::ch('o'), Open, "open the video", Some("open")),
        b(History, Key::ch('p'), Play, "play the video here, in the detail pane (again: stop)", Some("play")),
        b(History, Key::ch('g'), ToggleGrid, "a grid of posters or the list", Some("grid")),
        b(History, Key::plain(K::Left), ValuePrev, "the poster to the left (grid)", None),
        b(History, Key::plain(K::Right), ValueNext, "the poster to the right (grid)", None),
        b(History, Key::ch('h'), ValuePrev, "the poster to the left (grid)", None),
        b(History, Key::ch('l'), ValueNext, "the poster to the right (grid)", None),
        b(History, Key::ch('C'), Compare, "compare the selected task's batch side by side", None),
        b(History, Key::ch('e'), Vary, "copy into the form to vary it", Some("vary")),
        b(History, Key::ch('r'), Resubmit, "send it again as is", Some("again")),
        b(History, Key::ch('/'), Search, "search prompts (words match by prefix)", Some("search")),
        b(History, Key::ch('f'), Filter, "show all, active, done or problem tasks", Some("state")),
        b(History, Key::ch('m'), CycleModel, "filter by model", Some("model")),
        b(History, Key::ch('t'), CycleSpan, "date range: all, today, 7 days, 30 days", Some("dates")),
        b(History, Key::ch('L'), ToggleLedger, "the cost and time ledger", Some("ledger")),
        b(History, Key::ch('x'), Delete, "delete the record (asks first)", Some("delete")),
        b(History, Key::ch('s'), Sort, "newest or oldest first", None),
        b(History, Key::ch('v'), Reveal, "reveal the video's folder", None),
        b(History, Key::ch('y'), CopyPrompt, "copy the prompt", None),
        b(History, Key::ch('d'), Download, "download the file again", None),
        b(History, Key::ch('+'), RateUp, "rate one step up (1 to 5)", None),
        b(History, Key::ch('-'), RateDown, "rate one step down (below 1: no rating)", None),
        b(History, Key::ch('*'), TogglePick, "pick it as the winner, or take the pick back", None),
        b(History, Key::ch('T'), EditTags, "add tags (-word takes one off)", None),
        b(History, Key::plain(K::Tab), NextFocus, "move between the list and the detail", None),
        b(History, Key::plain(K::BackTab), PrevFocus, "move between the list and the detail", None),
        b(History, Key::ch('H'), ShowHistory, "back to the dashboard", Some("back")),
        b(History, Key::plain(K::Esc), ShowHistory, "back to the dashboard", None),
        b(History, Key::ch('q'), Quit, "quit (asks first while tasks are unfinished)", Some("quit")),
        b(History, Key::ch('?'), Help, "this help", Some("help")),
    ]);
    movement(History, "a task", &mut v);
    v.extend([
        b(HistorySearch, Key::plain(K::Enter), CloseOverlay, "keep the search", Some("keep")),
        b(HistorySearch, Key::plain(K::Esc), ClearSelection, "drop the search", Some("drop")),
        b(HistorySearch, Key::ctrl('u'), ClearLine, "clear the search text", None),
        b(Searching, Key::plain(K::Enter), CloseOverlay, "keep the search", Some("keep")),
        b(Searching, Key::plain(K::Esc), ClearSelection, "drop the search (the marks stay)", Some("drop")),
        b(Searching, Key::ctrl('u'), ClearLine, "clear the search text", None),
        b(Confirm, Key::ch('y'), Yes, "yes (for a record: the record only)", Some("yes")),
        b(Confirm, Key::ch('f'), YesWithFile, "the record and its video file", None),
        b(Confirm, Key::ch('n'), No, "no", Some("no")),
        b(Confirm, Key::plain(K::Esc), No, "no", None),
        b(HelpView, Key::ch('/'), Search, "filter the keys", Some("filter")),
        b(HelpView, Key::plain(K::Esc), CloseOverlay, "close the help", Some("close")),
        b(HelpView, Key::ch('q'), CloseOverlay, "close the help", None),
        b(HelpView, Key::ch('?'), CloseOverlay, "close the help", None),
        b(HelpView, Key::plain(K::F(1)), CloseOverlay, "close the help", None),
    ]);
    movement(HelpView, "scroll", &mut v);
    v.extend([
        b(Tagging, Key::plain(K::Enter), Choose, "add the tags (-word takes one off)", Some("apply")),
        b(Tagging, Key::plain(K::Esc), CloseOverlay, "leave the tags as they are", Some("cancel")),
        b(Tagging, Key::ctrl('u'), ClearLine, "clear the line", None),
        b(HelpFilter, Key::plain(K::Enter), CloseOverlay, "keep the filter", Some("keep")),
        b(HelpFilter, Key::plain(K::Esc), ClearSelection, "drop the filter", Some("drop")),
        b(HelpFilter, Key::ctrl('u'), ClearLine, "clear the filter text", None),
        b(Picker, Key::plain(K::Enter), Choose, "use this one", Some("use")),
        b(Picker, Key::plain(K::Esc), CloseOverlay, "keep what was chosen", Some("cancel")),
        b(Picker, Key::plain(K::Up), Up, "previous", None),
        b(Picker, Key::plain(K::Down), Down, "next", None),
        b(MediaEditor, Key::plain(K::Enter), Choose, "save the item", Some("save")),
        b(MediaEditor, Key::plain(K::Esc), CloseOverlay, "cancel", Some("cancel")),
        b(MediaEditor, Key::plain(K::Left), ValuePrev, "previous type", Some("type")),
        b(MediaEditor, Key::plain(K::Right), ValueNext, "next type", None),
        b(MediaEditor, Key::plain(K::Up), FieldUp, "previous part", Some("part")),
        b(MediaEditor, Key::plain(K::Down), FieldDown, "next part", None),
        b(MediaEditor, Key::ctrl('u'), ClearLine, "clear the URL or seconds", None),
        b(Path, Key::plain(K::Enter), Choose, "load the file into the form", Some("load")),
        b(Path, Key::plain(K::Esc), CloseOverlay, "cancel", Some("cancel")),
        b(Path, Key::plain(K::Tab), CompletePath, "complete the name from its folder", Some("complete")),
        b(Path, Key::ctrl('u'), ClearLine, "clear the path", Some("clear")),
    ]);
    v
}
