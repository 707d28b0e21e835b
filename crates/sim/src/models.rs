//! `GET /v1/models`: the simulator's catalog in OpenAI's list shape, as new-api and OpenAI
//! answer it. A simulator that takes OpenAI's body (`--takes openai`) answers as OpenAI's own
//! API does, with its `openai-version` header, so that `reel doctor` can be tested on it.

use hyper::StatusCode;
use hyper::header::HeaderName;
use serde_json::{Value, json};

use super::reply::Reply;
use super::state::State;
use reel_api::BodyForm;

/// The version header OpenAI's API sends on every answer.
const OPENAI_VERSION: &str = "2020-10-01";

pub fn list(state: &State) -> Reply {
    let openai = state.config.takes.form == BodyForm::Openai;
    let owner = if openai { "openai" } else { "reel-sim" };
    let data: Vec<Value> = state
        .config
        .catalog
        .entries()
        .iter()
        .map(|e| json!({ "id": e.id, "object": "model", "created": 0, "owned_by": owner }))
        .collect();
    let reply = Reply::json(StatusCode::OK, &json!({ "object": "list", "data": data }));
    if openai { reply.with(HeaderName::from_static("openai-version"), OPENAI_VERSION) } else { reply }
}
