//! `reel mcp`: the engine's work offered to AI agents over the Model Context Protocol, on
//! stdio. The server attaches to the data folder's engine like every other command, so an
//! agent's tasks are journaled, scheduled and budgeted as the user's, and show in the
//! dashboard live. Standard output carries MCP messages only; logs go to the log file.
//!
//! `tools` holds the arguments (schemas, descriptions, the pure step to drafts), `limits` the
//! `[agents]` rules, `answer` the results as JSON, `link` the engine connection and waiting,
//! `today` what agents have sent today, `poster` the preview image.

pub mod answer;
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

use crate::config::Settings;
use crate::engine::admission::Sender;
use crate::engine::reader::Reader;
use crate::engine::{DraftPart, Submission, Submitted};
use crate::rules::{UnknownModels, ValidSubmission, validate};
use crate::session::Reach;
use crate::store::LocalState;
use crate::store::history::HistoryQuery;
use link::Link;
use tools::{IdsArgs, PickArgs, RateArgs, ReviewCall, SearchArgs, ShowArgs, SubmissionArgs, TagArgs, WaitArgs};

/// How long `wait` waits when the call gives no timeout.
const DEFAULT_WAIT: Duration = Duration::from_secs(600);
/// Search results when the call does not say, and the most it may ask for.
const SEARCH_DEFAULT: usize = 20;
const SEARCH_MAX: usize = 200;

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

/// A tool error (`isError`): the text names the field and the rule, or the limit.
fn refuse(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![Content::text(text.into())])
}

fn answer(value: &Value) -> CallToolResult {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    CallToolResult::success(vec![Content::text(text)])
}

/// The ids a call names, each once, in order.
fn unique(ids: &tools::OneOrMany<i64>) -> Vec<i64> {
    let all = match ids {
        tools::OneOrMany::One(id) => vec![*id],
        tools::OneOrMany::Many(ids) => ids.clone(),
    };
    let mut out = Vec::new();
    for id in all {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
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
    async fn models(&self) -> Result<CallToolResult, ErrorData> {
        Ok(answer(&answer::models(&self.settings().catalog, &self.settings().pricing)))
    }

    #[tool(description = "Validate a submission (or a small grid: lists of ratios and of seconds make one task per \
                       combination) with reel's rules and quote it: tasks, billed seconds and cost. Sends nothing. \
                       Says too whether the user's [agents] limits would let `submit` send it now.")]
    async fn check(
        &self,
        Parameters(args): Parameters<SubmissionArgs>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
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
        Parameters(args): Parameters<SubmissionArgs>,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
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
    async fn status(&self, Parameters(args): Parameters<IdsArgs>) -> Result<CallToolResult, ErrorData> {
        let reader = match self.reader().await {
            Ok(r) => r,
            Err(e) => return Ok(refuse(e)),
        };
        let mut records = Vec::new();
        for id in unique(&args.ids) {
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
        Parameters(args): Parameters<WaitArgs>,
        meta: Meta,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let ids = unique(&args.ids);
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
        let limit = match args.timeout_secs {
            None => DEFAULT_WAIT,
            Some(s) if s.is_finite() && s > 0.0 => Duration::from_secs_f64(s.min(86_400.0)),
            Some(s) => return Ok(refuse(format!("timeout_secs: {s} is not a number of seconds above 0"))),
        };
        let token = meta.get_progress_token();
        let total = ids.len() as f64;
        let seen = |records: &[crate::store::TaskRecord]| -> BoxFuture<'static, ()> {
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
    async fn search(&self, Parameters(args): Parameters<SearchArgs>) -> Result<CallToolResult, ErrorData> {
        let state = match args.state.as_deref().map(str::parse::<LocalState>).transpose() {
            Ok(s) => s,
            Err(e) => return Ok(refuse(format!("state: {e}"))),
        };
        let limit = args.limit.unwrap_or(SEARCH_DEFAULT).clamp(1, SEARCH_MAX);
        let q = HistoryQuery { text: args.query.clone(), model: args.model.clone(), state, ..HistoryQuery::default() };
        let reader = match self.reader().await {
            Ok(r) => r,
            Err(e) => return Ok(refuse(e)),
        };
        match reader.history(&q, None, limit).await {
            Ok(rows) => Ok(answer(&serde_json::json!({ "tasks": crate::public::rows(&rows) }))),
            Err(e) => Ok(refuse(e.to_string())),
        }
    }

    #[tool(description = "One task in full: its parameters, timeline, billed seconds, the saved file's path, and its \
                       poster frame as an image when the video is saved (made with ffmpeg when needed).")]
    async fn show(&self, Parameters(args): Parameters<ShowArgs>) -> Result<CallToolResult, ErrorData> {
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
    async fn rate(&self, Parameters(args): Parameters<RateArgs>) -> Result<CallToolResult, ErrorData> {
        self.review(args.id, ReviewCall::Rate(args.rating)).await
    }

    #[tool(
        description = "Add tags to a task (or remove them with remove = true): short single words, found later with \
                       `search` and the word tag:NAME."
    )]
    async fn tag(&self, Parameters(args): Parameters<TagArgs>) -> Result<CallToolResult, ErrorData> {
        self.review(args.id, ReviewCall::Tag { tags: args.tags, remove: args.remove }).await
    }

    #[tool(description = "Pick a task as the winner of its batch or comparison (picked = false unpicks it).")]
    async fn pick(&self, Parameters(args): Parameters<PickArgs>) -> Result<CallToolResult, ErrorData> {
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
                 ones with `search`, look at one with `show`.",
            )
    }
}

/// Serves MCP on stdin and stdout until the client closes the connection.
pub async fn serve(settings: Settings, reach: Reach) -> Result<(), McpError> {
    let server = Server::new(settings, reach);
    let running = server.serve(rmcp::transport::stdio()).await.map_err(|e| McpError::Start(e.to_string()))?;
    running.waiting().await.map_err(|e| McpError::Start(e.to_string()))?;
    Ok(())
}
