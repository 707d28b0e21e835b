use super::*;
use clap::Parser;

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    sim: SimArgs,
}

/// The config the arguments give, or the words of their refusal (clap's, or the config's).
fn config(args: &[&str]) -> Result<SimConfig, Box<dyn std::error::Error>> {
    let cli = Cli::try_parse_from(std::iter::once("sim").chain(args.iter().copied()))?;
    Ok(cli.sim.config(Catalog::builtin())?)
}

#[test]
fn defaults_are_the_plain_simulator() {
    let c = config(&[]).expect("defaults parse");
    assert_eq!(c.hostile, Hostile::default());
    assert_eq!(c.faults, Faults::default());
    assert_eq!(c.lifecycle, LifecycleConfig::default());
}

#[test]
fn hostile_flags_reach_the_config() {
    let c = config(&[
        "--hostile-trickle",
        "first:2",
        "--trickle-bytes",
        "10",
        "--trickle-every-secs",
        "0.5",
        "--hostile-range-lying",
        "every:3",
        "--hostile-overlong",
        "0.5",
        "--hostile-status",
        "padded",
        "--hostile-id",
        "encoded-dotdot",
        "--hostile-url",
        "javascript",
        "--hostile-progress",
        "nan",
        "--hostile-strings",
        "--hostile-tasks",
        "every:2",
        "--hostile-huge",
        "always",
        "--huge-bytes",
        "1000",
        "--api-redirect-status",
        "308",
        "--storm-secs",
        "30",
        "--storm-after-secs",
        "5",
        "--retry-after-date",
        "--hostile-unavailable",
        "first:3",
        "--media-head-405",
        "--hostile-file-endless",
        "first:1",
        "--hostile-file-cut-clean",
        "every:2",
        "--hostile-file-redirect-scheme",
        "always",
    ])
    .expect("parses");
    let h = c.hostile;
    assert_eq!((h.trickle, h.trickle_head, h.trickle_every), (Trigger::First(2), 10, Some(Duration::from_millis(500))));
    assert_eq!(
        (h.range_lying, h.overlong, h.huge, h.huge_bytes),
        (Trigger::Every(3), Trigger::Chance(0.5), Trigger::Always, 1000)
    );
    assert_eq!(h.task_status, Some(HostileStatus::Padded));
    assert_eq!(h.task_id, Some(HostileId::EncodedDotDot));
    assert_eq!(h.task_url, Some(HostileUrl::Javascript));
    assert_eq!(h.task_progress, Some(HostileProgress::NaN));
    assert!(h.task_strings && h.media_head_405 && !h.media_wrong_type);
    assert_eq!(h.tasks, Trigger::Every(2));
    assert_eq!(h.api_redirect_status, 308);
    assert_eq!(h.storm, Some(Storm { after: Duration::from_secs(5), lasting: Duration::from_secs(30) }));
    assert!(h.retry_after_date);
    assert_eq!(
        (h.file_endless, h.file_cut_clean, h.file_redirect_scheme),
        (Trigger::First(1), Trigger::Every(2), Trigger::Always)
    );
    assert_eq!(h.unavailable, Trigger::First(3));
}

#[test]
fn openai_flags_reach_the_config() {
    assert_eq!(config(&["--answers", "openai"]).expect("parses").answers, Answers::OpenAi(OpenAi::default()));
    let c = config(&[
        "--answers",
        "openai",
        "--content-full",
        "--content-not-ready",
        "400",
        "--content-lag-secs",
        "1.5",
        "--expires-after-secs",
        "60",
        "--cancelled",
        "first:1",
        "--expired",
        "every:2",
    ])
    .expect("parses");
    let want = OpenAi {
        ranges: false,
        not_ready: reel_sim::NotReady::BadRequest,
        content_lag: Duration::from_millis(1500),
        content_route: true,
        expires_after: Some(Duration::from_secs(60)),
        cancelled: Trigger::First(1),
        expired: Trigger::Every(2),
    };
    assert_eq!(c.answers, Answers::OpenAi(want));
    let none = config(&["--answers", "openai", "--no-content-route"]).expect("parses");
    assert!(matches!(none.answers, Answers::OpenAi(o) if !o.content_route));
    assert!(banner("http://127.0.0.1:1", &c).contains("/v1/videos/ID/content with the key, always the whole file"));
    let refused = config(&["--content-not-ready", "500"]).expect_err("refused").to_string();
    assert!(refused.contains("\"500\" is not one of: 404, 400"), "{refused}");
}

#[test]
fn bad_values_are_refused_with_the_choices() {
    let refused = |args: &[&str]| config(args).expect_err("refused").to_string();
    let cases: [(&[&str], &str); 6] = [
        (&["--hostile-status", "finished"], "\"finished\" is not one of: padded, succeeded"),
        (&["--hostile-trickle", "sometimes"], "use never, always, first:N, every:N or 0..1"),
        (&["--api-redirect-status", "302"], "\"302\" is not 307 or 308"),
        (&["--failure-rate", "2"], "\"2\" is not a probability from 0 to 1"),
        (&["--queue-secs", "soon"], "\"soon\" is not a number of seconds"),
        (&["--render-min-secs", "9", "--render-max-secs", "3"], "--render-min-secs is above --render-max-secs"),
    ];
    for (args, want) in cases {
        let err = refused(args);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
