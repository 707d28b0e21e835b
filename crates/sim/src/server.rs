//! The simulator's HTTP server: connections, the fault and hostile layers every request passes,
//! and dispatch to the endpoints (api, files, media).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant, UNIX_EPOCH};

use hyper::body::Incoming;
use hyper::header;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};

use super::faults::{Fault, Route};
use super::hostile::Hostile;
use super::raw::{self, RawReply, RawSlot};
use super::reply::{Body, Reply};
use super::routes::{self, Endpoint, query_param, toggle_hop};
use super::state::{Origin, RequestRecord, State, unix_now};
use super::{api, files, media, models, openai};

pub async fn serve(listener: TcpListener, state: Arc<State>, origin: Origin, mut shutdown: watch::Receiver<bool>) {
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    tokio::spawn(connection(stream, state.clone(), origin, shutdown.clone()));
                }
            }
            _ = shutdown.changed() => break,
        }
    }
}

/// What the handlers of one connection share with it.
struct Conn {
    state: Arc<State>,
    origin: Origin,
    /// A handler that must take the connection away from hyper notifies this.
    kill: Notify,
    /// The raw answer to write once the connection is taken over, if any.
    raw: RawSlot,
}

/// One connection. To drop it without an answer, a handler notifies `kill`; to answer with raw
/// bytes, it also leaves them in `raw`, and the socket is taken back from hyper to write them.
async fn connection(stream: TcpStream, state: Arc<State>, origin: Origin, mut shutdown: watch::Receiver<bool>) {
    let conn = Arc::new(Conn { state, origin, kill: Notify::new(), raw: RawSlot::default() });
    let shared = conn.clone();
    let service = service_fn(move |req| {
        let conn = shared.clone();
        async move { Ok::<_, Infallible>(handle(&conn, req).await) }
    });
    let mut http = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        _ = &mut http => return,
        _ = conn.kill.notified() => {}
        _ = shutdown.changed() => return,
    }
    if let Some(reply) = conn.raw.take() {
        raw::write(http.into_parts().io.into_inner(), reply, shutdown).await;
    }
}

/// A handler's decision: the reply, the task it concerns, and the fault or hostility applied.
struct Answer {
    reply: Reply,
    task_id: Option<String>,
    label: Option<&'static str>,
}

impl Answer {
    fn plain(reply: Reply) -> Answer {
        Answer { reply, task_id: None, label: None }
    }

    fn labelled(reply: Reply, label: &'static str) -> Answer {
        Answer { reply, task_id: None, label: Some(label) }
    }
}

/// The last second an HTTP date can name (9999-12-31 23:59:59 UTC).
const LAST_HTTP_DATE: f64 = 253_402_300_799.0;

/// The `Retry-After` value for a wait of `after`: seconds, or an HTTP date that far ahead (at
/// most the year 9999's last second, which some gateways send for "not before maintenance ends").
pub fn retry_after(after: Duration, http_date: bool) -> String {
    let seconds = after.as_secs_f64().ceil();
    if http_date {
        let at = UNIX_EPOCH + Duration::from_secs((unix_now() + seconds).ceil().min(LAST_HTTP_DATE) as u64);
        httpdate::fmt_http_date(at)
    } else {
        seconds.to_string()
    }
}

fn rate_limited(state: &State, after: Duration, http_date: bool) -> Reply {
    match state.config.answers {
        // new-api's model rate limit says so in its error shape, with no Retry-After.
        super::Answers::Gateway(_) => super::gateway::openai_error(
            StatusCode::TOO_MANY_REQUESTS,
            "You have reached the request limit for this model; try again later",
        ),
        super::Answers::Spec | super::Answers::OpenAi(_) => {
            Reply::error(StatusCode::TOO_MANY_REQUESTS, "rate_limited", "too many requests")
                .with(header::RETRY_AFTER, &retry_after(after, http_date))
        }
    }
}

fn malformed(task_id: Option<&str>) -> Reply {
    let body = format!("{{\"id\": \"{}\", \"status\": \"que", task_id.unwrap_or("task"));
    Reply::new(StatusCode::OK, body).with(header::CONTENT_TYPE, "application/json")
}

/// A hostile redirect of an API request, if one is due: `(Location, label)`.
fn api_redirect(state: &State, hostile: &Hostile, req: &Request<Incoming>) -> Option<(String, &'static str)> {
    let (path, query) = (req.uri().path(), req.uri().query().unwrap_or(""));
    if state.fires("api_redirect_origin", hostile.api_redirect_origin) {
        let tail = req.uri().path_and_query().map_or(path, |pq| pq.as_str()).trim_start_matches('/');
        Some((format!("{}{tail}", state.other_base_url), "api_redirect_origin"))
    } else if state.fires("api_redirect_same", hostile.api_redirect_same) {
        Some((format!("{path}?{}", toggle_hop(query)), "api_redirect_same"))
    } else {
        None
    }
}

async fn answer(conn: &Conn, req: Request<Incoming>, ep: Endpoint, fault: Option<Fault>) -> Answer {
    let state = &conn.state;
    let hostile = state.hostile();
    let http_date = hostile.retry_after_date;
    let faultable = ep.is_api() || matches!(ep, Endpoint::File { .. } | Endpoint::Content(_));
    if let Some(left) = state.storm_left().filter(|_| faultable) {
        return Answer::labelled(rate_limited(state, left, http_date), "storm");
    }
    if ep.is_api() && state.fires("unavailable", hostile.unavailable) {
        let r = Reply::error(StatusCode::SERVICE_UNAVAILABLE, "unavailable", "down for maintenance")
            .with(header::RETRY_AFTER, &retry_after(state.faults().retry_after, http_date));
        return Answer::labelled(r, "unavailable");
    }
    match fault {
        Some(Fault::RateLimited(after)) => {
            return Answer::labelled(rate_limited(state, after, http_date), "rate_limit");
        }
        Some(Fault::ServerError(code)) => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let r = Reply::error(status, "server_error", "the service had a problem; try again");
            return Answer::labelled(r, "server_error");
        }
        _ => {}
    }
    let query = req.uri().query().unwrap_or("").to_string();
    let main = conn.origin == Origin::Main;
    let redirectable = ep.is_api() && main && query_param(&query, "hop").is_none();
    if let Some((location, label)) = redirectable.then(|| api_redirect(state, &hostile, &req)).flatten() {
        let status = StatusCode::from_u16(hostile.api_redirect_status)
            .ok()
            .filter(StatusCode::is_redirection)
            .unwrap_or(StatusCode::TEMPORARY_REDIRECT);
        return Answer::labelled(Reply::redirect(status, &location), label);
    }
    match ep {
        Endpoint::Submit | Endpoint::Get(_) | Endpoint::List | Endpoint::Models | Endpoint::Content(_)
            if !api::authorized(state, &req) =>
        {
            Answer::plain(api::unauthorized(state))
        }
        Endpoint::Submit => {
            let (reply, task_id) = api::submit(state, req).await;
            Answer { reply, task_id, label: None }
        }
        Endpoint::Get(id) => {
            let reply = api::get(state, &id);
            let (reply, label) =
                if reply.status.is_success() { api::hostile_delivery(state, &hostile, reply) } else { (reply, None) };
            Answer { reply, task_id: Some(id), label }
        }
        Endpoint::List => Answer::plain(api::list()),
        Endpoint::Models => Answer::plain(models::list(state)),
        Endpoint::Content(id) => {
            let (reply, label) = openai::content(state, &req, &id, fault == Some(Fault::Truncate));
            Answer { reply, task_id: Some(id), label }
        }
        Endpoint::File { id, mirror } => {
            let truncate = fault == Some(Fault::Truncate);
            let (reply, label) = files::serve(state, &hostile, &req, &id, main && !mirror, truncate);
            Answer { reply, task_id: Some(id), label }
        }
        Endpoint::Media(kind) => {
            let range = req.headers().get(header::RANGE).and_then(|v| v.to_str().ok());
            Answer::plain(media::serve(state, &hostile, req.method(), &query, range, kind))
        }
        Endpoint::WrongMethod(allow) => Answer::plain(
            Reply::error(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", "method not allowed")
                .with(header::ALLOW, allow),
        ),
        Endpoint::Unknown => Answer::plain(Reply::error(StatusCode::NOT_FOUND, "not_found", "no such endpoint")),
    }
}

async fn handle(conn: &Conn, req: Request<Incoming>) -> Response<Body> {
    let state = &conn.state;
    let arrived = Instant::now();
    let (method, path) = (req.method().to_string(), req.uri().path().to_string());
    let ep = routes::endpoint(req.method(), &path);
    let route = match ep {
        Endpoint::Submit | Endpoint::Get(_) | Endpoint::List => Some(Route::Api),
        Endpoint::File { .. } | Endpoint::Content(_) => Some(Route::File),
        _ => None,
    };
    let roll = route.map(|r| state.with_rng(|rng| state.faults().roll(r, rng))).unwrap_or_default();
    if let Some(delay) = roll.delay {
        tokio::time::sleep(delay).await;
    }
    let Answer { mut reply, task_id, label } = answer(conn, req, ep, roll.fault).await;
    let applied = match roll.fault {
        // Faults that replaced the answer were recorded by `answer` already.
        Some(Fault::RateLimited(_) | Fault::ServerError(_)) => None,
        Some(Fault::Malformed) if reply.status.is_success() && label.is_none() => {
            reply = malformed(task_id.as_deref());
            roll.fault
        }
        Some(Fault::Malformed) => None,
        other => other,
    };
    let dropped = applied == Some(Fault::Drop);
    state.record(RequestRecord {
        arrived,
        at: Instant::now(),
        method,
        path,
        task_id,
        status: if dropped { 0 } else { reply.status.as_u16() },
        fault: applied.map(Fault::label).or(label),
        origin: conn.origin,
    });
    if dropped || reply.is_raw() {
        if let (false, Some(pace)) = (dropped, reply.raw_pace()) {
            conn.raw.put(RawReply { bytes: reply.raw_bytes(), pace });
        }
        conn.kill.notify_one();
        std::future::pending::<()>().await;
    }
    reply.into_response()
}
