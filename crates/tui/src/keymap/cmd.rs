//! The commands a key can run, named as the config's `[keys]` names them.

use strum::IntoEnumIterator;

/// What a key does. The names `[keys]` in the config uses are the variants' own, in snake case
/// unless renamed here; configs in the wild use them, so a name never changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::EnumIter, strum::EnumString, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Cmd {
    Quit,
    ForceQuit,
    Help,
    #[strum(serialize = "close")]
    CloseOverlay,
    NextFocus,
    PrevFocus,
    Submit,
    #[strum(serialize = "editor")]
    EditInEditor,
    #[strum(serialize = "to_tasks")]
    LeaveForm,
    NewPrompt,
    Suspend,
    FieldUp,
    FieldDown,
    ValuePrev,
    ValueNext,
    Toggle,
    Choose,
    MediaAdd,
    MediaRemove,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Mark,
    Sort,
    Filter,
    Search,
    #[strum(serialize = "clear")]
    ClearSelection,
    Open,
    CopyPath,
    CopyUrl,
    #[strum(serialize = "again")]
    Resubmit,
    Vary,
    Download,
    Recheck,
    /// The n-th action of the config's `[[actions]]`; it has no name of its own.
    #[strum(disabled)]
    UserAction(usize),
    #[strum(serialize = "history")]
    ShowHistory,
    #[strum(serialize = "ledger")]
    ToggleLedger,
    #[strum(serialize = "model")]
    CycleModel,
    #[strum(serialize = "dates")]
    CycleSpan,
    CopyPrompt,
    Reveal,
    Delete,
    Yes,
    YesWithFile,
    No,
    Undo,
    Redo,
    /// Delete to the start of the line (a shell's Ctrl-U).
    ClearLine,
    /// Play the selected video inline in the detail pane (or stop it).
    Play,
    PlayPause,
    PlayStop,
    /// The history as a list or a grid of posters.
    #[strum(serialize = "grid")]
    ToggleGrid,
    /// Hide the form pane (or bring it back): the tasks and detail take the whole width.
    Zoom,
    /// Load a batch file (JSON lines, CSV, text) into the form: its expansion, count and cost.
    LoadBatch,
    /// Complete the path typed from the names in its folder.
    CompletePath,
    /// Rate the selected task one step up (unrated: 1) or down (from 1: unrated).
    RateUp,
    RateDown,
    /// Pick the selected task as the winner of its batch or comparison, or take the pick back.
    #[strum(serialize = "pick")]
    TogglePick,
    /// Type tags for the selected task (`-word` takes one off).
    #[strum(serialize = "tag")]
    EditTags,
    /// Compare the marked tasks (or the selected task's batch) side by side.
    Compare,
    /// Blind comparison: models and settings hidden, takes shuffled, until all are rated.
    Blind,
    /// Pick the focused take of a comparison as the winner.
    #[strum(serialize = "pick_take")]
    Pick,
    #[strum(serialize = "rate_1")]
    Rate1,
    #[strum(serialize = "rate_2")]
    Rate2,
    #[strum(serialize = "rate_3")]
    Rate3,
    #[strum(serialize = "rate_4")]
    Rate4,
    #[strum(serialize = "rate_5")]
    Rate5,
}

impl Cmd {
    /// The command's name in the config, if it can be rebound there.
    pub fn name(self) -> Option<&'static str> {
        match self {
            Cmd::UserAction(_) => None,
            cmd => Some(cmd.into()),
        }
    }

    /// The rating a `rate_N` command gives.
    pub fn rating(self) -> Option<u8> {
        match self {
            Cmd::Rate1 => Some(1),
            Cmd::Rate2 => Some(2),
            Cmd::Rate3 => Some(3),
            Cmd::Rate4 => Some(4),
            Cmd::Rate5 => Some(5),
            _ => None,
        }
    }

    pub(super) fn by_name(name: &str) -> Option<Cmd> {
        name.parse().ok()
    }

    /// Every name `[keys]` takes, in the enum's order.
    pub(super) fn names() -> Vec<&'static str> {
        Cmd::iter().filter_map(Cmd::name).collect()
    }
}
