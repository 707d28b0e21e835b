//! A big batch through the engine process: journaled in one submission, announced to every
//! attached client as one event (so no client falls behind and misses news), and a client
//! that did miss news can ask where its tasks stand.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use std::time::Instant;

use crate::common::folder::*;
use crate::common::*;
use reel_engine::Event;
use reel_engine::journal::Part;
use reel_rules::{Catalog, Draft, UnknownModels, validate};

#[tokio::test(flavor = "multi_thread")]
async fn a_batch_of_six_thousand_reaches_another_client_as_one_event_and_nothing_is_missed() {
    let sim = start(slow_sim()).await;
    // Two requests a second: the sends trickle, the journaling is what is looked at.
    let f = folder(30.0, 2);
    let settings = settings_for(&f, &sim);
    let reach = reel_engine::session::Reach::Service(f.launch(&sim));
    let mut watcher = reel_engine::session::attach(&settings, &reach).await.expect("watcher attached");
    let sender = reel_engine::session::attach(&settings, &reach).await.expect("sender attached");
    let draft = Draft { model: MODEL.into(), prompt: "a fox, take {n}".into(), ..Draft::default() };
    let valid = validate(&draft, &Catalog::builtin(), UnknownModels::Reject).expect("valid");
    let parts: Vec<Part> = (0..60).map(|_| Part { submission: valid.clone(), count: 100, parent: None }).collect();
    let records = sender.engine.submit_parts(parts).await.expect("journaled");
    assert_eq!(records.len(), 6_000);
    let batch = records[0].batch_id;
    assert!(records.iter().all(|r| r.batch_id == batch && batch.is_some()));

    let deadline = Instant::now() + PATIENCE;
    let announced = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, watcher.events.recv()).await.expect("events in time") {
            Some(Event::Tasks(updates)) => break updates,
            Some(Event::Missed) => panic!("the watcher missed news"),
            Some(Event::Task(u)) => assert!(u.record.batch_id != batch, "a task of the batch came alone: {u:?}"),
            Some(_) => {}
            None => panic!("the engine went away"),
        }
    };
    let ids: Vec<i64> = announced.iter().map(|u| u.record.id).collect();
    assert_eq!(ids, records.iter().map(|r| r.id).collect::<Vec<_>>(), "one event, every task, in order");

    // Where tasks stand, as a client that missed news asks it; unknown ids are left out.
    let asked = vec![records[5].id, records[0].id, 999_999, records[5_999].id];
    let now = watcher.engine.tasks(asked).await.expect("tasks");
    let got: Vec<i64> = now.iter().map(|r| r.id).collect();
    assert_eq!(got, vec![records[0].id, records[5].id, records[5_999].id]);
    assert!(now.iter().all(|r| r.batch_id == batch));

    let (code, _, err) = f.run(&sim, &["engine", "stop", "--force"]).await;
    assert_eq!(code, 0, "{err}");
    watcher.engine.shutdown().await;
    sender.engine.shutdown().await;
}
