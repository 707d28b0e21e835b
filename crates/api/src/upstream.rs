//! The vendor's words inside a gateway's: gateways (new-api, LiteLLM behind it) wrap the
//! upstream's error as text in their own message (`BadRequestError: OpenAIException -
//! {"error": {"message": "Invalid value: '5'. …"}}`); the readable sentence is the innermost
//! message. The body itself is kept as it came.

use serde_json::Value;

/// How deep wrapped messages are followed: a gateway in front of a gateway, and no further.
const MAX_DEPTH: usize = 4;

/// The innermost message of a wrapped upstream error, or the text as it is when it wraps none.
pub fn innermost(text: &str) -> String {
    let mut current = text.trim().to_string();
    for _ in 0..MAX_DEPTH {
        match wrapped_message(&current) {
            Some(inner) if !inner.trim().is_empty() && inner != current => current = inner.trim().to_string(),
            _ => break,
        }
    }
    current
}

/// The message of the JSON a text carries after its own words: the whole object when it
/// parses, else the first `"message": "…"` string in it (a gateway may cut the object short).
fn wrapped_message(text: &str) -> Option<String> {
    let start = text.find('{')?;
    let tail = &text[start..];
    if let Some(end) = tail.rfind('}')
        && let Ok(value) = serde_json::from_str::<Value>(&tail[..=end])
    {
        return said_in(&value);
    }
    let key = tail.find("\"message\"")?;
    let after = tail[key + "\"message\"".len()..].trim_start().strip_prefix(':')?.trim_start();
    serde_json::Deserializer::from_str(after).into_iter::<String>().next()?.ok()
}

/// The message of an error body as it stands, wrapped or not.
pub(super) fn said_in(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Object(o) => ["message", "msg", "detail", "error_description", "error", "errors", "code"]
            .iter()
            .find_map(|k| o.get(*k).and_then(said_in)),
        Value::Array(items) => items.iter().find_map(said_in),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vendors_words_are_taken_out_of_the_gateways() {
        let sora = r#"BadRequestError: OpenAIException - {"error": {"message": "Invalid value: '5'. Supported values are: '4', '8', and '12'.", "type": "invalid_request_error", "param": "seconds", "code": "invalid_value"}}"#;
        let cut_short = r#"OpenAIException - {"error": {"message": "Invalid value: '5'. Supported values are: '4', '8', and '12'.", "type": "invalid_req"#;
        let twice = r#"upstream error: {"error": {"message": "BadRequestError: {\"message\": \"prompt rejected\"}"}}"#;
        let cases = [
            (sora, "Invalid value: '5'. Supported values are: '4', '8', and '12'."),
            (cut_short, "Invalid value: '5'. Supported values are: '4', '8', and '12'."),
            (twice, "prompt rejected"),
            ("invalid token (request id: 2026)", "invalid token (request id: 2026)"),
            ("a brace { that wraps nothing", "a brace { that wraps nothing"),
            (r#"upstream said {"error": {}}"#, r#"upstream said {"error": {}}"#),
            ("  plain words  ", "plain words"),
        ];
        for (text, want) in cases {
            assert_eq!(innermost(text), want, "{text}");
        }
    }
}
