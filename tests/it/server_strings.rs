//! Strings a server sends with control sequences in them (OSC 52 clipboard writes, screen
//! clears, C1 CSI, bidi overrides) are made safe where they come in: the journal, `--json` read
//! back by a decoder (as `jq -r` does) and the CSV export carry none, on the binary against the
//! simulator's hostile strings over 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly on purpose")]

use crate::common::folder::*;
use crate::common::*;
use reel_sim::{Hostile, LifecycleConfig, SimConfig};
use serde_json::Value;

fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.push(k.clone());
            strings(x, out)
        }),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn what_a_server_sent_is_safe_even_decoded() {
    let failing = LifecycleConfig { failure_rate: 1.0, ..slow_sim().lifecycle };
    let hostile = Hostile { task_strings: true, ..Hostile::default() };
    let sim = start(SimConfig { lifecycle: failing, hostile, ..slow_sim() }).await;
    let f = folder(60.0, 50);
    let (code, out, err) = f.run(&sim, &["submit", "-m", MODEL, "-s", "5", "--wait", "--json", "a heron"]).await;
    assert_eq!(code, 1, "it fails, as the sim says: {out}\n{err}");
    for args in [&["list", "--json"][..], &["show", "1", "--json"], &["history", "export", "--format", "jsonl"]] {
        let (code, out, err) = f.run(&sim, args).await;
        assert_eq!(code, 0, "{args:?}: {err}");
        let mut found = Vec::new();
        for line in if args[0] == "history" { out.lines().map(str::to_string).collect() } else { vec![out.clone()] } {
            strings(&serde_json::from_str(&line).expect("json"), &mut found);
        }
        let message =
            found.iter().find(|s| s.contains("52;c;")).unwrap_or_else(|| panic!("{args:?}: the message: {out}"));
        assert!(message.contains("\\u001b]52;c;"), "shown, as a visible escape: {message}");
        for s in &found {
            assert!(!s.chars().any(reel_rules::text::is_unsafe), "{args:?}: decoded, {s:?} is unsafe");
        }
    }
    let (_, csv, _) = f.run(&sim, &["history", "export", "--format", "csv"]).await;
    assert!(!csv.chars().any(reel_rules::text::is_unsafe) && csv.contains("\\u001b]52;c;"), "{csv}");
    // What the journal itself holds.
    let tasks = reel_engine::query::list(&f.data.join("reel.db"), None, None, 10).expect("journal");
    let kept = serde_json::to_string(&tasks[0].error).expect("json");
    let back: Value = serde_json::from_str(&kept).expect("json");
    let mut found = Vec::new();
    strings(&back, &mut found);
    assert!(found.iter().all(|s| !s.chars().any(reel_rules::text::is_unsafe)), "the journal: {found:?}");
    let _ = f.run(&sim, &["engine", "stop"]).await;
    sim.stop().await;
}
