//! The parts of the screen a binding applies in, with their names and titles.

/// Where a binding applies. Global bindings apply everywhere unless a narrower one takes the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    Global,
    /// The prompt and negative prompt text areas: every other key is typed.
    Text,
    /// One-line inputs (seconds, copies, grid): other keys are typed.
    Line,
    /// Pickers and toggles of the form.
    Form,
    Table,
    /// Typing a search in the table.
    Searching,
    /// The detail pane, focused to scroll (dashboard and history).
    Detail,
    HelpView,
    /// Typing a filter in the help.
    HelpFilter,
    /// A list to choose from: models, state groups.
    Picker,
    MediaEditor,
    History,
    /// Typing a search in the history.
    HistorySearch,
    /// A question (deleting a record, the daily budget, sending again, quitting).
    Confirm,
    /// A video playing in the detail pane: its keys come before the pane's own.
    Playing,
    /// Typing the path of a batch file to load into the form.
    Path,
    /// Typing tags for a task.
    Tagging,
    /// Takes side by side (`C`).
    Comparing,
}

impl Scope {
    pub const ALL: [Scope; 18] = [
        Scope::Global,
        Scope::Text,
        Scope::Line,
        Scope::Form,
        Scope::Table,
        Scope::Searching,
        Scope::Detail,
        Scope::HelpView,
        Scope::HelpFilter,
        Scope::Picker,
        Scope::MediaEditor,
        Scope::History,
        Scope::HistorySearch,
        Scope::Confirm,
        Scope::Playing,
        Scope::Path,
        Scope::Tagging,
        Scope::Comparing,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Scope::Global => "Everywhere",
            Scope::Text => "Prompt fields",
            Scope::Line => "Number and grid fields",
            Scope::Form => "Form choices",
            Scope::Table => "Task table",
            Scope::Searching => "Task search",
            Scope::Detail => "Detail pane",
            Scope::HelpView => "Help",
            Scope::HelpFilter => "Help filter",
            Scope::Picker => "Lists (models, states)",
            Scope::MediaEditor => "Media item",
            Scope::History => "History and ledger",
            Scope::HistorySearch => "History search",
            Scope::Confirm => "Questions",
            Scope::Playing => "Playing a preview",
            Scope::Path => "Batch file path",
            Scope::Tagging => "Tags",
            Scope::Comparing => "Comparing takes",
        }
    }

    /// The scope's name in the config (`[keys] "table.open" = "Enter"`).
    pub fn name(self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::Text => "text",
            Scope::Line => "line",
            Scope::Form => "form",
            Scope::Table => "table",
            Scope::Searching => "search",
            Scope::Detail => "detail",
            Scope::HelpView => "help",
            Scope::HelpFilter => "help_filter",
            Scope::Picker => "picker",
            Scope::MediaEditor => "media",
            Scope::History => "history",
            Scope::HistorySearch => "history_search",
            Scope::Confirm => "question",
            Scope::Playing => "playing",
            Scope::Path => "path",
            Scope::Tagging => "tags",
            Scope::Comparing => "compare",
        }
    }
}
