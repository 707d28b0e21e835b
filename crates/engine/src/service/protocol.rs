//! The messages between a client and the engine process: JSON, one message a line, versioned.
//! A client opens with `Hello`; the engine answers `Welcome` (or `Refused`), then both sides
//! send as they please: requests and their replies (matched by `seq`), and every engine event.

use serde::{Deserialize, Serialize};

pub use super::super::calls::{Answer, DraftPart, Request};
use super::super::{Event, Refused};

/// Bumped whenever a message changes shape; a client and an engine must agree on it.
/// 3: a submission is a list of parts, journaled as one batch.
/// 4: a batch is announced as one `tasks` event; `tasks` asks for tasks as they stand;
/// `import` journals entries rebuilt from files.
/// 5: `Review` (rating, pick, tags) and the review on every task record.
/// 6: `Read` (the journal read through the engine) and `Fetch` (saved files), for clients on
/// another machine.
/// 7: one API for every operation (`calls`): a submission is admitted by the engine against
/// its limits, refusals are typed (`Refused`), and the status names the engine's config.
pub const PROTOCOL: u32 = 7;
/// Longest line the engine reads (and a client sends): a task row is a few kilobytes, and a
/// submission of 10,000 tasks with short prompts is about 8 MiB.
pub const MAX_LINE: usize = 64 << 20;
/// Longest line a client reads: the answer to a submission carries every row journaled, a
/// little more than the request that made them.
pub const MAX_ANSWER: usize = 2 * MAX_LINE;

pub use super::status::{Decides, Served, Status};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToEngine {
    Hello { protocol: u32, version: String },
    Request { seq: u64, request: Request },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromEngine {
    Welcome {
        protocol: u32,
        status: Box<Status>,
    },
    /// The engine will not serve this client; `replaceable` when it is idle and exits now so
    /// that the client can start an engine of its own version.
    Refused {
        reason: String,
        replaceable: bool,
    },
    Reply {
        seq: u64,
        result: Result<Answer, Refused>,
    },
    Event {
        event: Event,
    },
    /// Events were dropped for this client (it read too slowly): read the store again.
    Lagged,
    /// The engine is stopping.
    Stopping,
}

/// One message as a line of JSON (without the newline).
pub fn encode<T: Serialize>(message: &T) -> Result<String, serde_json::Error> {
    serde_json::to_string(message)
}

pub fn decode<'a, T: Deserialize<'a>>(line: &'a str) -> Result<T, serde_json::Error> {
    serde_json::from_str(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ServiceState, TaskUpdate};
    use reel_rules::Draft;
    use reel_store::LocalState;
    use reel_store::TaskRecord;
    use reel_store::fixtures::record;

    #[test]
    fn every_message_round_trips() {
        let served = Served { profile: Some("work".into()), base_url: Some("https://a/".into()), key_id: None };
        let status = Status {
            pid: 7,
            version: "0.1.0".into(),
            started_at_ms: 1,
            socket: "/tmp/s".into(),
            clients: 2,
            unfinished: 3,
            requests_in_flight: 1,
            downloads: 0,
            service: ServiceState {
                health: crate::Health::RateLimited,
                paused_until_ms: Some(99),
                ..ServiceState::default()
            },
            serves: served,
            decides: Decides(vec![("[agents] daily_tasks".into(), "10".into())]),
        };
        let to: Vec<ToEngine> = vec![
            ToEngine::Hello { protocol: PROTOCOL, version: "0.1.0".into() },
            ToEngine::Request {
                seq: 1,
                request: Request::Submit(Box::new(crate::Submission {
                    parts: vec![
                        DraftPart { draft: Draft { prompt: "p".into(), ..Draft::default() }, count: 2, parent: None },
                        DraftPart {
                            draft: Draft { prompt: "q".into(), ..Draft::default() },
                            count: 1,
                            parent: Some(4),
                        },
                    ],
                    sender: crate::admission::Sender::Agent { name: "claude".into() },
                    ..Default::default()
                })),
            },
            ToEngine::Request { seq: 2, request: Request::Stop { force: true } },
            ToEngine::Request { seq: 3, request: Request::Tasks { ids: vec![4, 9] } },
            ToEngine::Request {
                seq: 3,
                request: Request::Review { id: 4, change: reel_store::review::Change::Tag(vec!["keeper".into()]) },
            },
            ToEngine::Request {
                seq: 4,
                request: Request::Review { id: 4, change: reel_store::review::Change::Rate(None) },
            },
        ];
        for m in to {
            assert_eq!(decode::<ToEngine>(&encode(&m).expect("encodes")).expect("decodes"), m);
        }
        let from: Vec<FromEngine> = vec![
            FromEngine::Welcome { protocol: PROTOCOL, status: Box::new(status.clone()) },
            FromEngine::Refused { reason: "old".into(), replaceable: true },
            FromEngine::Reply {
                seq: 3,
                result: Ok(Answer::Tasks(vec![
                    TaskRecord { batch_id: Some(1), ..record(1, LocalState::Waiting) },
                    TaskRecord { batch_id: Some(1), ..record(2, LocalState::Waiting) },
                ])),
            },
            FromEngine::Reply { seq: 4, result: Err(Refused::NoTask { id: 9 }) },
            FromEngine::Reply { seq: 5, result: Ok(Answer::Status(Box::new(status))) },
            FromEngine::Event {
                event: Event::Task(Box::new(TaskUpdate { record: record(2, LocalState::Queued), eta_ms: Some(5) })),
            },
            FromEngine::Event {
                event: Event::Tasks(vec![
                    TaskUpdate { record: record(3, LocalState::Waiting), eta_ms: None },
                    TaskUpdate { record: record(4, LocalState::Waiting), eta_ms: Some(9) },
                ]),
            },
            FromEngine::Reply {
                seq: 6,
                result: Ok(Answer::Task(Box::new(TaskRecord {
                    review: reel_store::Review { rating: Some(4), picked: true, tags: vec!["keeper".into()] },
                    ..record(3, LocalState::Downloaded)
                }))),
            },
            FromEngine::Event { event: Event::Transfer { id: 1, bytes: 2, total: None, rate: 0.5 } },
            FromEngine::Lagged,
            FromEngine::Stopping,
        ];
        for m in from {
            let line = encode(&m).expect("encodes");
            assert!(!line.contains('\n'), "one line");
            assert_eq!(decode::<FromEngine>(&line).expect("decodes"), m);
        }
    }

    #[test]
    fn the_batch_id_travels_and_a_record_without_one_still_reads() {
        let sent = TaskRecord { batch_id: Some(7), ..record(8, LocalState::Queued) };
        let event = FromEngine::Event { event: Event::Task(Box::new(TaskUpdate { record: sent, eta_ms: None })) };
        let line = encode(&event).expect("encodes");
        assert!(line.contains(r#""batch_id":7"#), "{line}");
        assert_eq!(decode::<FromEngine>(&line).expect("decodes"), event);
        // A record as a reel before batch ids wrote it.
        let mut old = serde_json::to_value(record(3, LocalState::Queued)).expect("json");
        old.as_object_mut().expect("object").remove("batch_id");
        let read: TaskRecord = serde_json::from_value(old).expect("reads without the field");
        assert_eq!(read.batch_id, None);
        // And as a reel before reviews wrote it.
        let mut old = serde_json::to_value(record(3, LocalState::Queued)).expect("json");
        for field in ["rating", "picked", "tags"] {
            old.as_object_mut().expect("object").remove(field).expect("a field of the record");
        }
        let read: TaskRecord = serde_json::from_value(old).expect("reads without a review");
        assert_eq!(read.review, reel_store::Review::default());
    }

    #[test]
    fn a_refusal_is_its_kind_and_numbers_on_the_wire() {
        let line = encode(&FromEngine::Reply { seq: 4, result: Err(Refused::NoTask { id: 9 }) }).expect("encodes");
        assert_eq!(line, r#"{"type":"reply","seq":4,"result":{"Err":{"kind":"no_task","id":9}}}"#);
        let done = encode(&FromEngine::Reply { seq: 5, result: Ok(Answer::Done) }).expect("encodes");
        assert_eq!(done, r#"{"type":"reply","seq":5,"result":{"Ok":{"answer":"done"}}}"#);
    }

    #[test]
    fn a_config_that_differs_from_the_engines_is_named_setting_by_setting() {
        let d = |pairs: &[(&str, &str)]| Decides(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
        let engine =
            d(&[("[engine] requests_per_second", "200"), ("[agents] daily_tasks", "10"), ("[budget] daily", "none")]);
        let ours =
            d(&[("[engine] requests_per_second", "10"), ("[agents] daily_tasks", "10"), ("[budget] daily", "none")]);
        assert_eq!(ours.differences(&engine), ["[engine] requests_per_second: the engine's 200, this config's 10"]);
        assert!(ours.differences(&ours.clone()).is_empty());
    }

    #[test]
    fn a_different_target_is_named() {
        let a = Served { profile: Some("work".into()), base_url: Some("https://a/".into()), key_id: Some("k1".into()) };
        assert_eq!(a.difference(&a.clone()), None);
        let other_url = Served { base_url: Some("https://b/".into()), ..a.clone() };
        assert!(a.difference(&other_url).is_some_and(|d| d.contains("https://b/")));
        let other_key = Served { key_id: Some("k2".into()), ..a.clone() };
        assert!(a.difference(&other_key).is_some_and(|d| d.contains("API key")));
        let demo = Served { profile: Some("demo".into()), base_url: None, key_id: None };
        assert!(a.difference(&demo).is_some_and(|d| d.contains("demo")));
    }
}
