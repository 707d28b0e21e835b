//! The body the simulator takes for a submission, as the gateways in the wild take theirs
//! (`reel sim --takes`): the spec's form, the fields at the top level with `metadata` dropped
//! unread (new-api with some upstreams), or OpenAI's Videos form (`size`, string `seconds`,
//! `input_reference`, unknown parameters refused), and optionally `seconds` only as a string
//! (new-api's `TaskSubmitReq`). Each is turned into the spec's form, which the simulator then
//! checks as strictly as ever.

use hyper::StatusCode;
use serde_json::{Map, Value, json};

use super::gateway::openai_error;
use super::reply::Reply;
use reel_api::wire_form::{BodyForm, Wire, resolution_of};
use reel_rules::Ratio;

/// OpenAI's answer to a parameter it does not know.
fn unknown_parameter(name: &str) -> Reply {
    let body = json!({"error": {
        "message": format!("Unknown parameter: '{name}'."),
        "type": "invalid_request_error",
        "param": name,
        "code": "unknown_parameter",
    }});
    Reply::json(StatusCode::BAD_REQUEST, &body)
}

/// `body` in the spec's form, or the refusal a service taking `takes` would answer.
pub fn to_spec_form(body: Value, takes: Wire) -> Result<Value, Box<Reply>> {
    let Value::Object(mut fields) = body else { return Ok(body) };
    if takes.form == BodyForm::Openai {
        // OpenAI checks the names before the values.
        const KNOWN: [&str; 5] = ["model", "prompt", "seconds", "size", "input_reference"];
        if let Some(other) = fields.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return Err(Box::new(unknown_parameter(other)));
        }
    }
    if takes.seconds_as_string || takes.form == BodyForm::Openai {
        match fields.get("seconds") {
            Some(Value::Number(_)) => {
                let message = "json: cannot unmarshal number into Go struct field TaskSubmitReq.seconds of type string";
                return Err(Box::new(openai_error(StatusCode::BAD_REQUEST, message)));
            }
            Some(Value::String(s)) => {
                let number = s.trim().parse::<i64>().map_or_else(|_| Value::String(s.clone()), |n| json!(n));
                fields.insert("seconds".into(), number);
            }
            _ => {}
        }
    }
    let mut metadata = Map::new();
    match takes.form {
        BodyForm::Spec => return Ok(Value::Object(fields)),
        BodyForm::TopLevel => {
            // Its own bookkeeping field: read by nobody, dropped before the upstream.
            fields.remove("metadata");
            for key in ["resolution", "ratio", "watermark", "media", "negative_prompt"] {
                if let Some(v) = fields.remove(key) {
                    metadata.insert(key.into(), v);
                }
            }
        }
        BodyForm::Openai => {
            if let Some(size) = fields.remove("size") {
                let ratios: Vec<&str> = Ratio::ALL.iter().map(|r| r.as_str()).collect();
                let Some((resolution, ratio)) = size.as_str().and_then(|s| resolution_of(s, &ratios)) else {
                    let message = format!("Invalid value for 'size': {size}.");
                    return Err(Box::new(openai_error(StatusCode::BAD_REQUEST, &message)));
                };
                metadata.insert("resolution".into(), json!(resolution));
                metadata.insert("ratio".into(), json!(ratio));
            }
            if let Some(url) = fields.remove("input_reference") {
                metadata.insert("media".into(), json!([{"type": "first_frame", "url": url}]));
            }
        }
    }
    if !metadata.is_empty() {
        fields.insert("metadata".into(), Value::Object(metadata));
    }
    Ok(Value::Object(fields))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn takes(form: BodyForm, seconds_as_string: bool) -> Wire {
        Wire { form, seconds_as_string }
    }

    #[test]
    fn each_form_becomes_the_spec_form_or_is_refused_as_its_services_do() {
        let spec_body = json!({"model": "m", "prompt": "p", "seconds": 8,
            "metadata": {"resolution": "720P", "ratio": "16:9"}});
        let cases: Vec<(Wire, Value, Result<Value, u16>)> = vec![
            (Wire::default(), spec_body.clone(), Ok(spec_body.clone())),
            (
                takes(BodyForm::TopLevel, false),
                json!({"model": "m", "prompt": "p", "seconds": 8, "resolution": "720P", "ratio": "16:9"}),
                Ok(spec_body.clone()),
            ),
            (
                takes(BodyForm::TopLevel, false),
                spec_body.clone(),
                Ok(json!({"model": "m", "prompt": "p", "seconds": 8})),
            ),
            (
                takes(BodyForm::Spec, true),
                json!({"model": "m", "prompt": "p", "seconds": "8",
                    "metadata": {"resolution": "720P", "ratio": "16:9"}}),
                Ok(spec_body.clone()),
            ),
            (takes(BodyForm::Spec, true), spec_body.clone(), Err(400)),
            (
                takes(BodyForm::Openai, false),
                json!({"model": "m", "prompt": "p", "seconds": "8", "size": "1280x720",
                    "input_reference": "https://x/a.png"}),
                Ok(json!({"model": "m", "prompt": "p", "seconds": 8, "metadata": {"resolution": "720P",
                    "ratio": "16:9", "media": [{"type": "first_frame", "url": "https://x/a.png"}]}})),
            ),
            (takes(BodyForm::Openai, false), spec_body.clone(), Err(400)),
            (takes(BodyForm::Openai, false), json!({"model": "m", "prompt": "p", "size": "1792x1024"}), Err(400)),
        ];
        for (wire, body, want) in cases {
            let got = to_spec_form(body.clone(), wire).map_err(|r| r.status.as_u16());
            assert_eq!(got, want, "{wire} {body}");
        }
    }
}
