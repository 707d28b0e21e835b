use super::*;
use reel_rules::OverBudget;

fn priced(cost: f64) -> Quote {
    Quote { cost, exact: true, unpriced: 0, tasks: 1 }
}

fn part(key: &str, count: u32, each: Quote) -> Candidate {
    Candidate { key: key.into(), count, each }
}

fn limits() -> Limits {
    Limits {
        budget: Budget { daily: Some(10.0) },
        pricing: Pricing { currency: "$".into(), ..Pricing::default() },
        agents: AgentsSettings { submit: true, daily: Some(1.0), daily_tasks: Some(10), max_tasks_per_call: 4 },
        max_tasks: 100,
    }
}

fn agent() -> Sender {
    Sender::Agent { name: "claude".into() }
}

type Case = (&'static str, Limits, Sender, bool, Vec<Candidate>, Today, Result<u32, &'static str>);

#[test]
fn admission_decisions() {
    let user = Sender::User;
    let t = |spent, agent_tasks, agent_spent| Today { spent, agent_tasks, agent_spent };
    let cases: Vec<Case> = vec![
        (
            "a user within the budget",
            limits(),
            user.clone(),
            false,
            vec![part("a", 2, priced(1.0))],
            t(5.0, 0, 0.0),
            Ok(2),
        ),
        ("exactly the budget", limits(), user.clone(), false, vec![part("a", 5, priced(1.0))], t(5.0, 0, 0.0), Ok(5)),
        (
            "past the budget",
            limits(),
            user.clone(),
            false,
            vec![part("a", 6, priced(1.0))],
            t(5.0, 0, 0.0),
            Err("[budget] daily; add --yes"),
        ),
        (
            "past the budget with the user's yes",
            limits(),
            user.clone(),
            true,
            vec![part("a", 6, priced(1.0))],
            t(5.0, 0, 0.0),
            Ok(6),
        ),
        (
            "unpriced never asks",
            limits(),
            user.clone(),
            false,
            vec![part("a", 3, Quote { unpriced: 1, ..priced(0.0) })],
            t(50.0, 0, 0.0),
            Ok(3),
        ),
        (
            "at most counts",
            limits(),
            user.clone(),
            false,
            vec![part("a", 1, Quote { exact: false, ..priced(6.0) })],
            t(5.0, 0, 0.0),
            Err("this adds at most $6.00"),
        ),
        (
            "past max_tasks, whoever sends",
            limits(),
            user.clone(),
            true,
            vec![part("a", 60, priced(0.0)), part("b", 41, priced(0.0))],
            t(0.0, 0, 0.0),
            Err("makes 101 tasks, past the engine's [batch] max_tasks = 100"),
        ),
        (
            "agents off",
            Limits { agents: AgentsSettings::default(), ..limits() },
            agent(),
            false,
            vec![part("a", 1, priced(0.0))],
            t(0.0, 0, 0.0),
            Err("[agents] submit is false"),
        ),
        (
            "an agent per call",
            limits(),
            agent(),
            false,
            vec![part("a", 5, priced(0.0))],
            t(0.0, 0, 0.0),
            Err("max_tasks_per_call = 4"),
        ),
        (
            "an agent's day in tasks",
            limits(),
            agent(),
            false,
            vec![part("a", 3, priced(0.0))],
            t(0.0, 8, 0.0),
            Err("daily_tasks = 10 allows 2 more"),
        ),
        (
            "an agent's day, the last ones",
            limits(),
            agent(),
            false,
            vec![part("a", 2, priced(0.0))],
            t(0.0, 8, 0.0),
            Ok(2),
        ),
        (
            "an agent's day in money",
            limits(),
            agent(),
            false,
            vec![part("a", 1, priced(0.4))],
            t(0.0, 0, 0.65),
            Err("[agents] daily = $1.00"),
        ),
        (
            "an agent cannot say yes to the budget",
            limits(),
            agent(),
            true,
            vec![part("a", 1, priced(0.5))],
            t(9.8, 0, 0.0),
            Err("an agent cannot say yes"),
        ),
        (
            "an agent's at-most counts",
            limits(),
            agent(),
            false,
            vec![part("a", 1, Quote { exact: false, ..priced(0.9) })],
            t(0.0, 0, 0.2),
            Err("costs at most $0.90"),
        ),
    ];
    for (name, limits, sender, yes, parts, today, want) in cases {
        let ask = Ask { sender: &sender, over_budget: yes, resume: false, retry_failed: false, parts: &parts };
        let got = admit(&limits, &ask, today, &HashMap::new());
        match (got, want) {
            (Ok(a), Ok(n)) => assert_eq!(a.tasks(), n, "{name}"),
            (Err(e), Err(words)) => assert!(e.to_string().contains(words), "{name}: {e}"),
            (got, want) => panic!("{name}: {got:?}, wanted {want:?}"),
        }
    }
}

#[test]
fn a_resumed_run_sends_what_the_journal_lacks() {
    type Resume = (&'static str, Vec<(&'static str, u32)>, Vec<(&'static str, u32)>, Vec<(u32, u32)>, u32);
    let cases: Vec<Resume> = vec![
        ("nothing sent yet", vec![("a", 1), ("b", 2)], vec![], vec![(1, 0), (2, 0)], 0),
        ("all sent", vec![("a", 1), ("b", 2)], vec![("a", 1), ("b", 2)], vec![(0, 1), (0, 2)], 3),
        ("copies grew from 1 to 3", vec![("a", 3)], vec![("a", 1)], vec![(2, 1)], 1),
        ("the same line twice, sent once", vec![("a", 1), ("a", 1)], vec![("a", 1)], vec![(1, 1), (0, 2)], 1),
        ("the same line twice, first run", vec![("a", 1), ("a", 1)], vec![], vec![(1, 0), (1, 1)], 0),
    ];
    for (name, parts, had, want, left_out) in cases {
        let parts: Vec<Candidate> = parts.into_iter().map(|(k, n)| part(k, n, priced(0.0))).collect();
        let existing: HashMap<String, RowTally> = had.into_iter().map(|(k, n)| (k.to_string(), sent(n, 0))).collect();
        let ask = Ask { sender: &Sender::User, over_budget: false, resume: true, retry_failed: false, parts: &parts };
        let got = admit(&limits(), &ask, Today::default(), &existing).expect("admitted");
        assert_eq!((got.take, got.left_out), (want, left_out), "{name}");
    }
    // Not resumed: every copy, numbered after those the journal holds.
    let parts = vec![part("a", 2, priced(0.0))];
    let existing: HashMap<String, RowTally> = [("a".to_string(), sent(3, 0))].into_iter().collect();
    let ask = Ask { sender: &Sender::User, over_budget: false, resume: false, retry_failed: false, parts: &parts };
    assert_eq!(admit(&limits(), &ask, Today::default(), &existing).expect("admitted").take, vec![(2, 3)]);
}

fn sent(sent: u32, failed: u32) -> RowTally {
    RowTally { sent, failed, batch: Some(1) }
}

#[test]
fn a_retry_sends_again_what_ended_without_a_video_under_new_ordinals() {
    // (name, parts asked, journal (key, sent, failed), retry_failed, take, left out)
    type Retry = (&'static str, Vec<(&'static str, u32)>, Vec<(&'static str, u32, u32)>, bool, Vec<(u32, u32)>, u32);
    let cases: Vec<Retry> = vec![
        ("a failed row, without the flag", vec![("a", 1)], vec![("a", 1, 1)], false, vec![(0, 1)], 1),
        ("a failed row, retried", vec![("a", 1)], vec![("a", 1, 1)], true, vec![(1, 1)], 0),
        ("two of three failed", vec![("a", 3)], vec![("a", 3, 2)], true, vec![(2, 3)], 1),
        (
            "saved rows stay saved",
            vec![("a", 2), ("b", 1)],
            vec![("a", 2, 0), ("b", 1, 1)],
            true,
            vec![(0, 2), (1, 1)],
            2,
        ),
        ("retried twice over", vec![("a", 1)], vec![("a", 2, 2)], true, vec![(1, 2)], 0),
        ("copies grew and one failed", vec![("a", 3)], vec![("a", 2, 1)], true, vec![(2, 2)], 1),
    ];
    for (name, parts, had, retry_failed, want, left_out) in cases {
        let parts: Vec<Candidate> = parts.into_iter().map(|(k, n)| part(k, n, priced(0.0))).collect();
        let existing: HashMap<String, RowTally> =
            had.into_iter().map(|(k, n, f)| (k.to_string(), sent(n, f))).collect();
        let ask = Ask { sender: &Sender::User, over_budget: false, resume: true, retry_failed, parts: &parts };
        let got = admit(&limits(), &ask, Today::default(), &existing).expect("admitted");
        assert_eq!((got.take, got.left_out), (want, left_out), "{name}");
    }
}

#[test]
fn only_admitted_tasks_are_priced() {
    // Two already sent of a $3 row: the run adds one, within a $10 budget with $6 spent.
    let parts = vec![part("a", 3, priced(3.0))];
    let existing: HashMap<String, RowTally> = [("a".to_string(), sent(2, 0))].into_iter().collect();
    let ask = Ask { sender: &Sender::User, over_budget: false, resume: true, retry_failed: false, parts: &parts };
    let got = admit(&limits(), &ask, Today { spent: 6.0, ..Today::default() }, &existing).expect("admitted");
    assert_eq!((got.tasks(), got.quote.cost), (1, 3.0));
}

#[test]
fn idempotency_keys_follow_the_content_and_its_ordinal() {
    let k = idempotency_key("salt", "key", 0);
    assert_eq!(k.len(), 32);
    assert_eq!(k, idempotency_key("salt", "key", 0), "the same request is the same key");
    assert_ne!(k, idempotency_key("salt", "key", 1), "another take is another key");
    assert_ne!(k, idempotency_key("pepper", "key", 0), "another journal's is another key");
}

#[test]
fn a_budget_refusal_says_what_to_do() {
    let over = OverBudget { planned: 2.0, exact: true, spent: 9.0, daily: 10.0, currency: "$".into() };
    let user = Limit::Budget { over: over.clone(), agent: false }.to_string();
    assert_eq!(
        user,
        "this adds $2.00 to the $9.00 spent today, past the daily budget of $10.00 ([budget] daily; add --yes to send anyway)"
    );
    assert!(Limit::Budget { over, agent: true }.to_string().ends_with("an agent cannot say yes to it)"));
}
