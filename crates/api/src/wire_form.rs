//! The body a service takes for a submission. The spec's form (`metadata.resolution`, integer
//! `seconds`) is the default; gateways in the wild take others: the same fields at the top level
//! (new-api drops `metadata` for some upstreams), OpenAI's Videos API form (`size` as
//! `WIDTHxHEIGHT`, `seconds` as a string, a first frame as `input_reference`), or integer
//! seconds refused in favour of a string (new-api's `TaskSubmitReq.seconds`). Only the form's
//! validated fields are ever sent; a field a form cannot carry is refused before sending.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use thiserror::Error;

use super::types::SubmitRequest;
pub use reel_rules::size::{resolution_of, size_of};

/// Where the parameters go in the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BodyForm {
    /// `metadata.resolution`, `metadata.ratio`, … (the spec).
    #[default]
    Spec,
    /// The same fields at the top level of the body.
    TopLevel,
    /// OpenAI's Videos API: `model`, `prompt`, `seconds` (a string), `size`, `input_reference`.
    Openai,
}

impl BodyForm {
    pub const NAMES: [(&'static str, BodyForm); 3] =
        [("spec", BodyForm::Spec), ("top_level", BodyForm::TopLevel), ("openai", BodyForm::Openai)];

    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, f)| *f == self).map_or("spec", |(n, _)| n)
    }
}

/// How a profile's service wants its submissions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Wire {
    pub form: BodyForm,
    /// `seconds` as a string (`"5"`) in any form.
    pub seconds_as_string: bool,
}

impl std::fmt::Display for Wire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.form.name())?;
        if self.seconds_as_string && self.form != BodyForm::Openai {
            f.write_str(", seconds as a string")?;
        }
        Ok(())
    }
}

/// A submission the chosen form cannot carry; nothing was sent.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{what}, which the {form} body this profile sends cannot carry; {fix}")]
pub struct Unsendable {
    pub form: &'static str,
    pub what: String,
    pub fix: String,
}

fn seconds(value: i64, as_string: bool) -> Value {
    if as_string { Value::String(value.to_string()) } else { json!(value) }
}

/// The JSON body of `request` in the form `wire` names.
pub fn body(request: &SubmitRequest, wire: Wire) -> Result<Value, Unsendable> {
    let m = &request.metadata;
    let mut out = Map::new();
    out.insert("model".into(), json!(request.model));
    out.insert("prompt".into(), json!(request.prompt));
    match wire.form {
        BodyForm::Spec | BodyForm::TopLevel => {
            out.insert("seconds".into(), seconds(request.seconds, wire.seconds_as_string));
            let metadata = serde_json::to_value(m).map_err(|e| Unsendable {
                form: wire.form.name(),
                what: format!("the parameters ({e})"),
                fix: String::new(),
            })?;
            if wire.form == BodyForm::Spec {
                out.insert("metadata".into(), metadata);
            } else if let Value::Object(fields) = metadata {
                out.extend(fields);
            }
        }
        BodyForm::Openai => {
            let refuse = |what: String, fix: &str| Unsendable { form: "openai", what, fix: fix.to_string() };
            let spec_form = "set wire = \"top_level\" or \"spec\" in the profile if the service takes it";
            if request.seconds < 0 {
                return Err(refuse("automatic duration (seconds -1)".into(), "choose a number of seconds"));
            }
            out.insert("seconds".into(), seconds(request.seconds, true));
            let size = size_of(&m.resolution, &m.ratio)
                .ok_or_else(|| refuse(format!("ratio {} at {}", m.ratio, m.resolution), "choose a fixed ratio"))?;
            out.insert("size".into(), json!(size));
            if m.negative_prompt.is_some() {
                return Err(refuse("a negative prompt".into(), spec_form));
            }
            if m.watermark {
                return Err(refuse("a watermark".into(), spec_form));
            }
            match m.media.as_slice() {
                [] => {}
                [one] if one.kind == "first_frame" => {
                    out.insert("input_reference".into(), json!(one.url));
                }
                _ => return Err(refuse("reference media other than one first frame".into(), spec_form)),
            }
        }
    }
    Ok(Value::Object(out))
}

/// Words of a rejection that may be about the API key.
const KEY_WORDS: [&str; 6] = ["api key", "api-key", "apikey", "invalid token", "unauthorized", "令牌"];

/// The profile setting that fixes a rejection whose message names a body field's type or an
/// unknown field (new-api's Go decoder, OpenAI's `unknown_parameter`).
pub fn hint(message: &str) -> Option<&'static str> {
    let m = message.to_ascii_lowercase();
    if m.contains("seconds") && m.contains("of type string") {
        Some("this service wants seconds as a string: set seconds_as_string = true in the profile")
    } else if m.contains("seconds") && m.contains("of type int") {
        Some("this service wants seconds as a number: set seconds_as_string = false in the profile")
    } else if (m.contains("unknown parameter") || m.contains("unrecognized") || m.contains("unknown field"))
        && m.contains("metadata")
    {
        Some("this service takes no metadata object: set wire = \"top_level\" or wire = \"openai\" in the profile")
    } else if m.contains("size") && (m.contains("required") || m.contains("missing")) {
        Some("this service takes OpenAI's body: set wire = \"openai\" in the profile")
    } else if KEY_WORDS.iter().any(|w| m.contains(w)) {
        // Some gateways answer a bad key with a 400: reel does not take it for the key (every
        // 400 would pause the profile), but says where to look.
        Some("if this is about the API key, check REEL_API_KEY or api_key_cmd")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{MediaItem, Metadata};

    fn request(seconds: i64, resolution: &str, ratio: &str) -> SubmitRequest {
        SubmitRequest {
            model: "m".into(),
            prompt: "p".into(),
            seconds,
            metadata: Metadata {
                resolution: resolution.into(),
                ratio: ratio.into(),
                watermark: false,
                media: Vec::new(),
                negative_prompt: None,
            },
        }
    }

    #[test]
    fn sizes_from_resolution_and_ratio_and_back() {
        let cases = [
            ("720P", "16:9", Some("1280x720")),
            ("720P", "9:16", Some("720x1280")),
            ("1080P", "16:9", Some("1920x1080")),
            ("480P", "16:9", Some("854x480")),
            ("720P", "1:1", Some("720x720")),
            ("720P", "4:3", Some("960x720")),
            ("1080P", "3:4", Some("1080x1440")),
            ("720P", "adaptive", None),
            ("HD", "16:9", None),
        ];
        let ratios = ["1:1", "16:9", "9:16", "4:3", "3:4"];
        for (resolution, ratio, want) in cases {
            let size = size_of(resolution, ratio);
            assert_eq!(size.as_deref(), want, "{resolution} {ratio}");
            if let Some(size) = size {
                assert_eq!(resolution_of(&size, &ratios), Some((resolution.into(), ratio.into())), "{size}");
            }
        }
        assert_eq!(resolution_of("1792x1024", &ratios), None, "a size of no listed ratio");
        assert_eq!(resolution_of("wide", &ratios), None);
    }

    #[test]
    fn each_form_puts_the_fields_where_its_services_read_them() {
        let mut r = request(8, "720P", "16:9");
        r.metadata.negative_prompt = Some("blur".into());
        let spec = Wire::default();
        let top = Wire { form: BodyForm::TopLevel, seconds_as_string: false };
        let strings = Wire { form: BodyForm::Spec, seconds_as_string: true };
        let cases = [
            (
                spec,
                json!({"model": "m", "prompt": "p", "seconds": 8, "metadata":
                    {"resolution": "720P", "ratio": "16:9", "watermark": false, "negative_prompt": "blur"}}),
            ),
            (
                top,
                json!({"model": "m", "prompt": "p", "seconds": 8, "resolution": "720P", "ratio": "16:9",
                    "watermark": false, "negative_prompt": "blur"}),
            ),
            (
                strings,
                json!({"model": "m", "prompt": "p", "seconds": "8", "metadata":
                    {"resolution": "720P", "ratio": "16:9", "watermark": false, "negative_prompt": "blur"}}),
            ),
        ];
        for (wire, want) in cases {
            assert_eq!(body(&r, wire), Ok(want), "{wire}");
        }
        let openai = Wire { form: BodyForm::Openai, seconds_as_string: false };
        let mut plain = request(8, "720P", "9:16");
        plain.metadata.media = vec![MediaItem { kind: "first_frame".into(), url: "https://x/a.png".into() }];
        assert_eq!(
            body(&plain, openai),
            Ok(json!({"model": "m", "prompt": "p", "seconds": "8", "size": "720x1280",
                "input_reference": "https://x/a.png"}))
        );
    }

    #[test]
    fn what_openai_form_cannot_carry_is_refused_by_name() {
        let openai = Wire { form: BodyForm::Openai, seconds_as_string: false };
        let mut negative = request(8, "720P", "16:9");
        negative.metadata.negative_prompt = Some("blur".into());
        let mut watermark = request(8, "720P", "16:9");
        watermark.metadata.watermark = true;
        let mut reference = request(8, "720P", "16:9");
        reference.metadata.media = vec![MediaItem { kind: "reference_image".into(), url: "https://x/a.png".into() }];
        let cases = [
            (negative, "a negative prompt"),
            (watermark, "a watermark"),
            (reference, "reference media other than one first frame"),
            (request(-1, "720P", "16:9"), "automatic duration"),
            (request(8, "720P", "adaptive"), "ratio adaptive at 720P"),
        ];
        for (r, what) in cases {
            let err = body(&r, openai).expect_err(what);
            assert!(err.what.starts_with(what), "{err}");
            assert!(err.to_string().contains("the openai body this profile sends cannot carry"), "{err}");
        }
    }

    #[test]
    fn rejections_that_name_a_field_point_to_the_setting() {
        let cases = [
            (
                "json: cannot unmarshal number into Go struct field TaskSubmitReq.seconds of type string",
                Some("seconds_as_string = true"),
            ),
            (
                "json: cannot unmarshal string into Go struct field .seconds of type int",
                Some("seconds_as_string = false"),
            ),
            ("Unknown parameter: 'metadata'.", Some("wire = \"top_level\"")),
            ("Missing required parameter: 'size'.", Some("wire = \"openai\"")),
            ("Invalid value: '5'. Supported values are: '4', '8', and '12'.", None),
            ("prompt is required", None),
        ];
        for (message, want) in cases {
            let got = hint(message);
            match want {
                Some(w) => assert!(got.is_some_and(|h| h.contains(w)), "{message}: {got:?}"),
                None => assert_eq!(got, None, "{message}"),
            }
        }
    }
}
