use super::*;

fn file(text: &str) -> ConfigFile {
    parse_file(Path::new("c.toml"), text).expect("parses")
}

const TWO: &str = r#"
    default_profile = "work"
    [profiles.work]
    base_url = "https://api.work.example"
    api_key = "sk-work"
    [profiles.home]
    base_url = "https://api.home.example"
    api_key_cmd = ["pass", "show", "video"]
    [[profiles.home.models]]
    id = "home/vid-3.0/text-to-video"
    family = "A"
"#;

fn run(text: &str, env: Env, flag: Option<&str>) -> Result<Settings, ConfigError> {
    resolve(&file(text), &env, flag, Some("/data".into()))
}

#[test]
fn precedence_of_profile_url_key_and_data_dir() {
    let s = run(TWO, Env::default(), None).expect("ok");
    assert_eq!(s.profile.as_deref(), Some("work"));
    assert_eq!(
        s.target,
        Target::Remote {
            base_url: "https://api.work.example".into(),
            key: KeySource::File { profile: "work".into(), key: "sk-work".into() }
        }
    );
    assert_eq!(s.data_dir, PathBuf::from("/data"));

    let s = run(TWO, Env { profile: Some("home".into()), ..Env::default() }, None).expect("ok");
    assert!(matches!(s.target, Target::Remote { key: KeySource::Command { .. }, .. }));
    assert!(s.catalog.get("home/vid-3.0/text-to-video").is_some(), "profile models join the catalog");

    let s = run(TWO, Env { profile: Some("home".into()), ..Env::default() }, Some("work")).expect("ok");
    assert_eq!(s.profile.as_deref(), Some("work"), "the flag beats REEL_PROFILE");

    let env = Env {
        base_url: Some("http://127.0.0.1:9".into()),
        api_key: Some("k".into()),
        data_dir: Some("/x".into()),
        ..Env::default()
    };
    let s = run(TWO, env, None).expect("ok");
    assert_eq!(s.target, Target::Remote { base_url: "http://127.0.0.1:9".into(), key: KeySource::Env("k".into()) });
    assert_eq!(s.data_dir, PathBuf::from("/x"));
}

#[test]
fn engine_settings_have_defaults_and_are_checked() {
    let s = run("", Env::default(), None).expect("ok");
    assert_eq!(s.engine, EngineSettings::default());
    let s = run("[engine]\nrequests_per_second = 3\nurl_ttl_secs = 60", Env::default(), None).expect("ok");
    assert_eq!((s.engine.requests_per_second, s.engine.url_ttl_secs, s.engine.max_downloads), (3, 60.0, 4));
    assert!(matches!(run("[engine]\nrequests_per_second = 0", Env::default(), None), Err(ConfigError::Engine)));
    assert!(matches!(run("[engine]\nfirst_poll_secs = -1.0", Env::default(), None), Err(ConfigError::Engine)));
    let s = run("[engine]\nmax_file_mb = 300\ndownload_attempts = 2", Env::default(), None).expect("ok");
    assert_eq!((s.engine.max_file_mb, s.engine.download_attempts), (300, 2));
    for zero in ["max_file_mb = 0", "download_attempts = 0"] {
        assert!(matches!(run(&format!("[engine]\n{zero}"), Env::default(), None), Err(ConfigError::Engine)), "{zero}");
    }
}

#[test]
fn pricing_and_actions() {
    let s = run(
        "[pricing]\ncurrency = \"$\"\nper_second = { \"acme/aurora-3.0/text-to-video\" = 0.05 }\n\
         [[actions]]\nkey = \"m\"\nname = \"mpv\"\ncommand = [\"mpv\", \"{path}\"]\n",
        Env::default(),
        None,
    )
    .expect("ok");
    assert_eq!(
        s.pricing.cost("acme/aurora-3.0/text-to-video", 10.0).map(|c| s.pricing.format(c)),
        Some("$0.50".into())
    );
    assert_eq!(s.pricing.cost("other", 10.0), None);
    assert_eq!(s.actions[0].command, vec!["mpv", "{path}"]);
    let s = run("[keys]\nopen = \"p\"\ndown = [\"j\", \"Down\"]\n", Env::default(), None).expect("ok");
    assert_eq!((s.keys["open"].clone(), s.keys["down"].len()), (vec!["p".to_string()], 2));
}

#[test]
fn player_and_editor_from_the_environment() {
    let opener = desktop_opener();
    let o = opener[0].as_str();
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    type Case<'a> = (&'a [(&'a str, &'a str)], Vec<&'a str>, Vec<&'a str>, usize);
    let cases: Vec<Case> = vec![
        (&[], vec![o], vec!["vi"], 0),
        (&[("REEL_PLAYER", "mpv --fs"), ("EDITOR", "nano")], vec!["mpv", "--fs"], vec!["nano"], 0),
        (&[("VISUAL", "code --wait"), ("EDITOR", "nano")], vec![o], vec!["code", "--wait"], 0),
        // Empty or blank is unset: never run the file itself.
        (&[("VISUAL", ""), ("EDITOR", "nano -w")], vec![o], vec!["nano", "-w"], 0),
        (&[("VISUAL", "   "), ("EDITOR", "")], vec![o], vec!["vi"], 0),
        // Quoting as a shell would read it.
        (
            &[("REEL_PLAYER", r#""/Applications/My Player" --title 'a b'"#), ("VISUAL", r#"emacs -nw "#)],
            vec!["/Applications/My Player", "--title", "a b"],
            vec!["emacs", "-nw"],
            0,
        ),
        // Unsplittable or program-less values are passed over, with a warning.
        (&[("VISUAL", "vim 'oops"), ("EDITOR", "nano")], vec![o], vec!["nano"], 1),
        (&[("REEL_PLAYER", "''"), ("VISUAL", "\"\"")], vec![o], vec!["vi"], 2),
    ];
    for (vars, player, editor, warnings) in cases {
        let env = Env::from_lookup(|k| vars.iter().find(|(name, _)| *name == k).map(|(_, v)| v.to_string()));
        let (p, w) = programs(&env);
        assert_eq!((p.player.clone(), p.editor.clone()), (owned(&player), owned(&editor)), "{vars:?}");
        assert_eq!(w.len(), warnings, "{vars:?}: {w:?}");
        let s = run("", env, None).expect("ok");
        assert_eq!(s.programs, p);
        assert_eq!(s.warnings, w, "warnings reach the settings");
    }
}

#[test]
fn batch_threshold_from_the_file_or_twenty() {
    assert_eq!(run("", Env::default(), None).expect("ok").batch.confirm_over, 20);
    let s = run("[batch]\nconfirm_over = 100\n", Env::default(), None).expect("ok");
    assert_eq!(s.batch.confirm_over, 100);
    assert!(parse_file(Path::new("c.toml"), "[batch]\nask_over = 1\n").is_err(), "unknown keys are refused");
}

#[test]
fn batch_bounds_from_the_file_or_their_defaults() {
    let b = run("", Env::default(), None).expect("ok").batch;
    assert_eq!((b.max_file_bytes, b.max_line_bytes, b.max_tasks), (64 << 20, 1 << 20, 10_000));
    let s = run("[batch]\nmax_file_bytes = 1000\nmax_line_bytes = 100\nmax_tasks = 50\n", Env::default(), None)
        .expect("ok");
    assert_eq!((s.batch.max_file_bytes, s.batch.max_line_bytes, s.batch.max_tasks), (1000, 100, 50));
    for key in ["max_file_bytes", "max_line_bytes", "max_tasks"] {
        let e = run(&format!("[batch]\n{key} = 0\n"), Env::default(), None).expect_err("0 refuses everything");
        assert_eq!(e.to_string(), format!("[batch] {key} in the config file must be above 0"));
    }
    assert!(parse_file(Path::new("c.toml"), "[batch]\nmax_tasks = -1\n").is_err());
}

#[test]
fn prompt_bounds_reach_the_catalog() {
    let s = run("", Env::default(), None).expect("ok");
    assert_eq!(s.catalog.text_bounds(), TextBounds::DEFAULT);
    let s = run("[prompt]\nmax_chars = 2500\nmax_negative_chars = 500\n", Env::default(), None).expect("ok");
    assert_eq!(s.catalog.text_bounds(), TextBounds { prompt_chars: 2500, negative_chars: 500 });
    let e = run("[prompt]\nmax_chars = 0\n", Env::default(), None).expect_err("0 refuses every prompt");
    assert_eq!(e.to_string(), "[prompt] max_chars in the config file must be above 0");
    assert!(parse_file(Path::new("c.toml"), "[prompt]\nmax_len = 5\n").is_err(), "unknown keys are refused");
}

#[test]
fn budget_from_the_file() {
    let s = run("[budget]\ndaily = 2.5\n", Env::default(), None).expect("ok");
    assert_eq!(s.budget, Budget { daily: Some(2.5) });
    assert!(parse_file(Path::new("c.toml"), "[budget]\nweekly = 1.0\n").is_err(), "unknown keys are refused");
}

#[test]
fn a_default_model_from_the_file() {
    let s = run("[defaults]\nmodel = \"aurora-3.0/t2v\"\n", Env::default(), None).expect("ok");
    assert_eq!(s.default_model.as_deref(), Some("aurora-3.0/t2v"));
    assert_eq!(run("", Env::default(), None).expect("ok").default_model, None);
    assert!(parse_file(Path::new("c.toml"), "[defaults]\nmodle = \"x\"\n").is_err(), "unknown keys are refused");
}

#[test]
fn nothing_configured_means_demo() {
    let s = run("", Env::default(), None).expect("ok");
    assert_eq!((s.target, s.profile), (Target::Demo, None));
}

#[test]
fn half_configured_is_an_error_naming_the_fix() {
    let e = run("", Env { api_key: Some("k".into()), ..Env::default() }, None).expect_err("no url");
    assert!(e.to_string().contains("REEL_BASE_URL"), "{e}");
    let e = run("", Env { base_url: Some("http://127.0.0.1:9".into()), ..Env::default() }, None).expect_err("no key");
    assert!(e.to_string().contains("REEL_API_KEY"), "{e}");
    let e = run(TWO, Env::default(), Some("play")).expect_err("unknown profile");
    assert_eq!(e.to_string(), "no profile named \"play\"; known: home, work");
}

#[test]
fn malformed_files_name_line_and_problem() {
    let e = parse_file(Path::new("/etc/reel.toml"), "default_profile = \"a\"\n[profiles.a]\nbase_url = 3\n")
        .expect_err("bad type");
    let ConfigError::Parse { line, .. } = &e else { panic!("{e}") };
    assert_eq!(*line, 3);
    assert!(e.to_string().starts_with("config file /etc/reel.toml, line 3, column"), "{e}");
    let e = parse_file(Path::new("c.toml"), "[profiles.a]\napi_kye = \"x\"\n").expect_err("typo");
    assert!(e.to_string().contains("line 2") && e.to_string().contains("api_kye"), "{e}");
    let e = parse_file(Path::new("c.toml"), "x = [\n").expect_err("syntax");
    assert!(matches!(e, ConfigError::Parse { .. }));
}

#[test]
fn keys_from_commands_and_checks() {
    let cmd = KeySource::Command { profile: "p".into(), argv: vec!["echo".into(), "sk-from-cmd".into()] };
    let key = resolve_key(&cmd).expect("runs");
    assert!(!format!("{key:?}").contains("sk-from-cmd"));
    let failing = KeySource::Command { profile: "p".into(), argv: vec!["false".into()] };
    assert!(matches!(resolve_key(&failing), Err(ConfigError::KeyCommand { .. })));
    let missing = KeySource::Command { profile: "p".into(), argv: vec!["/nonexistent/reel-key".into()] };
    assert!(matches!(resolve_key(&missing), Err(ConfigError::KeyCommand { .. })));
    let bad = KeySource::Env("two words".into());
    let e = resolve_key(&bad).expect_err("bad key");
    assert!(!e.to_string().contains("two words"), "the key is never in messages: {e}");
}

#[cfg(unix)]
#[test]
fn warns_when_a_key_file_is_readable_by_others() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "[profiles.a]\nbase_url = \"http://127.0.0.1:1\"\napi_key = \"sk\"\n").expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    assert!(readable_by_others(&path));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    assert!(!readable_by_others(&path));
}

#[test]
fn keys_written_in_a_shape_they_cannot_have_say_how_to_write_them() {
    let how = "[keys] takes a key or a list of keys for each command, as in open = \"Enter\" or down = [\"j\", \"Down\"]; \
               a name with a part goes in quotes: \"history.quit\" = \"x\"";
    let cases = [
        // Unquoted, the dot makes a table named history.
        ("[keys]\nhistory.quit = \"x\"\n", format!("config file c.toml, line 2, column 1: {how}")),
        ("[keys]\nopen = 1\n", format!("config file c.toml, line 2, column 8: {how}")),
        ("[keys]\nopen = [\"p\", 2]\n", format!("config file c.toml, line 2, column 8: {how}")),
        (
            "[[actions]]\nkey = \"mm\"\nname = \"mpv\"\ncommand = [\"mpv\"]\n",
            "config file c.toml, line 2, column 7: invalid value: string \"mm\", expected a character".to_string(),
        ),
    ];
    for (text, want) in cases {
        assert_eq!(parse_file(Path::new("c.toml"), text).map_err(|e| e.to_string()), Err(want), "{text}");
    }
    let s = run("[keys]\n\"history.quit\" = \"x\"\n", Env::default(), None).expect("quoted, it is one name");
    assert_eq!(s.keys["history.quit"], vec!["x".to_string()]);
}

#[test]
fn an_engine_elsewhere_comes_from_a_profile_or_reel_engine_and_remote_from_its_table() {
    let text = r#"
        default_profile = "studio"
        [profiles.studio]
        engine = "ssh://me@studio-box/srv/reel"
        [remote]
        ssh = ["ssh", "-i", "/k/studio"]
        reel = ["/opt/reel/bin/reel"]
    "#;
    let s = run(text, Env::default(), None).expect("a profile with only an engine is whole");
    assert_eq!(s.engine_url.as_deref(), Some("ssh://me@studio-box/srv/reel"));
    assert_eq!(s.remote.ssh, ["ssh", "-i", "/k/studio"]);
    assert_eq!(s.remote.reel, ["/opt/reel/bin/reel"]);
    let env = Env {
        engine: Some("ssh://other".into()),
        ssh: Some("ssh -p 2222".into()),
        remote_reel: Some("'/my reel/reel'".into()),
        ..Env::default()
    };
    let s = run(text, env, None).expect("ok");
    assert_eq!(s.engine_url.as_deref(), Some("ssh://other"), "REEL_ENGINE beats the profile");
    assert_eq!(
        (s.remote.ssh, s.remote.reel),
        (vec!["ssh".into(), "-p".into(), "2222".into()], vec!["/my reel/reel".into()])
    );
    let bad = Env { ssh: Some("ssh 'unclosed".into()), ..Env::default() };
    assert!(run(text, bad, None).is_err(), "REEL_SSH that is not shell words is refused");
    let s = run("", Env::default(), None).expect("ok");
    assert_eq!((s.engine_url, s.remote.ssh, s.remote.reel), (None, vec!["ssh".into()], vec!["reel".into()]));
}

#[test]
fn models_of_any_shape_and_a_broken_one_that_stops_only_itself() {
    let text = r#"
        [pricing]
        per_second = { "sora-2" = 0.2 }
        [[models]]
        id = "sora-2"
        mode = "text-to-video"
        seconds = [4, 8, 12]
        price_per_second = 0.1
        [[models]]
        id = "wan2.7-t2v"
        min_seconds = 2
        max_seconds = 15
        price_per_second = 0.05
        [profiles.gw]
        base_url = "https://gw.example"
        api_key = "sk-gw"
        [[profiles.gw.models]]
        id = "kling-v2-1"
        seconds = [5, 10]
    "#;
    let s = run(text, Env::default(), Some("gw")).expect("a broken model is no broken config");
    assert!(s.catalog.get("sora-2").is_some() && s.catalog.get("wan2.7-t2v").is_some());
    let [broken] = s.catalog.broken() else { panic!("{:?}", s.catalog.broken()) };
    assert_eq!(broken.place, "[[profiles.gw.models]] entry 1");
    assert!(broken.problem.contains("does not say its mode"), "{}", broken.problem);
    // The table's price wins; a model's own price fills in where the table names none.
    assert_eq!((s.pricing.per_second.get("sora-2"), s.pricing.per_second.get("wan2.7-t2v")), (Some(&0.2), Some(&0.05)));
    // A value of the wrong type is an error of its entry, not of the file.
    let s = run("[[models]]\nid = \"sora-2\"\nseconds = \"four\"\n", Env::default(), None).expect("resolves");
    assert!(s.catalog.broken()[0].problem.contains("model \"sora-2\""), "{:?}", s.catalog.broken());
}
