//! The history screen's effects: pages of the query, a task's lineage, the ledger of the range
//! shown, the models the history holds; each read where the journal is.

use reel_rules::Pricing;
use reel_store::history::HistoryQuery;

use crate::app::Action;
use crate::effects::{Context, read_failed, reading};
use crate::latest::Ticket;

pub fn page(cx: &Context, ticket: Ticket, query: HistoryQuery, cursor: Option<i64>) {
    reading(cx, move |r| async move {
        let page = r.history(&query, cursor, super::PAGE).await.map_err(Into::into);
        Some(Action::HistoryPage(ticket, page))
    });
}

pub fn lineage(cx: &Context, id: i64) {
    reading(cx, move |r| async move {
        match r.lineage(id).await {
            Ok((p, children)) => Some(Action::Lineage(id, p, children)),
            Err(e) => Some(read_failed(format!("the parent and children of task {id}"), e)),
        }
    });
}

/// What was spent since `since` (ms), priced as the user prices it.
pub fn ledger(cx: &Context, since: Option<i64>) {
    let pricing: Pricing = cx.pricing.clone();
    reading(cx, move |r| async move {
        Some(match r.ledger(since, &pricing).await {
            Ok(l) => Action::Ledger(l),
            Err(e) => Action::Report(Err(e.into())),
        })
    });
}

/// The models the history holds, for its model filter.
pub fn models(cx: &Context) {
    reading(cx, move |r| async move {
        match r.models().await {
            Ok(models) => Some(Action::Models(models)),
            Err(e) => Some(read_failed("the models of the history".into(), e)),
        }
    });
}
