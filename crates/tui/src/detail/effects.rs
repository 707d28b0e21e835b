//! The detail pane's effect: the selected task's timeline read from the journal.

use reel_engine::query::QueryError;
use reel_engine::reader::ReadError;

use crate::app::Action;
use crate::effects::{Context, read_failed, reading};

pub fn load_timeline(cx: &Context, id: i64) {
    reading(cx, move |r| async move {
        match r.show(id).await {
            Ok((_, events)) => Some(Action::Timeline(id, events)),
            // Deleted meanwhile: the table forgets it on the engine's word.
            Err(ReadError::Query(QueryError::NoMatch(_))) => None,
            Err(e) => Some(read_failed(format!("the timeline of task {id}"), e)),
        }
    });
}
