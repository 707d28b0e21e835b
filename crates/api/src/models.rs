//! `GET /v1/models`: the models a service lists. new-api, OpenAI and most gateways answer in
//! OpenAI's list shape (`{"object": "list", "data": [{"id", "object": "model", "owned_by"}]}`);
//! it is read tolerantly, and bounded: ids reel could not send are left out and counted.

use reqwest::header::{ACCEPT, AUTHORIZATION};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::{Client, MAX_ANSWER_BYTES, map_transport, read_capped, retry_after_of};
use super::error::{ApiError, Endpoint, error_for_status};
use reel_rules::ModelName;

/// Most models kept from one list; gateways list a few hundred at most.
pub const MAX_LISTED: usize = 2000;
/// Longest `owned_by` kept.
const MAX_OWNER: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedModel {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owned_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ModelList {
    pub models: Vec<ListedModel>,
    /// Entries left out: ids reel cannot send (empty, too long, control characters) or past
    /// [`MAX_LISTED`].
    #[serde(default)]
    pub left_out: usize,
}

impl ModelList {
    pub fn lists(&self, id: &str) -> bool {
        self.models.iter().any(|m| m.id == id)
    }
}

/// The models of a list answer: `data` (OpenAI's), `models`, or a bare array; each an object
/// with an `id` (or a `name`) or a plain string. `None` when the answer is no list.
pub fn read_list(body: &Value) -> Option<ModelList> {
    let items = match body {
        Value::Array(a) => a,
        Value::Object(o) => o.get("data").or_else(|| o.get("models")).and_then(Value::as_array)?,
        _ => return None,
    };
    let mut out = ModelList::default();
    for item in items {
        let (id, owner) = match item {
            Value::String(s) => (Some(s.as_str()), None),
            Value::Object(o) => (
                o.get("id").or_else(|| o.get("name")).and_then(Value::as_str),
                o.get("owned_by").and_then(Value::as_str),
            ),
            _ => (None, None),
        };
        let usable = id.filter(|id| ModelName::new(id).is_ok());
        match usable {
            Some(id) if out.models.len() < MAX_LISTED && !out.lists(id) => out.models.push(ListedModel {
                id: id.to_string(),
                owned_by: owner.map(|o| reel_rules::text::one_line(o).chars().take(MAX_OWNER).collect()),
            }),
            Some(id) if out.lists(id) => {}
            _ => out.left_out += 1,
        }
    }
    Some(out)
}

impl Client {
    /// `GET {base}/v1/models` with the key, with the API's timeouts and size cap.
    pub async fn list_models(&self) -> Result<ModelList, ApiError> {
        let url = self
            .base
            .join("v1/models")
            .map_err(|e| ApiError::BadUrl { url: self.base.to_string(), reason: e.to_string() })?;
        let timeout = self.options.request_timeout;
        let response = self
            .http
            .get(url.clone())
            .header(AUTHORIZATION, self.auth())
            .header(ACCEPT, "application/json")
            .timeout(timeout)
            .send()
            .await
            .map_err(|e| map_transport(e, &url, timeout))?;
        let status = response.status().as_u16();
        let retry_after = retry_after_of(response.headers(), self.options.max_retry_after);
        tracing::info!(method = "GET", path = url.path(), status, "http");
        let body = read_capped(response, MAX_ANSWER_BYTES, &url, timeout).await?;
        if !(200..300).contains(&status) {
            return Err(error_for_status(Endpoint::Api, status, retry_after, &body));
        }
        let undecodable = |problem: &str| ApiError::Undecodable {
            status,
            problem: problem.to_string(),
            snippet: reel_rules::text::one_line(&String::from_utf8_lossy(&body[..body.len().min(200)])),
        };
        let value: Value = serde_json::from_slice(&body).map_err(|e| undecodable(&e.to_string()))?;
        // Made safe where it comes in, as every string a server sends.
        let value = reel_rules::text::safe_value(value);
        read_list(&value).ok_or_else(|| undecodable("it is not a list of models"))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn lists_of_every_shape_read_tolerantly() {
        let ids =
            |v: Value| read_list(&v).map(|l| (l.models.into_iter().map(|m| m.id).collect::<Vec<_>>(), l.left_out));
        let cases = [
            (
                json!({"object": "list", "data": [
                    {"id": "sora-2", "object": "model", "owned_by": "openai"},
                    {"id": "wan2.5-t2v-preview", "object": "model", "supported_endpoint_types": ["openai-video"]}
                ]}),
                Some((vec!["sora-2", "wan2.5-t2v-preview"], 0)),
            ),
            (json!({"models": [{"name": "kling-v2-1"}]}), Some((vec!["kling-v2-1"], 0))),
            (
                json!(["veo-3.0-generate-preview", "sora-2", "sora-2"]),
                Some((vec!["veo-3.0-generate-preview", "sora-2"], 0)),
            ),
            (json!({"data": [{"id": "a\u{1b}[2J"}, {"id": ""}, {"id": 3}, 7, {"id": "ok"}]}), Some((vec!["ok"], 4))),
            (json!({"data": {}}), None),
            (json!({"error": {"message": "no"}}), None),
            (json!("sora-2"), None),
        ];
        for (body, want) in cases {
            let want = want.map(|(ids, n)| (ids.into_iter().map(String::from).collect::<Vec<_>>(), n));
            assert_eq!(ids(body.clone()), want, "{body}");
        }
    }

    #[test]
    fn lists_are_bounded() {
        let many: Vec<Value> = (0..MAX_LISTED + 5).map(|i| json!({"id": format!("m{i}")})).collect();
        let list = read_list(&json!({ "data": many })).expect("a list");
        assert_eq!((list.models.len(), list.left_out), (MAX_LISTED, 5));
        let owner = "o\u{7}".repeat(100);
        let list = read_list(&json!({"data": [{"id": "x", "owned_by": owner}]})).expect("a list");
        let kept = list.models[0].owned_by.as_deref().expect("owner");
        assert!(kept.chars().count() <= MAX_OWNER && !kept.contains('\u{7}'), "{kept:?}");
    }
}
