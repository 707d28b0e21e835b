//! `reel mcp`: the engine's work offered to AI agents over the Model Context Protocol, on
//! stdio. The server attaches to the data folder's engine like every other command, so an
//! agent's tasks are journaled, scheduled and budgeted as the user's, and show in the
//! dashboard live. Standard output carries MCP messages only; logs go to the log file.
//!
//! `tools` holds the arguments (schemas, descriptions, the pure step to drafts), `args` how a
//! mistake in them is told, `answer` the results as JSON, `link` the engine connection and
//! waiting, `poster` the preview image. The engine admits what agents send, against the
//! `[agents]` limits of its own config (`engine::admission`).

pub mod answer;
pub mod args;
mod link;
mod poster;
pub mod tools;

use std::time::Duration;

use futures_util::future::BoxFuture;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, Content, Implementation, Meta, ProgressNotificationParam, ServerCapabilities, ServerInfo,
};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::Value;
use thiserror::Error;
use tokio::time::Instant;

use args::Checked;
use link::Link;
use reel_engine::admission::Sender;
use reel_engine::config::Settings;
use reel_engine::reader::Reader;
use reel_engine::session::Reach;
use reel_engine::{DraftPart, Submission, Submitted};
use reel_rules::{UnknownModels, ValidSubmission, validate};
use reel_store::LocalState;
use reel_store::history::HistoryQuery;
use tools::{IdsArgs, NoArgs, PickArgs, RateArgs, ReviewCall, SearchArgs, ShowArgs, SubmissionArgs, TagArgs, WaitArgs};

/// How long `wait` waits when the call gives no timeout.
const DEFAULT_WAIT: Duration = Duration::from_secs(600);

#[derive(Debug, Error)]
pub enum McpError {
    #[error("the MCP connection on stdio failed: {0}")]
    Start(String),
}

/// The MCP server of one data folder.
#[derive(Clone)]
pub struct Server {
    inner: std::sync::Arc<Inner>,
    tool_router: ToolRouter<Server>,
}

struct Inner {
    settings: Settings,
    link: Link,
}

/// A tool error (`isError: true`): the text names the field and the rule, or the limit. Every
/// call that did not do what it asked answers with one; a success is only ever what was asked.
fn refuse(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![Content::text(text.into())])
}

fn answer(value: &Value) -> CallToolResult {
    match serde_json::to_string_pretty(value) {
        Ok(text) => CallToolResult::success(vec![Content::text(text)]),
        Err(e) => refuse(format!("reel could not write its answer as JSON: {e}")),
    }
}

/// The arguments, or the tool error naming the one that is wrong (see `args`).
macro_rules! given {
    ($checked:expr) => {
        match $checked.0 {
            Ok(args) => args,
            Err(e) => return Ok(refuse(e.to_string())),
        }
    };
}

/// The client's name as it said in `initialize`, for the tag its tasks carry.
fn client_name(peer: &Peer<RoleServer>) -> String {
    peer.peer_info().map(|info| info.client_info.name.clone()).unwrap_or_default()
}

#[tool_router]
impl Server {
    pub fn new(settings: Settings, reach: Reach) -> Server {
        let link = Link::new(settings.clone(), reach);
        Server { inner: std::sync::Arc::new(Inner { settings, link }), tool_router: Self::tool_router() }
    }

    fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    /// Where the journal is read (through the engine when it is on another machine).
    async fn reader(&self) -> Result<Reader, String> {
        self.inner.link.reader().await.map_err(|e| format!("cannot reach reel's engine: {e}"))
    }

    /// The drafts validated, or the tool error naming every broken rule.
    fn validated(&self, args: &SubmissionArgs) -> Result<(Vec<ValidSubmission>, u32), CallToolResult> {
        let (drafts, copies) = tools::drafts(args, &self.settings().catalog).map_err(|e| refuse(e.to_string()))?;
        let mut valid = Vec::new();
        let mut failures = Vec::new();
        for draft in &drafts {
            match validate(draft, &self.settings().catalog, UnknownModels::Warn) {
                Ok(v) => valid.push(v),
                Err(invalid) => failures.push((draft, invalid)),
            }
        }
        if failures.is_empty() {
            Ok((valid, copies))
        } else {
            Err(refuse(answer::refused(&failures, drafts.len() > 1)))
        }
    }

    /// Asks the engine to admit the plan as this agent's: the engine decides against its own
    /// limits (the `[agents]` limits and the daily budget of the machine it runs on) in the
    /// step that journals the tasks, so no two agents at once can both pass a limit. With
    /// `dry_run` it only says what it would do.
    async fn admission(
        &self,
        plan: &[ValidSubmission],
        copies: u32,
        peer: &Peer<RoleServer>,
        dry_run: bool,
    ) -> Result<Submitted, String> {
        let live = self.inner.link.engine().await.map_err(|e| format!("cannot reach reel's engine: {e}"))?;
        let parts = plan.iter().map(|v| DraftPart { draft: v.into(), count: copies, parent: None }).collect();
        let submission =
            Submission { parts, sender: Sender::Agent { name: client_name(peer) }, dry_run, ..Submission::default() };
        live.engine.send(submission).await.map_err(|e| e.to_string())
    }

    #[tool(description = "The video models reel can send to, each with its rules: the seconds range (and whether -1, \
                       automatic, is allowed), resolutions, aspect ratios, the media types its mode takes, and its \
                       price per billed second when the user priced it.")]
    async fn models(&self, Parameters(args): Parameters<Checked<NoArgs>>) -> Result<CallToolResult, ErrorData> {
        let NoArgs {} = given!(args);
        Ok(answer(&answer::models(&self.settings().catalog, &self.settings().pricing)))
    }

    #[tool(description = "Validate a submission (or a small grid: lists of ratios and of seconds make one task per \
                       combination) with reel's rules and quote it: tasks, billed seconds and cost. Sends nothing. \
                       Says too whether reel's engine would let `submit` send it now (the [agents] limits and \
                       the daily budget, as the engine counts them): a plan it would refuse is still quoted (not a \
                       tool error) with submit_allowed_now false and submit_refused_because. Wrong arguments and \
                       broken rules are tool errors naming the field.")]
    async fn check(
        &self,
        Parameters(args): Parameters<Checked<SubmissionArgs>>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = given!(args);
        let (valid, copies) = match self.validated(&args) {
            Ok(v) => v,
            Err(refused) => return Ok(refused),
        };
        let mut out = answer::quoted(&valid, copies, &self.settings().pricing);
        let allowed = self.admission(&valid, copies, &peer, true).await;
        out["submit_allowed_now"] = Value::Bool(allowed.is_ok());
        if let Err(why) = allowed {
            out["submit_refused_because"] = Value::String(why);
        }
        Ok(answer(&out))
    }

    #[tool(
        description = "Send a submission (or a small grid, as `check` takes it) to the video service through reel's \
                       engine: journaled before anything is sent, shown in the user's dashboard. Returns the local \
                       task ids; follow them with `status` or `wait`. Refused unless the user allowed agents to send \
                       ([agents] submit = true), and past the user's limits on tasks per call, tasks per day and \
                       spending per day."
    )]
    async fn submit(
        &self,
        Parameters(args): Parameters<Checked<SubmissionArgs>>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = given!(args);
        let (valid, copies) = match self.validated(&args) {
            Ok(v) => v,
            Err(refused) => return Ok(refused),
        };
        let records = match self.admission(&valid, copies, &peer, false).await {
            Ok(submitted) => submitted.tasks,
            Err(why) => return Ok(refuse(why)),
        };
        Ok(answer(&answer::tasks(&records)))
    }

    #[tool(description = "The tasks as they stand now: state, progress, file, error. Takes one id or a list.")]
    async fn status(&self, Parameters(args): Parameters<Checked<IdsArgs>>) -> Result<CallToolResult, ErrorData> {
        let args = given!(args);
        let ids = match tools::ids(&args.ids) {
            Ok(ids) => ids,
            Err(e) => return Ok(refuse(e.to_string())),
        };
        let reader = match self.reader().await {
            Ok(r) => r,
            Err(e) => return Ok(refuse(e)),
        };
        let mut records = Vec::new();
        for id in ids {
            match reader.show(id).await {
                Ok((t, _)) => records.push(t),
                Err(e) => return Ok(refuse(format!("ids: {e}"))),
            }
        }
        Ok(answer(&answer::tasks(&records)))
    }

    #[tool(description = "Wait until every given task has ended (saved, failed, rejected, …) or the timeout passes \
                       (default 600 s; the tasks go on either way). Sends progress notifications (tasks ended / \
                       total, and their states) when the call carries a progress token. Survives a restart of \
                       reel's engine: the tasks are read again from its journal.")]
    async fn wait(
        &self,
        Parameters(args): Parameters<Checked<WaitArgs>>,
        meta: Meta,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = given!(args);
        let ids = match tools::ids(&args.ids) {
            Ok(ids) => ids,
            Err(e) => return Ok(refuse(e.to_string())),
        };
        // Every argument is checked before anything is asked of the engine.
        let limit = match args.timeout_secs {
            None => DEFAULT_WAIT,
            Some(s) if s.is_finite() && s > 0.0 => Duration::from_secs_f64(s.min(86_400.0)),
            Some(s) => return Ok(refuse(format!("timeout_secs: {s} is not a number of seconds above 0"))),
        };
        let reader = match self.reader().await {
            Ok(r) => r,
            Err(e) => return Ok(refuse(e)),
        };
        let mut stalled = Vec::new();
        for id in &ids {
            match reader.show(*id).await {
                Ok((t, _)) if t.state == LocalState::Stalled => stalled.push(t.id),
                Ok(_) => {}
                Err(e) => return Ok(refuse(format!("ids: {e}"))),
            }
        }
        // A stalled task may have finished on the service since: asked again now, as `reel
        // wait` does, not in a minute.
        if let (false, Ok(live)) = (stalled.is_empty(), self.inner.link.engine().await) {
            for id in stalled {
                if let Err(e) = live.engine.recheck(id).await {
                    tracing::info!(id, error = %e, "mcp wait: cannot check a stalled task again");
                }
            }
        }
        let token = meta.get_progress_token();
        let total = ids.len() as f64;
        let seen = |records: &[reel_store::TaskRecord]| -> BoxFuture<'static, ()> {
            let Some(token) = token.clone() else { return Box::pin(async {}) };
            let settled = records.iter().filter(|r| r.state.is_settled()).count() as f64;
            let note =
                ProgressNotificationParam::new(token, settled).with_total(total).with_message(answer::states(records));
            let peer = peer.clone();
            Box::pin(async move {
                if let Err(e) = peer.notify_progress(note).await {
                    tracing::debug!(error = %e, "mcp: a progress notification was not delivered");
                }
            })
        };
        match self.inner.link.wait(&ids, Instant::now() + limit, seen).await {
            Ok((records, all)) => {
                let mut out = answer::tasks(&records);
                out["all_ended"] = Value::Bool(all);
                if !all {
                    out["note"] = Value::String(format!(
                        "not every task has ended after {} s; they go on in reel's engine (wait again to follow them)",
                        limit.as_secs_f64()
                    ));
                }
                Ok(answer(&out))
            }
            Err(e) => Ok(refuse(e.to_string())),
        }
    }

    #[tool(
        description = "Search the history of tasks, newest first, with the dashboard's search words: words matched \
                       by prefix against prompts, and rating:>=4 (also rating:5, rating:<3), tag:NAME, picked; \
                       optionally one model and one state. An agent's tasks carry the tag agent-CLIENTNAME."
    )]
    async fn search(&self, Parameters(args): Parameters<Checked<SearchArgs>>) -> Result<CallToolResult, ErrorData> {
        let args = given!(args);
        let state = match args.state.as_deref().map(str::parse::<LocalState>).transpose() {
            Ok(s) => s,
            Err(e) => return Ok(refuse(format!("state: {e}"))),
        };
        let limit = match tools::search_limit(args.limit) {
            Ok(n) => n,
            Err(e) => return Ok(refuse(e.to_string())),
        };
        let q = HistoryQuery { text: args.query.clone(), model: args.model.clone(), state, ..HistoryQuery::default() };
        let reader = match self.reader().await {
            Ok(r) => r,
            Err(e) => return Ok(refuse(e)),
        };
        match reader.history(&q, None, limit).await {
            Ok(rows) => Ok(answer(&serde_json::json!({ "tasks": reel_engine::public::rows(&rows) }))),
            Err(e) => Ok(refuse(e.to_string())),
        }
    }

    #[tool(description = "One task in full: its parameters, timeline, billed seconds, the saved file's path, and its \
                       poster frame as an image when the video is saved (made with ffmpeg when needed).")]
    async fn show(&self, Parameters(args): Parameters<Checked<ShowArgs>>) -> Result<CallToolResult, ErrorData> {
        let args = given!(args);
        let reader = match self.reader().await {
            Ok(r) => r,
            Err(e) => return Ok(refuse(e)),
        };
        let (task, events) = match reader.show(args.id).await {
            Ok(found) => found,
            Err(e) => return Ok(refuse(format!("id: {e}"))),
        };
        let image = poster::of(self.settings(), &task, reader.far_engine()).await;
        let present = match reader.files_present(vec![task.id]).await {
            Ok(found) => found.first().map(|(_, here)| *here),
            Err(e) => return Ok(refuse(format!("cannot look for the file of task {}: {e}", task.id))),
        };
        let preview = image.as_ref().map(|p| p.path.as_str()).map_err(Clone::clone);
        let shown = answer::shown(&task, &events, present, preview);
        let mut result = answer(&shown);
        if let Ok(p) = image {
            result.content.push(Content::image(p.base64, "image/jpeg"));
        }
        Ok(result)
    }

    /// A change of a task's review, through the engine (every dashboard shows it).
    async fn review(&self, id: i64, call: ReviewCall) -> Result<CallToolResult, ErrorData> {
        let change = match tools::review_change(call) {
            Ok(c) => c,
            Err(e) => return Ok(refuse(e.to_string())),
        };
        let reader = match self.reader().await {
            Ok(r) => r,
            Err(e) => return Ok(refuse(e)),
        };
        if let Err(e) = reader.show(id).await {
            return Ok(refuse(format!("id: {e}")));
        }
        let live = match self.inner.link.engine().await {
            Ok(live) => live,
            Err(e) => return Ok(refuse(format!("cannot reach reel's engine: {e}"))),
        };
        match live.engine.review(id, change).await {
            Ok(task) => Ok(answer(&answer::tasks(std::slice::from_ref(&task)))),
            Err(e) => Ok(refuse(e.to_string())),
        }
    }

    #[tool(description = "Rate a task 1 to 5 (0 removes its rating), as the user does in the dashboard.")]
    async fn rate(&self, Parameters(args): Parameters<Checked<RateArgs>>) -> Result<CallToolResult, ErrorData> {
        let args = given!(args);
        self.review(args.id, ReviewCall::Rate(args.rating)).await
    }

    #[tool(
        description = "Add tags to a task (or remove them with remove = true): short single words, found later with \
                       `search` and the word tag:NAME."
    )]
    async fn tag(&self, Parameters(args): Parameters<Checked<TagArgs>>) -> Result<CallToolResult, ErrorData> {
        let args = given!(args);
        self.review(args.id, ReviewCall::Tag { tags: args.tags, remove: args.remove }).await
    }

    #[tool(description = "Pick a task as the winner of its batch or comparison (picked = false unpicks it).")]
    async fn pick(&self, Parameters(args): Parameters<Checked<PickArgs>>) -> Result<CallToolResult, ErrorData> {
        let args = given!(args);
        self.review(args.id, ReviewCall::Pick(args.picked.unwrap_or(true))).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("reel", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "reel sends video-generation tasks through the user's engine, journaled and budgeted, and shows them \
                 in the user's dashboard. Start with `models`, then `check` a submission; `submit` works only when the \
                 user allowed agents to send ([agents] submit = true). Follow tasks with `status` or `wait`; find past \
                 ones with `search`, look at one with `show`. A call that does not do what it asks is a tool error \
                 (isError) whose text names the argument and its rule, or the limit; only `check` tells of a \
                 refusal, the one `submit` would meet, inside its quote.",
            )
    }
}

/// Serves MCP on stdin and stdout until the client closes the connection.
///
/// Boxed, so that the server's code is compiled in this crate and not in the one that awaits
/// it (an `async fn`'s body is compiled where it is awaited).
#[inline(never)]
pub fn serve(settings: Settings, reach: Reach) -> BoxFuture<'static, Result<(), McpError>> {
    Box::pin(serve_stdio(settings, reach))
}

async fn serve_stdio(settings: Settings, reach: Reach) -> Result<(), McpError> {
    let server = Server::new(settings, reach);
    let running = server.serve(rmcp::transport::stdio()).await.map_err(|e| McpError::Start(e.to_string()))?;
    running.waiting().await.map_err(|e| McpError::Start(e.to_string()))?;
    Ok(())
}
