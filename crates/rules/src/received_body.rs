//! Reads a submission request body (JSON) into a [`Draft`], refusing wrong JSON types.
//! The simulator uses it so that a server checks exactly what the spec's wire format allows.

use serde_json::{Map, Value};

use super::validate::{Draft, Field, MediaDraft, Violation};

fn kind_of(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("the string \"{}\"", s.chars().take(40).collect::<String>()),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

struct Reader<'a> {
    problems: &'a mut Vec<Violation>,
}

impl Reader<'_> {
    fn wrong(&mut self, field: Field, expected: &'static str, got: &Value) {
        self.problems.push(Violation::WrongType { field, expected, got: kind_of(got) });
    }

    fn string(&mut self, obj: &Map<String, Value>, key: &str, field: Field) -> Option<String> {
        match obj.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.wrong(field, "a string", other);
                None
            }
        }
    }
}

/// Converts a request body to a draft. Missing optional fields stay `None` (defaults apply);
/// present fields of the wrong JSON type are violations, as is a non-integer `seconds`.
pub fn draft_from_json(body: &Value) -> Result<Draft, Vec<Violation>> {
    let Some(obj) = body.as_object() else {
        return Err(vec![Violation::BodyNotObject]);
    };
    let mut problems = Vec::new();
    let mut r = Reader { problems: &mut problems };
    let mut draft = Draft {
        model: r.string(obj, "model", Field::Model).unwrap_or_default(),
        prompt: r.string(obj, "prompt", Field::Prompt).unwrap_or_default(),
        ..Draft::default()
    };
    if !obj.contains_key("model") {
        r.problems.push(Violation::WrongType { field: Field::Model, expected: "a string", got: "nothing".into() });
    }
    match obj.get("seconds") {
        None | Some(Value::Null) => {}
        Some(Value::Number(n)) => draft.seconds = Some(n.to_string()),
        Some(other) => r.wrong(Field::Seconds, "an integer", other),
    }
    match obj.get("metadata") {
        None | Some(Value::Null) => {}
        Some(Value::Object(meta)) => {
            draft.resolution = r.string(meta, "resolution", Field::Resolution);
            draft.ratio = r.string(meta, "ratio", Field::Ratio);
            draft.negative_prompt = r.string(meta, "negative_prompt", Field::NegativePrompt).unwrap_or_default();
            match meta.get("watermark") {
                None | Some(Value::Null) => {}
                Some(Value::Bool(b)) => draft.watermark = Some(*b),
                Some(other) => r.wrong(Field::Watermark, "true or false", other),
            }
            match meta.get("media") {
                None | Some(Value::Null) => {}
                Some(Value::Array(items)) => {
                    for (i, item) in items.iter().enumerate() {
                        let field = Field::Media(Some(i));
                        let Some(m) = item.as_object() else {
                            r.wrong(field, "an object with type and url", item);
                            continue;
                        };
                        let kind = r.string(m, "type", field);
                        let url = r.string(m, "url", field);
                        draft.media.push(MediaDraft {
                            kind: kind.unwrap_or_default(),
                            url: url.unwrap_or_default(),
                            seconds: None,
                            // A body names no local file: its URLs are checked as URLs.
                            local: None,
                        });
                    }
                }
                Some(other) => r.wrong(Field::Media(None), "an array", other),
            }
        }
        Some(other) => r.wrong(Field::Body, "an object in metadata", other),
    }
    if problems.is_empty() { Ok(draft) } else { Err(problems) }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_every_field() {
        let d = draft_from_json(&json!({
            "model": "acme/aurora-3.0/reference-to-video-global",
            "prompt": "image 1 walks",
            "seconds": 8,
            "unknown_field": "ignored",
            "metadata": {
                "resolution": "1080P", "ratio": "9:16", "watermark": true, "negative_prompt": "blur",
                "media": [{"type": "reference_image", "url": "https://x.org/1.png"}]
            }
        }))
        .expect("well typed");
        assert_eq!(d.seconds.as_deref(), Some("8"));
        assert_eq!(
            (d.resolution.as_deref(), d.ratio.as_deref(), d.watermark),
            (Some("1080P"), Some("9:16"), Some(true))
        );
        assert_eq!(d.negative_prompt, "blur");
        assert_eq!(d.media, vec![MediaDraft::typed("reference_image", "https://x.org/1.png", None)]);
    }

    #[test]
    fn wrong_types_are_named() {
        let cases = [
            (json!([1]), Field::Body),
            (json!({"prompt": "p"}), Field::Model),
            (json!({"model": 3, "prompt": "p"}), Field::Model),
            (json!({"model": "m", "prompt": ["p"]}), Field::Prompt),
            (json!({"model": "m", "prompt": "p", "seconds": "5"}), Field::Seconds),
            (json!({"model": "m", "prompt": "p", "metadata": "x"}), Field::Body),
            (json!({"model": "m", "prompt": "p", "metadata": {"watermark": "yes"}}), Field::Watermark),
            (json!({"model": "m", "prompt": "p", "metadata": {"resolution": 720}}), Field::Resolution),
            (json!({"model": "m", "prompt": "p", "metadata": {"media": {}}}), Field::Media(None)),
            (json!({"model": "m", "prompt": "p", "metadata": {"media": ["u"]}}), Field::Media(Some(0))),
            (
                json!({"model": "m", "prompt": "p", "metadata": {"media": [{"type": 1, "url": "u"}]}}),
                Field::Media(Some(0)),
            ),
        ];
        for (body, field) in cases {
            let errs = draft_from_json(&body).expect_err("refused");
            assert_eq!(errs[0].field(), field, "{body}");
        }
    }

    #[test]
    fn fractional_seconds_reach_the_integer_rule() {
        let d = draft_from_json(&json!({"model": "m", "prompt": "p", "seconds": 5.5})).expect("a number");
        assert_eq!(d.seconds.as_deref(), Some("5.5"));
    }
}
