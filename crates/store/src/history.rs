//! History queries over the whole journal: pages of tasks (search, filters, keyset paging),
//! lineage, deletion, and the per-day and per-model ledger.

use std::collections::BTreeMap;

use rusqlite::{Connection, params_from_iter, types::Value as Sql};
use serde::{Deserialize, Serialize};

use super::StoreError;
use super::state::LocalState;
use super::tasks::{self, TaskRecord};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Order {
    #[default]
    Newest,
    Oldest,
}

/// What the history shows. Text is matched against prompts and negative prompts by prefix.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryQuery {
    pub text: String,
    pub model: Option<String>,
    pub state: Option<LocalState>,
    /// Any of these states (a group, such as the dashboard's "problems"); empty for any.
    #[serde(default)]
    pub states: Vec<LocalState>,
    /// Unix ms, inclusive.
    pub since: Option<i64>,
    /// Unix ms, exclusive.
    pub until: Option<i64>,
    pub order: Order,
}

/// An FTS5 query from user text: every word must appear, each as a prefix ("red fo" finds
/// "red fox"). Words are quoted, so nothing the user types is FTS syntax.
pub fn fts_query(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| format!("\"{}\"*", w.replace('"', "\"\"")))
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// A search as typed, split into the words matched against prompts and the terms about
/// review: `rating:>=4` (also `rating:5`, `rating:<3`, `rating:<=2`, `rating:>3`), `tag:WORD`,
/// `picked`. A term that does not read as one (`rating:high`) is searched as words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    /// Everything else, matched by prefix against prompts and negative prompts.
    pub words: String,
    /// Ratings admitted, inclusive; several `rating:` terms narrow it. Unrated tasks never match.
    pub rating: Option<(u8, u8)>,
    /// Every one of these tags (normalised).
    pub tags: Vec<String>,
    pub picked: bool,
}

impl Search {
    pub fn parse(text: &str) -> Search {
        let mut out = Search::default();
        let mut words: Vec<&str> = Vec::new();
        for term in text.split_whitespace() {
            let lower = term.to_lowercase();
            if lower == "picked" {
                out.picked = true;
            } else if let Some(range) = lower.strip_prefix("rating:").and_then(rating_range) {
                let (low, high) = out.rating.unwrap_or((0, u8::MAX));
                out.rating = Some((low.max(range.0), high.min(range.1)));
            } else if let Some(tag) = lower.strip_prefix("tag:").and_then(|t| super::review::tag(t).ok()) {
                if !out.tags.contains(&tag) {
                    out.tags.push(tag);
                }
            } else {
                words.push(term);
            }
        }
        out.words = words.join(" ");
        out
    }

    /// Whether `t` is found: every word a prefix of a word of its prompt or negative prompt (any
    /// case), and every term about ratings, picks and tags met. The one search language of the
    /// history, the dashboard's table and `reel history search`.
    pub fn admits(&self, t: &TaskRecord) -> bool {
        let words: Vec<String> =
            search_words(&t.prompt).chain(search_words(t.negative_prompt.as_deref().unwrap_or(""))).collect();
        search_words(&self.words).all(|q| words.iter().any(|w| w.starts_with(&q))) && self.admits_review(&t.review)
    }

    /// Whether `review` meets every term about ratings, picks and tags.
    pub fn admits_review(&self, review: &super::Review) -> bool {
        self.rating.is_none_or(|(low, high)| review.rating.is_some_and(|r| (low..=high).contains(&r)))
            && (!self.picked || review.picked)
            && self.tags.iter().all(|t| review.tags.contains(t))
    }
}

/// The terms of a search that are meant as filters but filter nothing as written, each with
/// what is wrong: a `rating:` whose bound does not read (`rating:abc`) or that no rating meets
/// (`rating:>=6`: ratings are 1 to 5), a `tag:` without a tag. Empty when all is well.
pub fn problems(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for term in text.split_whitespace() {
        let lower = term.to_lowercase();
        if let Some(bound) = lower.strip_prefix("rating:") {
            match rating_range(bound) {
                None => out.push(format!(
                    "`{term}` is not a rating filter (rating:4, rating:>=4, rating:>3, rating:<=2, rating:<3)"
                )),
                Some((low, high)) if low.max(1) > high.min(5) => {
                    out.push(format!("`{term}` admits no rating: ratings are 1 to 5"));
                }
                Some(_) => {}
            }
        } else if let Some(tag) = lower.strip_prefix("tag:")
            && let Err(e) = super::review::tag(tag)
        {
            out.push(format!("`{term}`: {e}"));
        }
    }
    out
}

/// The ratings a `rating:` term admits, inclusive: `4` or `=4`, `>=4`, `>4`, `<=2`, `<2`.
fn rating_range(bound: &str) -> Option<(u8, u8)> {
    let (op, number) = match bound.find(|c: char| c.is_ascii_digit()) {
        Some(i) => bound.split_at(i),
        None => return None,
    };
    let n: u8 = number.parse().ok()?;
    Some(match op {
        "" | "=" => (n, n),
        ">=" => (n, u8::MAX),
        ">" => (n.saturating_add(1), u8::MAX),
        "<=" => (0, n),
        // `rating:<0` admits nothing: an empty range.
        "<" => n.checked_sub(1).map_or((1, 0), |m| (0, m)),
        _ => return None,
    })
}

/// The words of a search, as the full-text index splits them.
fn search_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)
}

impl HistoryQuery {
    /// Whether the query would find `t`: the same rules as the SQL, for a task the engine
    /// reports while its results are on screen (every word a prefix of a word of the prompt
    /// or negative prompt, ignoring case; the terms about ratings, picks and tags, see [`Search`]).
    pub fn admits(&self, t: &TaskRecord) -> bool {
        Search::parse(&self.text).admits(t)
            && self.model.as_ref().is_none_or(|m| *m == t.model)
            && self.state.is_none_or(|s| s == t.state)
            && (self.states.is_empty() || self.states.contains(&t.state))
            && self.since.is_none_or(|s| t.created_at >= s)
            && self.until.is_none_or(|u| t.created_at < u)
    }
}

/// The smallest `x` in `low..=high` for which `reached(x)`, or `high + 1`; `reached` must be
/// false up to some point and true after it.
fn first_reached(
    mut low: i64,
    high: i64,
    mut reached: impl FnMut(i64) -> Result<bool, StoreError>,
) -> Result<i64, StoreError> {
    let mut end = high.saturating_add(1);
    while low < end {
        let mid = low + (end - low) / 2;
        if reached(mid)? {
            end = mid;
        } else {
            low = mid + 1;
        }
    }
    Ok(low)
}

/// The first id created at `at` or later (`i64::MAX` if none). Ids grow with creation time, so
/// a date bound is an id bound: found by bisecting ids, a few lookups by primary key.
fn first_id_since(conn: &Connection, at: i64) -> Result<i64, StoreError> {
    let (low, high): (Option<i64>, Option<i64>) =
        conn.query_row("SELECT min(id), max(id) FROM tasks", [], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let (Some(low), Some(high)) = (low, high) else { return Ok(i64::MAX) };
    let mut next = conn.prepare_cached("SELECT id, created_at FROM tasks WHERE id >= ?1 ORDER BY id LIMIT 1")?;
    let mut at_or_after = |x: i64| -> Result<Option<i64>, StoreError> {
        let (id, created): (i64, i64) = next.query_row([x], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok((created >= at).then_some(id))
    };
    let x = first_reached(low, high, |x| Ok(at_or_after(x)?.is_some()))?;
    if x > high { Ok(i64::MAX) } else { Ok(at_or_after(x)?.unwrap_or(i64::MAX)) }
}

/// The id range that a date range covers.
fn id_bounds(conn: &Connection, q: &HistoryQuery) -> Result<(Option<i64>, Option<i64>), StoreError> {
    let low = q.since.map(|at| first_id_since(conn, at)).transpose()?;
    let high = q.until.map(|at| first_id_since(conn, at)).transpose()?;
    Ok((low, high))
}

/// One page of history after `cursor` (the last id of the previous page), in the query's order.
pub fn page(
    conn: &Connection,
    q: &HistoryQuery,
    cursor: Option<i64>,
    limit: usize,
) -> Result<Vec<TaskRecord>, StoreError> {
    let (low, high) = id_bounds(conn, q)?;
    let mut conditions: Vec<&str> = Vec::new();
    let mut args: Vec<Sql> = Vec::new();
    let search = Search::parse(&q.text);
    let fts = fts_query(&search.words);
    if let Some(m) = &fts {
        conditions.push("tasks_fts MATCH ?");
        args.push(Sql::Text(m.clone()));
    }
    if let Some((low, high)) = search.rating {
        conditions.push("t.rating BETWEEN ? AND ?");
        args.extend([Sql::Integer(low.into()), Sql::Integer(high.into())]);
    }
    if search.picked {
        conditions.push("t.picked = 1");
    }
    for tag in &search.tags {
        conditions.push("t.id IN (SELECT task_id FROM task_tags WHERE tag = ?)");
        args.push(Sql::Text(tag.clone()));
    }
    if let Some(model) = &q.model {
        conditions.push("t.model_id = (SELECT id FROM labels WHERE text = ?)");
        args.push(Sql::Text(model.clone()));
    }
    if let Some(state) = q.state {
        conditions.push("t.state_code = (SELECT code FROM states WHERE name = ?)");
        args.push(Sql::Text(state.as_str().into()));
    }
    let any_of;
    if !q.states.is_empty() {
        any_of = format!(
            "t.state_code IN (SELECT code FROM states WHERE name IN ({}))",
            vec!["?"; q.states.len()].join(", ")
        );
        conditions.push(&any_of);
        args.extend(q.states.iter().map(|s| Sql::Text(s.as_str().into())));
    }
    if let Some(low) = low {
        conditions.push("t.id >= ?");
        args.push(Sql::Integer(low));
    }
    if let Some(high) = high {
        conditions.push("t.id < ?");
        args.push(Sql::Integer(high));
    }
    if let Some(c) = cursor {
        conditions.push(if q.order == Order::Newest { "t.id < ?" } else { "t.id > ?" });
        args.push(Sql::Integer(c));
    }
    args.push(Sql::Integer(limit.min(10_000) as i64));
    let direction = if q.order == Order::Newest { "DESC" } else { "ASC" };
    let from = if fts.is_some() { "tasks_fts f JOIN tasks t ON t.id = f.rowid" } else { "tasks t" };
    let order_by = if fts.is_some() { "f.rowid" } else { "t.id" };
    let filter = if conditions.is_empty() { String::new() } else { format!("WHERE {}", conditions.join(" AND ")) };
    // Only fixed fragments are joined here; every value the user gave is a bound parameter.
    let sql = format!("SELECT {} FROM {from} {filter} ORDER BY {order_by} {direction} LIMIT ?", tasks::COLUMNS);
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(args), tasks::from_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The tasks derived from a task, oldest first.
pub fn children(conn: &Connection, id: i64) -> Result<Vec<TaskRecord>, StoreError> {
    let sql = format!("SELECT {} FROM tasks t WHERE t.parent_id = ?1 ORDER BY t.id", tasks::COLUMNS);
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map([id], tasks::from_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Every model that appears in the journal, for the model filter.
pub fn models(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT text FROM labels l WHERE EXISTS (SELECT 1 FROM tasks WHERE model_id = l.id) ORDER BY text",
    )?;
    let rows = stmt.query_map([], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
    Ok(rows)
}

/// Deletes a task and (by cascade) its events; children keep existing with no parent. Returns
/// the row as it was, so the caller can remove the file if asked.
pub fn delete(conn: &Connection, id: i64) -> Result<Option<TaskRecord>, StoreError> {
    let task = tasks::get(conn, id)?;
    if task.is_some() {
        conn.execute("DELETE FROM tasks WHERE id = ?1", [id])?;
    }
    Ok(task)
}

/// One (day, model) cell of the ledger.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct LedgerRow {
    /// Local date, YYYY-MM-DD.
    pub day: String,
    pub model: String,
    pub tasks: u64,
    /// The service finished rendering them (whether or not the file was saved since).
    pub succeeded: u64,
    /// The service reported that rendering failed.
    pub failed: u64,
    /// The service refused them at submission.
    pub rejected: u64,
    /// The service lost them before they were rendered (404 for an id it gave, or an unusable
    /// id). A render it finished and forgot later is a success, not a loss.
    pub lost: u64,
    /// Billed seconds of the rendered tasks whose billed seconds are known.
    pub billed_seconds: f64,
    /// Rendered tasks whose billed seconds are not known (a reference video of unstated length).
    pub unknown_billed: u64,
    /// Tasks with a rating, and the sum of their ratings.
    pub rated: u64,
    pub rating_total: u64,
    /// Rendered tasks the service says it made other than asked (another size or length).
    pub rendered_otherwise: u64,
    /// The profile and base URL the cell's tasks were sent with: demo work is priced at nothing.
    #[serde(skip)]
    pub profile: Option<String>,
    #[serde(skip)]
    pub base_url: String,
}

/// Render times in seconds, per model.
pub type RenderTimes = BTreeMap<String, Vec<f64>>;

/// The raw ledger since a time: one row per day and model, and render times per model.
pub fn ledger_rows(conn: &Connection, since: Option<i64>) -> Result<(Vec<LedgerRow>, RenderTimes), StoreError> {
    let first = match since {
        Some(at) => first_id_since(conn, at)?,
        None => i64::MIN,
    };
    let mut stmt = conn.prepare_cached(
        "SELECT date(created_at / 1000, 'unixepoch', 'localtime') AS day, \
         (SELECT text FROM labels WHERE id = model_id) AS model, count(*), \
         sum(remote_completed_at IS NOT NULL), sum(state_code = (SELECT code FROM states WHERE name = 'failed')), \
         sum(state_code = (SELECT code FROM states WHERE name = 'rejected')), \
         sum(state_code = (SELECT code FROM states WHERE name = 'lost') AND remote_completed_at IS NULL), \
         total(CASE WHEN remote_completed_at IS NOT NULL THEN billed_seconds END), \
         sum(remote_completed_at IS NOT NULL AND billed_seconds IS NULL), count(rating), total(rating), \
         sum(remote_completed_at IS NOT NULL AND rendered_otherwise = 1), \
         (SELECT text FROM labels WHERE id = profile_id), (SELECT text FROM labels WHERE id = base_url_id) \
         FROM tasks WHERE id >= ?1 AND imported_from IS NULL GROUP BY day, model_id, profile_id, base_url_id \
         ORDER BY day, model",
    )?;
    let rows = stmt
        .query_map([first], |r| {
            Ok(LedgerRow {
                day: r.get(0)?,
                model: r.get(1)?,
                tasks: r.get::<_, i64>(2)? as u64,
                succeeded: r.get::<_, i64>(3)? as u64,
                failed: r.get::<_, i64>(4)? as u64,
                rejected: r.get::<_, i64>(5)? as u64,
                lost: r.get::<_, i64>(6)? as u64,
                billed_seconds: r.get(7)?,
                unknown_billed: r.get::<_, i64>(8)? as u64,
                rated: r.get::<_, i64>(9)? as u64,
                rating_total: r.get::<_, f64>(10)? as u64,
                rendered_otherwise: r.get::<_, i64>(11)? as u64,
                profile: r.get(12)?,
                base_url: r.get::<_, Option<String>>(13)?.unwrap_or_default(),
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut stmt = conn.prepare_cached(
        "SELECT (SELECT text FROM labels WHERE id = model_id), remote_completed_at - remote_created_at FROM tasks \
         WHERE id >= ?1 AND remote_completed_at IS NOT NULL AND remote_created_at IS NOT NULL",
    )?;
    let mut times = RenderTimes::new();
    for row in stmt.query_map([first], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
        let (model, secs) = row?;
        times.entry(model).or_default().push(secs.max(0) as f64);
    }
    Ok((rows, times))
}

/// Tasks alike for the daily budget: same model, profile, service, state and whether the
/// service finished rendering them.
#[derive(Debug, Clone, PartialEq)]
pub struct SpendRow {
    pub model: String,
    pub profile: Option<String>,
    pub base_url: String,
    pub state: LocalState,
    /// The service finished rendering them (`remote_completed_at` is known).
    pub rendered: bool,
    pub tasks: u64,
    /// Their billed seconds where known: recorded when they were journaled, so tasks still in
    /// flight count at what they will be billed.
    pub billed_seconds: f64,
    /// Those whose billed seconds are not known (a reference video of unstated length).
    pub unknown_billed: u64,
}

/// The tasks created since `since` (Unix ms), grouped for the daily budget.
pub fn spend_rows(conn: &Connection, since: i64) -> Result<Vec<SpendRow>, StoreError> {
    let first = first_id_since(conn, since)?;
    let mut stmt = conn.prepare_cached(
        "SELECT (SELECT text FROM labels WHERE id = model_id), (SELECT text FROM labels WHERE id = profile_id), \
         (SELECT text FROM labels WHERE id = base_url_id), (SELECT name FROM states WHERE code = state_code), \
         remote_completed_at IS NOT NULL AS rendered, count(*), total(billed_seconds), sum(billed_seconds IS NULL) \
         FROM tasks WHERE id >= ?1 AND imported_from IS NULL GROUP BY model_id, profile_id, base_url_id, state_code, rendered",
    )?;
    let rows = stmt
        .query_map([first], |r| {
            let state: String = r.get(3)?;
            Ok(SpendRow {
                model: r.get(0)?,
                profile: r.get(1)?,
                base_url: r.get(2)?,
                state: state
                    .parse()
                    .map_err(|e: super::state::UnknownState| tasks::bad_column(3, std::io::Error::other(e)))?,
                rendered: r.get(4)?,
                tasks: r.get::<_, i64>(5)? as u64,
                billed_seconds: r.get(6)?,
                unknown_billed: r.get::<_, i64>(7)? as u64,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Every task, oldest first, in batches (for export).
pub fn all(conn: &Connection, mut each: impl FnMut(TaskRecord) -> Result<(), StoreError>) -> Result<(), StoreError> {
    let sql = format!("SELECT {} FROM tasks t ORDER BY t.id", tasks::COLUMNS);
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        each(tasks::from_row(row)?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::record;

    #[test]
    fn a_query_admits_what_its_sql_finds() {
        let mut t = record(7, LocalState::Queued);
        t.prompt = "A red Fox, jumping".into();
        t.negative_prompt = Some("blurry".into());
        t.created_at = 1_000;
        t.review = crate::Review { rating: Some(4), picked: true, tags: vec!["keeper".into(), "night".into()] };
        let q = |text: &str| HistoryQuery { text: text.into(), ..HistoryQuery::default() };
        let cases = [
            (q(""), true),
            (q("fox"), true),
            (q("red fo"), true),
            (q("FOX jump"), true),
            (q("blur"), true),
            (q("ox"), false),
            (q("red cat"), false),
            (HistoryQuery { model: Some(t.model.clone()), ..q("") }, true),
            (HistoryQuery { model: Some("other".into()), ..q("") }, false),
            (HistoryQuery { states: vec![LocalState::Downloaded], ..q("") }, false),
            (HistoryQuery { states: vec![LocalState::Queued, LocalState::Failed], ..q("") }, true),
            (HistoryQuery { since: Some(1_000), ..q("") }, true),
            (HistoryQuery { since: Some(1_001), ..q("") }, false),
            (HistoryQuery { until: Some(1_000), ..q("") }, false),
            // Review: this task is rated 4, picked and tagged keeper and night.
            (q("rating:4"), true),
            (q("rating:>=4"), true),
            (q("rating:>4"), false),
            (q("rating:<3"), false),
            (q("rating:<=4 rating:>=4"), true),
            (q("tag:keeper"), true),
            (q("tag:KEEPER tag:night"), true),
            (q("tag:kee"), false),
            (q("tag:keeper tag:day"), false),
            (q("picked"), true),
            (q("fox picked rating:>=4 tag:keeper"), true),
            (q("cat picked"), false),
            (q("rating:high"), false),
        ];
        for (query, want) in cases {
            assert_eq!(query.admits(&t), want, "{query:?}");
        }
        let plain = record(8, LocalState::Queued);
        for text in ["rating:>=1", "rating:<6", "picked", "tag:keeper"] {
            assert!(!q(text).admits(&plain), "{text}: a task without a review");
        }
        assert!(q("red").admits(&plain));
    }

    #[test]
    fn a_search_splits_words_from_terms_about_ratings_picks_and_tags() {
        let s = |words: &str, rating: Option<(u8, u8)>, tags: &[&str], picked: bool| Search {
            words: words.into(),
            rating,
            tags: tags.iter().map(|t| t.to_string()).collect(),
            picked,
        };
        let cases = [
            ("red fox", s("red fox", None, &[], false)),
            ("rating:5", s("", Some((5, 5)), &[], false)),
            ("rating:=3", s("", Some((3, 3)), &[], false)),
            ("rating:>=4 fox", s("fox", Some((4, 255)), &[], false)),
            ("rating:>4", s("", Some((5, 255)), &[], false)),
            ("rating:<3", s("", Some((0, 2)), &[], false)),
            ("rating:<=3", s("", Some((0, 3)), &[], false)),
            ("rating:<0", s("", Some((1, 0)), &[], false)),
            ("rating:>=2 rating:<4", s("", Some((2, 3)), &[], false)),
            ("Rating:>=4", s("", Some((4, 255)), &[], false)),
            ("tag:Keeper fox tag:keeper", s("fox", None, &["keeper"], false)),
            ("PICKED owl", s("owl", None, &[], true)),
            ("picked-ish", s("picked-ish", None, &[], false)),
            ("rating:high", s("rating:high", None, &[], false)),
            ("rating:>>4", s("rating:>>4", None, &[], false)),
            ("rating:", s("rating:", None, &[], false)),
            ("tag:", s("tag:", None, &[], false)),
            ("  fox   picked  ", s("fox", None, &[], true)),
        ];
        for (text, want) in cases {
            assert_eq!(Search::parse(text), want, "{text:?}");
        }
    }

    #[test]
    fn a_filter_that_filters_nothing_is_named() {
        let cases: [(&str, &[&str]); 7] = [
            ("fox rating:>=4 tag:keeper picked", &[]),
            ("rating:abc", &["`rating:abc` is not a rating filter"]),
            ("rating:", &["`rating:` is not a rating filter"]),
            ("rating:>=6", &["`rating:>=6` admits no rating: ratings are 1 to 5"]),
            ("rating:<1 fox", &["`rating:<1` admits no rating"]),
            ("Rating:0", &["`Rating:0` admits no rating"]),
            ("tag: rating:9", &["`tag:`", "`rating:9` admits no rating"]),
        ];
        for (text, want) in cases {
            let got = problems(text);
            assert_eq!(got.len(), want.len(), "{text:?}: {got:?}");
            for (g, w) in got.iter().zip(want) {
                assert!(g.starts_with(w), "{text:?}: {g:?} should start with {w:?}");
            }
        }
    }
}
