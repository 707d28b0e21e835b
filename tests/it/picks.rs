//! One pick rule everywhere, on the binary against the simulator on 127.0.0.1: a pick is the
//! winner of its batch, so picking another take of the batch moves it, and says so.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use crate::common::folder::*;
use crate::common::*;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread")]
async fn picking_another_take_of_a_batch_moves_the_pick_and_says_so() {
    let sim = start(slow_sim()).await;
    let f = folder(60.0, 50);
    let (code, out, err) =
        f.run(&sim, &["submit", "-m", MODEL, "-s", "5", "-n", "3", "--wait", "--json", "a heron"]).await;
    assert_eq!(code, 0, "{out}\n{err}");
    let takes: Vec<Value> = serde_json::from_str(&out).expect("json");
    let ids: Vec<String> = takes.iter().map(|t| t["id"].as_i64().expect("id").to_string()).collect();
    let batch = takes[0]["batch_id"].as_i64().expect("one batch");
    let (code, _, err) = f.run(&sim, &["pick", &ids[0]]).await;
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("is now the pick"), "nothing moved: {err}");
    let (code, out, err) = f.run(&sim, &["pick", &ids[1]]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("picked"), "{out}");
    let said = format!("#{} is now the pick of batch {batch}; #{} was", ids[1], ids[0]);
    assert!(err.contains(&said), "{err}");
    let (_, out, _) = f.run(&sim, &["list", "--json", "--batch", &batch.to_string()]).await;
    let listed: Vec<Value> = serde_json::from_str(&out).expect("json");
    let picked: Vec<i64> =
        listed.iter().filter(|t| t["picked"] == true).map(|t| t["id"].as_i64().expect("id")).collect();
    assert_eq!(picked, vec![ids[1].parse::<i64>().expect("id")], "one winner per batch: {out}");
    let (_, shown, _) = f.run(&sim, &["show", &ids[0]]).await;
    assert!(shown.contains(&format!("the pick of batch {batch} went to task {}", ids[1])), "{shown}");
    let _ = f.run(&sim, &["engine", "stop"]).await;
    sim.stop().await;
}
