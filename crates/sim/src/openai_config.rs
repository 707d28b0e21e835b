//! What `reel sim --answers openai` is set to: how its file route answers and how its tasks
//! end (see `openai` for the answers themselves).

use std::time::Duration;

use super::hostile::{BadValue, Trigger, by_name};

/// What `/content` answers while the file is not there yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NotReady {
    /// 404 "Video is not ready yet" (OpenAI).
    #[default]
    NotFound,
    /// 400 "Task is not completed yet" (new-api's `VideoProxy`).
    BadRequest,
}

impl NotReady {
    pub const NAMES: [(&'static str, NotReady); 2] = [("404", NotReady::NotFound), ("400", NotReady::BadRequest)];

    pub fn parse_name(text: &str) -> Result<NotReady, BadValue> {
        by_name(&Self::NAMES, text)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpenAi {
    /// `/content` honours `Range`; off, it answers every request with the whole file (200).
    pub ranges: bool,
    pub not_ready: NotReady,
    /// The file is served this long after the task says completed (a CDN catching up).
    pub content_lag: Duration,
    /// Whether the service has the `/content` route at all; without it, 404 for good.
    pub content_route: bool,
    /// `expires_at` this long after completion (null when `None`); past it the task says
    /// `expired` and its file is gone.
    pub expires_after: Option<Duration>,
    /// Tasks that end `cancelled` instead of completed, and those that end `expired` at once.
    pub cancelled: Trigger,
    pub expired: Trigger,
}

impl Default for OpenAi {
    fn default() -> Self {
        OpenAi {
            ranges: true,
            not_ready: NotReady::NotFound,
            content_lag: Duration::ZERO,
            content_route: true,
            expires_after: None,
            cancelled: Trigger::Never,
            expired: Trigger::Never,
        }
    }
}

/// How a task ends, besides what its timeline plans (drawn at submission).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ending {
    #[default]
    AsPlanned,
    Cancelled,
    Expired,
}
