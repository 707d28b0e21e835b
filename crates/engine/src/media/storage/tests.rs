use super::*;

fn settings(text: &str) -> StorageSettings {
    toml::from_str(text).expect("parses")
}

fn creds() -> Credentials {
    Credentials::new("AKIAEXAMPLE", "s3cr3t-value", Some("tok3n-value")).expect("complete")
}

#[test]
fn settings_defaults_follow_the_endpoint() {
    let aws = settings("bucket = \"b-1\"");
    assert_eq!((aws.region(), aws.virtual_hosted(), aws.prefix()), ("us-east-1", true, ""));
    assert_eq!(aws.endpoint_url().expect("ok"), None);
    let other = settings("bucket = \"b-1\"\nendpoint = \"http://127.0.0.1:9000\"\nregion = \"eu\"\nprefix = \"/r/x/\"");
    assert_eq!((other.region(), other.virtual_hosted(), other.prefix()), ("eu", false, "r/x"));
}

#[test]
fn the_bucket_is_in_the_host_name_only_when_virtual_hosted() {
    let cases = [
        (Some("https://s3.example.com"), Some(false), Ok("https://s3.example.com/media/")),
        (Some("https://s3.example.com/"), Some(true), Ok("https://media.s3.example.com/")),
        (Some("http://127.0.0.1:9000"), None, Ok("http://127.0.0.1:9000/media/")),
        (None, None, Ok("https://media.s3.eu-west-1.amazonaws.com/")),
        (None, Some(false), Ok("https://s3.eu-west-1.amazonaws.com/media/")),
        (Some("http://127.0.0.1:9000"), Some(true), Err("virtual_hosted = false")),
        (Some("ftp://s3.example.com"), None, Err("http")),
        (Some("https://s3.example.com/base"), None, Err("without a path")),
        (Some("not a url"), None, Err("endpoint")),
    ];
    for (endpoint, virtual_hosted, want) in cases {
        let s = StorageSettings {
            endpoint: endpoint.map(str::to_string),
            region: Some("eu-west-1".into()),
            virtual_hosted,
            bucket: "media".into(),
            ..StorageSettings::default()
        };
        match (s.bucket_address(), want) {
            (Ok(bucket), Ok(w)) => assert_eq!(bucket.base_url().as_str(), w, "{endpoint:?}"),
            (Err(e), Err(w)) => assert!(e.to_string().contains(w), "{endpoint:?}: {e}"),
            (got, want) => panic!("{endpoint:?}: {got:?} but wanted {want:?}"),
        }
    }
}

#[test]
fn settings_are_checked_before_any_request() {
    let cases = [
        ("bucket = \"\"", Some("bucket")),
        ("bucket = \"a/b\"", Some("bucket")),
        ("bucket = \"ok\"\nprefix = \"a//b\"", Some("prefix")),
        ("bucket = \"ok\"\nprefix = \"a/../b\"", Some("prefix")),
        ("bucket = \"ok\"\ncredentials_cmd = []", Some("credentials_cmd")),
        ("bucket = \"ok\"\nprefix = \"media/reel\"", None),
    ];
    for (text, field) in cases {
        match (settings(text).check(), field) {
            (Ok(()), None) => {}
            (Err(StorageError::BadSettings { field: got, .. }), Some(want)) => assert_eq!(got, want, "{text}"),
            (got, want) => panic!("{text}: {got:?}, wanted {want:?}"),
        }
    }
    assert!(toml::from_str::<StorageSettings>("bucket = \"b\"\nsecret = \"x\"").is_err(), "no secrets in the file");
}

#[test]
fn the_config_file_carries_storage_into_settings() {
    let file = crate::config::parse_file(
        std::path::Path::new("c.toml"),
        "[storage]\nbucket = \"media\"\nendpoint = \"http://127.0.0.1:9000\"\n",
    )
    .expect("parses");
    let env = crate::config::Env { data_dir: Some("/tmp/d".into()), ..Default::default() };
    let resolved = crate::config::resolve(&file, &env, None, None).expect("resolves");
    assert_eq!(resolved.storage.map(|s| s.bucket), Some("media".to_string()));
}

#[test]
fn credentials_come_from_the_environment() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    };
    let full = Credentials::from_env(env(&[
        ("AWS_ACCESS_KEY_ID", "id"),
        ("AWS_SECRET_ACCESS_KEY", "secret\n"),
        ("AWS_SESSION_TOKEN", ""),
    ]))
    .expect("complete");
    assert_eq!(full, Credentials::new("id", "secret", None).expect("complete"));
    let cases: [(&'static [(&'static str, &'static str)], &str); 3] = [
        (&[], "none are set"),
        (&[("AWS_ACCESS_KEY_ID", "id")], "AWS_SECRET_ACCESS_KEY is not set"),
        (&[("AWS_SECRET_ACCESS_KEY", "s"), ("AWS_ACCESS_KEY_ID", " ")], "AWS_ACCESS_KEY_ID is not set"),
    ];
    for (pairs, want) in cases {
        let e = Credentials::from_env(env(pairs)).expect_err("incomplete");
        assert!(matches!(e, StorageError::NoCredentials { .. }), "{e}");
        assert!(e.to_string().contains(want) && e.to_string().contains("credentials_cmd"), "{e}");
    }
}

#[test]
fn credential_process_json_is_parsed_without_quoting_it() {
    let ok = Credentials::from_process_json(
        r#"{"Version": 1, "AccessKeyId": "AKIA1", "SecretAccessKey": "hush", "Expiration": "2030-01-01T00:00:00Z"}"#,
    )
    .expect("valid");
    let at: jiff::Timestamp = "2030-01-01T00:00:00Z".parse().expect("timestamp");
    assert_eq!(ok, Credentials::new("AKIA1", "hush", None).expect("complete").expiring(at));
    let cases = [
        ("hush-hush", ProcessOutputError::NotJson { line: 1, column: 1 }),
        (r#"{"AccessKeyId": "AKIA1"}"#, ProcessOutputError::Incomplete),
        (r#"{"AccessKeyId": 1, "SecretAccessKey": "hush-hush"}"#, ProcessOutputError::NotJson { line: 1, column: 17 }),
    ];
    for (bad, want) in cases {
        let e = Credentials::from_process_json(bad).expect_err("invalid");
        assert_eq!(e, want, "{bad}");
        assert!(!e.to_string().contains("hush"), "{e}");
    }
}

#[tokio::test]
async fn credentials_cmd_runs_without_a_shell_and_failures_name_it() {
    let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let printed = Credentials::from_command(&argv(&[
        "printf",
        r#"{"AccessKeyId":"AKIA2","SecretAccessKey":"hush","SessionToken":"t"}"#,
    ]))
    .await
    .expect("runs");
    assert_eq!(printed, Credentials::new("AKIA2", "hush", Some("t")).expect("complete"));
    for (cmd, want) in [
        (argv(&["false"]), "exit status: 1"),
        (argv(&["/nonexistent/reel-creds"]), "No such file"),
        // Prints "hush-hush", which its arguments do not hold.
        (argv(&["printf", "h%sh-h%sh", "us", "us"]), "credential_process JSON"),
        (argv(&[]), "names no program"),
    ] {
        let e = Credentials::from_command(&cmd).await.expect_err("fails");
        assert!(matches!(e, StorageError::CredentialsCommand { .. }), "{e}");
        assert!(e.to_string().contains(want) && !e.to_string().contains("hush-hush"), "{e}");
    }
}

#[test]
fn debug_output_never_shows_a_secret() {
    let shown = format!("{:?}", creds());
    assert!(!shown.contains("s3cr3t") && !shown.contains("tok3n") && !shown.contains("AKIAEXAMPLE"), "{shown}");
    let s = settings("bucket = \"media\"\nendpoint = \"http://127.0.0.1:1\"");
    let storage = Storage::connect(Some(&s), creds()).expect("connects");
    let shown = format!("{storage:?}");
    assert!(!shown.contains("s3cr3t") && !shown.contains("tok3n"), "{shown}");
}

#[test]
fn without_storage_the_error_says_how_to_configure_it() {
    let e = Storage::connect(None, creds()).expect_err("not configured");
    let text = e.to_string();
    for part in ["[storage]", "bucket", "endpoint", "AWS_ACCESS_KEY_ID", "credentials_cmd"] {
        assert!(text.contains(part), "{part} missing from: {text}");
    }
}

#[test]
fn server_replies_are_read_from_error_text() {
    let cases = [
        (
            "Server returned non-2xx status code: 403 Forbidden: <Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message></Error>",
            (Some("SignatureDoesNotMatch"), Some("The request signature we calculated does not match")),
        ),
        ("<Code>NoSuchBucket</Code>", (Some("NoSuchBucket"), None)),
        ("connection refused", (None, None)),
        ("<Code></Code><Message>", (None, None)),
    ];
    for (text, (code, message)) in cases {
        let (c, m) = server_reply(text);
        assert_eq!((c.as_deref(), m.as_deref()), (code, message), "{text}");
    }
}

#[test]
fn failures_are_classified_by_code_then_status() {
    let status =
        |status: u16, reason: &str, body: &str| Failure::Status { status, reason: reason.into(), body: body.into() };
    let cases = [
        (status(404, "Not Found", "<Error><Code>NoSuchBucket</Code></Error>"), "does not exist"),
        (status(403, "Forbidden", "<Code>InvalidAccessKeyId</Code><Message>no such key</Message>"), "refused access"),
        (status(403, "Forbidden", ""), "bucket \"media\" (HTTP 403 Forbidden)"),
        (status(401, "Unauthorized", ""), "refused access"),
        (
            status(
                500,
                "Internal Server Error",
                "<Code>InternalError</Code><Message>We encountered an internal error</Message>",
            ),
            "InternalError: We encountered an internal error",
        ),
        (status(400, "Bad Request", ""), "reel/ab.png failed: HTTP 400 Bad Request"),
        (Failure::Network("connection refused".into()), "connection refused"),
        (Failure::Unreadable("part 2 came back without an ETag".into()), "without an ETag"),
    ];
    for (failure, want) in cases {
        let e = classify(&failure, "media", "reel/ab.png");
        assert!(e.to_string().contains(want), "{failure}: {e}");
    }
}
