//! A tool's arguments parsed so that a mistake names its field: for a wrong type the value
//! given and what the field takes, for an unknown field the accepted ones, for missing ones
//! every required field absent. serde alone says "data did not match any variant of untagged
//! enum OneOrMany" or "expected u32", which leaves an agent to guess which argument was wrong.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_path_to_error::Segment;
use thiserror::Error;

/// A tool's arguments as rmcp's `Parameters` extracts them: the arguments, or the error
/// [`parse`] words. Never a deserialization error of its own, which rmcp would word itself.
/// Its JSON schema is `T`'s, so the tools' listed schemas are unchanged.
#[derive(Debug)]
pub struct Checked<T>(pub Result<T, ArgError>);

impl<'de, T: DeserializeOwned + JsonSchema> Deserialize<'de> for Checked<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let given = Value::deserialize(d)?;
        Ok(Checked(parse(&given)))
    }
}

impl<T: JsonSchema> JsonSchema for Checked<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

/// Arguments an agent got wrong, by field (`media[0].seconds`) and rule.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ArgError {
    #[error("{field}: {given} is not {expected}")]
    WrongType { field: String, given: String, expected: String },
    #[error("{}", unknown_text(field, parent, accepted))]
    Unknown { field: String, parent: String, accepted: Vec<String> },
    #[error("{}", missing_text(.0))]
    Missing(Vec<(String, String)>),
    /// What serde said, when none of the above fits (no tool argument leads here today).
    #[error("{field}: {message}")]
    Other { field: String, message: String },
}

fn unknown_text(field: &str, parent: &str, accepted: &[String]) -> String {
    let (of, it) = if parent.is_empty() {
        ("an argument of this tool".to_string(), "it takes")
    } else {
        (format!("a field of {parent}"), "it has")
    };
    match accepted {
        [] if parent.is_empty() => format!("{field}: not {of}; this tool takes no arguments"),
        [] => format!("{field}: not {of}; {parent} has no fields"),
        _ => format!("{field}: not {of}; {it} {}", accepted.join(", ")),
    }
}

fn missing_text(fields: &[(String, String)]) -> String {
    let lines: Vec<String> =
        fields.iter().map(|(field, expected)| format!("{field}: missing; give {expected}")).collect();
    lines.join("\n")
}

/// What each argument takes, as the errors say it, by its path without list indices. A test
/// holds it to the tools' schemas: every argument has a line, and every line an argument.
const EXPECTED: &[(&str, &str)] = &[
    ("model", "a model id from the models tool (a string)"),
    ("prompt", "a string (what to render)"),
    ("negative_prompt", "a string (what to keep out of the video)"),
    ("seconds", "a whole number of seconds or a list of them"),
    ("resolution", "a resolution (a string: 480P, 720P or 1080P)"),
    ("ratio", "an aspect ratio (a string such as \"16:9\") or a list of them"),
    ("watermark", "true or false"),
    ("media", "a list of media items, each {\"type\": …, \"url\": …} (and \"seconds\" for videos and audio)"),
    ("media.type", "a media type (a string: first_frame, reference_image, reference_video or reference_audio)"),
    ("media.url", "an http(s) URL (a string)"),
    ("media.seconds", "a number of seconds"),
    ("copies", "a whole number of copies, 1 or more"),
    ("ids", "a task id (a whole number) or a list of them"),
    ("id", "a task id (a whole number)"),
    ("timeout_secs", "a number of seconds above 0"),
    ("query", "a string of search words"),
    ("state", "a task state (a string such as \"downloaded\")"),
    ("limit", "a whole number from 1 to 200"),
    ("rating", "a whole number from 0 to 5 (0 removes the rating)"),
    ("tags", "a list of tags (strings)"),
    ("remove", "true or false"),
    ("picked", "true or false"),
];

fn expected(key: &str) -> String {
    EXPECTED
        .iter()
        .find(|(k, _)| *k == key)
        .map_or_else(|| "a value of the right type".to_string(), |(_, e)| e.to_string())
}

/// The arguments as `T`, or the error naming the field, what was given and what it takes.
pub fn parse<T: DeserializeOwned + JsonSchema>(given: &Value) -> Result<T, ArgError> {
    serde_path_to_error::deserialize(given).map_err(|e| {
        let schema = schemars::schema_for!(T);
        let segments: Vec<Segment> = e.path().iter().cloned().collect();
        explain(&segments, &e.inner().to_string(), given, schema.as_value())
    })
}

/// serde's error at `path` in `given`, worded for an agent. serde's messages are matched by
/// their start ("unknown field `x`", "missing field `x`"), which serde has kept for years.
fn explain(path: &[Segment], message: &str, given: &Value, schema: &Value) -> ArgError {
    let quoted = |text: &str| -> Vec<String> { text.split('`').skip(1).step_by(2).map(String::from).collect() };
    if let Some(rest) = message.strip_prefix("unknown field `") {
        // The path ends at the unknown key, and the accepted ones are read after it (a key
        // may hold a backtick itself); else serde's first quoted word is the key.
        let (parent, name, accepted) = match path.split_last() {
            Some((Segment::Map { key }, parent)) if rest.starts_with(&format!("{key}`")) => {
                (parent, key.clone(), quoted(&rest[key.len() + 1..]))
            }
            _ => {
                let mut words = quoted(message).into_iter();
                (path, words.next().unwrap_or_default(), words.collect())
            }
        };
        return ArgError::Unknown { field: joined(shown(parent), &name), parent: shown(parent), accepted };
    }
    if message.starts_with("missing field `")
        && let Some(name) = quoted(message).first()
    {
        let mut names = absent_required(path, given, schema);
        if !names.contains(&name.to_string()) {
            names = vec![name.to_string()];
        }
        let fields = names.iter().map(|n| (joined(shown(path), n), expected(&joined(key(path), n)))).collect();
        return ArgError::Missing(fields);
    }
    // A wrong element of a list of plain values (`tags[1]`) is told on the list, whose rule
    // is the one an agent needs; an item of a list of objects keeps its index (`media[0]`).
    let at = match path.split_last() {
        Some((Segment::Seq { .. }, rest)) => rest,
        _ => path,
    };
    let field = shown(at);
    if field.is_empty() {
        return ArgError::Other { field: "arguments".into(), message: message.to_string() };
    }
    match value_at(given, at) {
        Some(value) => ArgError::WrongType { field, given: brief(value), expected: expected(&key(at)) },
        None => ArgError::Other { field, message: message.to_string() },
    }
}

/// The path as an agent writes it: `media[0].seconds`.
fn shown(path: &[Segment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Map { key } => out = joined(out, key),
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

/// The path without list indices, as [`EXPECTED`] names fields: `media.seconds`.
fn key(path: &[Segment]) -> String {
    path.iter()
        .filter_map(|s| match s {
            Segment::Map { key } => Some(key.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(".")
}

fn joined(parent: impl Into<String>, name: &str) -> String {
    let parent = parent.into();
    if parent.is_empty() { name.to_string() } else { format!("{parent}.{name}") }
}

fn value_at<'a>(mut value: &'a Value, path: &[Segment]) -> Option<&'a Value> {
    for segment in path {
        value = match segment {
            Segment::Map { key } => value.get(key)?,
            Segment::Seq { index } => value.get(index)?,
            Segment::Enum { .. } | Segment::Unknown => return None,
        };
    }
    Some(value)
}

/// A value as JSON, cut short: an agent may have sent a long prompt where a number goes.
fn brief(value: &Value) -> String {
    const MAX: usize = 60;
    let text = value.to_string();
    if text.chars().count() <= MAX { text } else { format!("{}…", text.chars().take(MAX).collect::<String>()) }
}

/// Every field the schema requires at `path` that `given` lacks there, in the schema's order
/// (serde names only the first; an agent should fix them all at once).
fn absent_required(path: &[Segment], given: &Value, schema: &Value) -> Vec<String> {
    let (Some(node), Some(object)) = (schema_at(schema, path), value_at(given, path).and_then(Value::as_object)) else {
        return Vec::new();
    };
    let required = node.get("required").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    required.iter().filter_map(Value::as_str).filter(|name| !object.contains_key(*name)).map(String::from).collect()
}

/// The schema of the value at `path`: through `properties`, `items` and local `$ref`s.
fn schema_at<'a>(root: &'a Value, path: &[Segment]) -> Option<&'a Value> {
    let deref = |node: &'a Value| match node.get("$ref").and_then(Value::as_str) {
        Some(r) => root.pointer(r.strip_prefix('#')?),
        None => Some(node),
    };
    let mut node = deref(root)?;
    for segment in path {
        node = match segment {
            Segment::Map { key } => node.get("properties")?.get(key)?,
            Segment::Seq { .. } => node.get("items")?,
            Segment::Enum { .. } | Segment::Unknown => return None,
        };
        node = deref(node)?;
    }
    Some(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{IdsArgs, NoArgs, PickArgs, RateArgs, SearchArgs, ShowArgs, SubmissionArgs, TagArgs, WaitArgs};
    use serde_json::json;

    fn error<T: DeserializeOwned + JsonSchema + std::fmt::Debug>(given: Value) -> String {
        match parse::<T>(&given) {
            Ok(args) => panic!("{given} parsed: {args:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_wrong_argument_is_named_with_the_value_given_and_what_it_takes() {
        let sub = |extra: Value| {
            let mut args = json!({"model": "aurora-3.0/t2v", "prompt": "a fox"});
            if let (Some(args), Value::Object(extra)) = (args.as_object_mut(), extra) {
                args.extend(extra);
            }
            error::<SubmissionArgs>(args)
        };
        let media = |item: Value| sub(json!({"media": [{"type": "first_frame", "url": "https://e/a.png"}, item]}));
        let cases: &[(&str, String, &str)] = &[
            // Wrong types, one per field of a submission.
            (
                "seconds text",
                sub(json!({"seconds": "ten"})),
                "seconds: \"ten\" is not a whole number of seconds or a list of them",
            ),
            (
                "seconds list",
                sub(json!({"seconds": [5, "ten"]})),
                "seconds: [5,\"ten\"] is not a whole number of seconds or a list of them",
            ),
            (
                "seconds fraction",
                sub(json!({"seconds": 4.5})),
                "seconds: 4.5 is not a whole number of seconds or a list of them",
            ),
            (
                "ratio",
                sub(json!({"ratio": 16})),
                "ratio: 16 is not an aspect ratio (a string such as \"16:9\") or a list of them",
            ),
            ("copies negative", sub(json!({"copies": -1})), "copies: -1 is not a whole number of copies, 1 or more"),
            (
                "copies huge",
                sub(json!({"copies": 5_000_000_000_u64})),
                "copies: 5000000000 is not a whole number of copies, 1 or more",
            ),
            ("watermark", sub(json!({"watermark": "no"})), "watermark: \"no\" is not true or false"),
            ("prompt null", sub(json!({"prompt": null})), "prompt: null is not a string (what to render)"),
            ("model number", sub(json!({"model": 3})), "model: 3 is not a model id from the models tool (a string)"),
            (
                "resolution",
                sub(json!({"resolution": 720})),
                "resolution: 720 is not a resolution (a string: 480P, 720P or 1080P)",
            ),
            (
                "negative_prompt",
                sub(json!({"negative_prompt": ["x"]})),
                "negative_prompt: [\"x\"] is not a string (what to keep out of the video)",
            ),
            (
                "media not a list",
                sub(json!({"media": {"type": "first_frame"}})),
                "media: {\"type\":\"first_frame\"} is not a list of media items",
            ),
            (
                "media item seconds",
                media(json!({"type": "reference_video", "url": "https://e/v.mp4", "seconds": "2"})),
                "media[1].seconds: \"2\" is not a number of seconds",
            ),
            (
                "media item url",
                media(json!({"type": "first_frame", "url": 7})),
                "media[1].url: 7 is not an http(s) URL (a string)",
            ),
            // Unknown fields name the field and the accepted ones.
            (
                "unknown",
                sub(json!({"api_key": "x"})),
                "api_key: not an argument of this tool; it takes model, prompt, negative_prompt, seconds, resolution, ratio, watermark, media, copies",
            ),
            (
                "unknown in media",
                media(json!({"type": "first_frame", "url": "https://e/b.png", "size": 3})),
                "media[1].size: not a field of media[1]; it has type, url, seconds",
            ),
            // Missing fields: every required one absent, with what it takes.
            (
                "missing model",
                error::<SubmissionArgs>(json!({"prompt": "a fox"})),
                "model: missing; give a model id from the models tool (a string)",
            ),
            (
                "missing both",
                error::<SubmissionArgs>(json!({})),
                "model: missing; give a model id from the models tool (a string)\nprompt: missing; give a string (what to render)",
            ),
            ("missing in media", media(json!({"url": "https://e/b.png"})), "media[1].type: missing; give a media type"),
            // The other tools.
            (
                "ids text",
                error::<IdsArgs>(json!({"ids": "one"})),
                "ids: \"one\" is not a task id (a whole number) or a list of them",
            ),
            (
                "ids missing",
                error::<IdsArgs>(json!({})),
                "ids: missing; give a task id (a whole number) or a list of them",
            ),
            (
                "wait timeout",
                error::<WaitArgs>(json!({"ids": 1, "timeout_secs": "soon"})),
                "timeout_secs: \"soon\" is not a number of seconds above 0",
            ),
            ("show id text", error::<ShowArgs>(json!({"id": "1"})), "id: \"1\" is not a task id (a whole number)"),
            ("show id fraction", error::<ShowArgs>(json!({"id": 1.5})), "id: 1.5 is not a task id (a whole number)"),
            (
                "rate negative",
                error::<RateArgs>(json!({"id": 1, "rating": -1})),
                "rating: -1 is not a whole number from 0 to 5 (0 removes the rating)",
            ),
            (
                "rate fraction",
                error::<RateArgs>(json!({"id": 1, "rating": 4.5})),
                "rating: 4.5 is not a whole number from 0 to 5",
            ),
            ("rate missing", error::<RateArgs>(json!({"id": 1})), "rating: missing; give a whole number from 0 to 5"),
            (
                "tags text",
                error::<TagArgs>(json!({"id": 1, "tags": "keeper"})),
                "tags: \"keeper\" is not a list of tags (strings)",
            ),
            (
                "tags element",
                error::<TagArgs>(json!({"id": 1, "tags": ["ok", 3]})),
                "tags: [\"ok\",3] is not a list of tags (strings)",
            ),
            (
                "tag remove",
                error::<TagArgs>(json!({"id": 1, "tags": ["a"], "remove": 1})),
                "remove: 1 is not true or false",
            ),
            ("pick", error::<PickArgs>(json!({"id": 1, "picked": "yes"})), "picked: \"yes\" is not true or false"),
            (
                "search limit",
                error::<SearchArgs>(json!({"limit": -1})),
                "limit: -1 is not a whole number from 1 to 200",
            ),
            ("search query", error::<SearchArgs>(json!({"query": 5})), "query: 5 is not a string of search words"),
            ("search state", error::<SearchArgs>(json!({"state": true})), "state: true is not a task state"),
            (
                "search unknown",
                error::<SearchArgs>(json!({"bogus": 1})),
                "bogus: not an argument of this tool; it takes query, model, state, limit",
            ),
            (
                "a backtick",
                error::<SearchArgs>(json!({"a`b": 1})),
                "a`b: not an argument of this tool; it takes query, model, state, limit",
            ),
            (
                "no arguments",
                error::<NoArgs>(json!({"x": 1})),
                "x: not an argument of this tool; this tool takes no arguments",
            ),
        ];
        for (what, got, want) in cases {
            assert!(got.starts_with(want), "{what}:\n got {got}\nwant {want}");
        }
    }

    #[test]
    fn a_long_value_is_cut_short() {
        let long = "x".repeat(500);
        let got = error::<ShowArgs>(json!({ "id": long }));
        assert!(got.starts_with("id: \"xxx") && got.ends_with("x… is not a task id (a whole number)"), "{got}");
        assert!(got.chars().count() < 120, "{got}");
    }

    #[test]
    fn good_arguments_parse_as_serde_reads_them() {
        let given = json!({"model": "m", "prompt": "p", "seconds": [5, 10], "media": [{"type": "first_frame", "url": "https://e/a.png"}]});
        let parsed: SubmissionArgs = parse(&given).expect("parses");
        assert_eq!(parsed, serde_json::from_value::<SubmissionArgs>(given).expect("serde reads it"));
        let checked: Checked<IdsArgs> = serde_json::from_value(json!({"ids": 3})).expect("never a serde error");
        assert!(checked.0.is_ok());
        let checked: Checked<IdsArgs> = serde_json::from_value(json!({"ids": "x"})).expect("never a serde error");
        assert!(matches!(checked.0, Err(ArgError::WrongType { .. })));
    }

    /// Every argument of every tool (and of a media item) in the schema an agent reads.
    fn arguments() -> Vec<String> {
        let schemas = [
            schemars::schema_for!(SubmissionArgs),
            schemars::schema_for!(IdsArgs),
            schemars::schema_for!(WaitArgs),
            schemars::schema_for!(SearchArgs),
            schemars::schema_for!(ShowArgs),
            schemars::schema_for!(RateArgs),
            schemars::schema_for!(TagArgs),
            schemars::schema_for!(PickArgs),
            schemars::schema_for!(NoArgs),
        ];
        let mut out = Vec::new();
        for schema in &schemas {
            let root = schema.as_value();
            let properties = |node: &Value| -> Vec<String> {
                node.get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default()
            };
            for name in properties(root) {
                let item = [Segment::Map { key: name.clone() }, Segment::Seq { index: 0 }];
                if let Some(inner) = schema_at(root, &item) {
                    out.extend(properties(inner).into_iter().map(|n| format!("{name}.{n}")));
                }
                out.push(name);
            }
        }
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn every_argument_says_what_it_takes_and_nothing_else_is_listed() {
        let arguments = arguments();
        assert!(arguments.contains(&"media.seconds".to_string()), "{arguments:?}");
        for name in &arguments {
            assert!(EXPECTED.iter().any(|(k, _)| k == name), "{name} has no line in EXPECTED");
        }
        for (k, _) in EXPECTED {
            assert!(arguments.iter().any(|name| name == k), "{k} in EXPECTED is no tool's argument");
        }
    }

    #[test]
    fn the_schema_is_the_arguments_own() {
        assert_eq!(schemars::schema_for!(Checked<SubmissionArgs>), schemars::schema_for!(SubmissionArgs));
    }
}
