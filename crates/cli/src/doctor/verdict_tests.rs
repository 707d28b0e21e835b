use serde_json::json;

use super::*;

const ID: &str = "reel-doctor-1234abcd";

fn probe(status: u16, body: Value) -> Answered {
    Ok(Probe { status, headers: vec![], body: body.to_string().into_bytes() })
}

fn with_header(a: Answered, name: &str, value: &str) -> Answered {
    a.map(|mut p| {
        p.headers.push((name.into(), value.into()));
        p
    })
}

fn unrouted() -> Answered {
    probe(404, json!({"error": {"code": "not_found", "message": "no such endpoint"}}))
}

fn list(ids: &[&str]) -> Answered {
    let data: Vec<Value> = ids.iter().map(|id| json!({"id": id, "object": "model"})).collect();
    probe(200, json!({"object": "list", "data": data}))
}

/// A healthy service in the spec's shape, as the simulator answers.
fn healthy() -> Seen {
    Seen {
        profile: Some("gw".into()),
        base_url: "http://gw.example".into(),
        used_base: "http://gw.example/".into(),
        origin: "http://gw.example/".into(),
        made_up_id: ID.into(),
        models: list(&["acme/aurora-3.0/text-to-video", "sora-2"]),
        models_no_key: probe(401, json!({"error": {"code": "unauthorized"}})),
        task: probe(404, json!({"error": {"code": "not_found", "message": format!("no task with id {ID}")}})),
        content: unrouted(),
        unrouted: unrouted(),
        root_models: None,
        local_unix: 1_700_000_000,
        config_models: vec!["sora-2".into()],
        known: vec!["acme/aurora-3.0/text-to-video".into(), "sora-2".into()],
        wire: Wire::default(),
    }
}

fn statuses(r: &Report) -> Vec<(&'static str, Status)> {
    r.checks.iter().map(|c| (c.topic, c.status)).collect()
}

/// The checks of a service in the spec's shape with nothing to set.
const ALL_WELL: &[(&str, Status)] = &[
    ("key", Status::Ok),
    ("base URL", Status::Ok),
    ("models", Status::Ok),
    ("wire form", Status::CannotTell),
    ("download", Status::Ok),
    ("clock", Status::CannotTell),
];

#[test]
fn services_judged() {
    use Status::*;
    type Case = (&'static str, fn(&mut Seen), u8, &'static [(&'static str, Status)], &'static [&'static str]);
    let cases: &[Case] = &[
        ("healthy", |_| {}, 0, ALL_WELL, &[]),
        ("unreachable", |s| s.models = Err("connection refused".into()), 2, &[("service", NeedsSetting)], &[]),
        (
            "wrong key",
            |s| {
                s.models = probe(401, json!({"error": {"code": "unauthorized"}}));
                s.task = s.models.clone();
            },
            1,
            &[
                ("key", NeedsSetting),
                ("base URL", Ok),
                ("models", CannotTell),
                ("wire form", CannotTell),
                ("download", Ok),
                ("clock", CannotTell),
            ],
            &["api_key_cmd"],
        ),
        (
            "a path too many",
            |s| {
                s.base_url = "http://gw.example/api".into();
                s.used_base = "http://gw.example/api/".into();
                s.models = unrouted();
                s.task = unrouted();
                s.root_models = Some(list(&["sora-2"]));
            },
            1,
            &[("key", CannotTell), ("base URL", NeedsSetting), ("clock", CannotTell)],
            &["base_url = \"http://gw.example\""],
        ),
        (
            "a path that answers nothing anywhere",
            |s| {
                s.models = unrouted();
                s.task = unrouted();
            },
            1,
            &[("key", CannotTell), ("base URL", NeedsSetting), ("clock", CannotTell)],
            &[],
        ),
        (
            "a trailing /v1 is only a note",
            |s| s.base_url = "http://gw.example/v1/".into(),
            0,
            &[
                ("key", Ok),
                ("base URL", Note),
                ("base URL", Ok),
                ("models", Ok),
                ("wire form", CannotTell),
                ("download", Ok),
                ("clock", CannotTell),
            ],
            &[],
        ),
        (
            "a config model the service does not list",
            |s| s.config_models.push("sora-3".into()),
            1,
            &[
                ("key", Ok),
                ("base URL", Ok),
                ("models", Ok),
                ("models", NeedsSetting),
                ("wire form", CannotTell),
                ("download", Ok),
                ("clock", CannotTell),
            ],
            &[],
        ),
        (
            "listed models without rules are a note",
            |s| s.known.retain(|k| k != "sora-2"),
            0,
            &[
                ("key", Ok),
                ("base URL", Ok),
                ("models", Ok),
                ("models", Note),
                ("wire form", CannotTell),
                ("download", Ok),
                ("clock", CannotTell),
            ],
            &[],
        ),
        (
            "OpenAI's API without wire = openai",
            |s| s.models = with_header(s.models.clone(), "openai-version", "2020-10-01"),
            1,
            &[
                ("key", Ok),
                ("base URL", Ok),
                ("models", Ok),
                ("wire form", NeedsSetting),
                ("download", Ok),
                ("clock", CannotTell),
            ],
            &["wire = \"openai\""],
        ),
        (
            "OpenAI's error shape with wire = openai set",
            |s| {
                s.task = probe(
                    404,
                    json!({"error": {"message": "Video not found", "type": "invalid_request_error", "param": null, "code": null}}),
                );
                s.wire.form = BodyForm::Openai;
            },
            0,
            &[
                ("key", Ok),
                ("base URL", Ok),
                ("models", Ok),
                ("wire form", Ok),
                ("download", Ok),
                ("clock", CannotTell),
            ],
            &[],
        ),
        (
            "a new-api gateway: cannot tell the body, /content is a route",
            |s| {
                s.task = probe(400, json!({"code": "task_not_exist", "message": "task_not_exist", "data": null}));
                s.content = probe(404, json!({"error": {"message": "video_not_ready", "type": "new_api_error"}}));
            },
            0,
            ALL_WELL,
            &[],
        ),
        (
            "a clock far off",
            |s| s.models = with_header(s.models.clone(), "date", "Tue, 14 Nov 2023 22:23:20 GMT"),
            1,
            &[
                ("key", Ok),
                ("base URL", Ok),
                ("models", Ok),
                ("wire form", CannotTell),
                ("download", Ok),
                ("clock", NeedsSetting),
            ],
            &[],
        ),
    ];
    for (name, change, code, checks, set) in cases {
        let mut seen = healthy();
        change(&mut seen);
        let r = judge(&seen);
        assert_eq!((r.exit_code(), statuses(&r).as_slice()), (*code, *checks), "{name}: {:#?}", r.checks);
        for line in *set {
            assert!(r.set.iter().any(|l| l.starts_with(line)), "{name}: {:?} lacks {line}", r.set);
        }
        if set.is_empty() {
            assert!(r.set.is_empty(), "{name}: {:?}", r.set);
        }
    }
}

#[test]
fn download_route_told_from_an_unrouted_path() {
    let mut seen = healthy();
    let said = |s: &Seen| judge(s).checks.into_iter().find(|c| c.topic == "download").map(|c| c.detail);
    assert!(said(&seen).is_some_and(|d| d.contains("no /v1/videos/{id}/content route")));
    seen.content = probe(404, json!({"error": {"code": "video_not_found", "message": format!("no video {ID}")}}));
    assert!(said(&seen).is_some_and(|d| d.contains("the service has GET /v1/videos/{id}/content")));
}

#[test]
fn shapes_ignore_ids_and_numbers() {
    let a = probe(404, json!({"error": {"message": "no such endpoint (request id: 2024abc)"}})).expect("probe");
    let b = probe(404, json!({"error": {"message": "no such endpoint (request id: 1999abc)"}})).expect("probe");
    assert_eq!(shape(&a, ID), shape(&b, ID));
    let c = probe(404, json!({"error": {"message": format!("no task {ID}")}})).expect("probe");
    assert_ne!(shape(&a, ID), shape(&c, ID));
}

#[test]
fn clock_offsets_from_the_date_header() {
    let p = with_header(list(&[]), "date", "Tue, 14 Nov 2023 22:13:20 GMT").expect("probe");
    assert_eq!(clock_offset(&p, 1_700_000_000), Some(0));
    assert_eq!(clock_offset(&p, 1_700_000_030), Some(-30));
    let bad = with_header(list(&[]), "date", "yesterday").expect("probe");
    assert_eq!(clock_offset(&bad, 0), None);
}
