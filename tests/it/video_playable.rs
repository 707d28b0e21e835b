//! The simulator's result files open in ffprobe and decode without error in ffmpeg.
//! CI installs ffmpeg; on a machine without it the test says so and is skipped, except in CI.

use std::process::Command;

use crate::common::*;
use reel_rules::Draft;

#[tokio::test]
async fn result_videos_are_playable_mp4() {
    if !have_tools(&["ffmpeg", "ffprobe"]) {
        return;
    }
    let sim = start(fast_config()).await;
    let client = client_for(&sim);
    let dir = tempfile::tempdir().expect("tempdir");
    for (resolution, ratio, seconds, width, height) in
        [("480P", "16:9", "4", 854, 480), ("720P", "9:16", "5", 720, 1280), ("1080P", "1:1", "6", 1080, 1080)]
    {
        let draft = Draft {
            model: "acme/aurora-3.0/text-to-video".into(),
            prompt: "a lighthouse at dusk".into(),
            seconds: Some(seconds.into()),
            resolution: Some(resolution.into()),
            ratio: Some(ratio.into()),
            ..Draft::default()
        };
        let queued = client.submit(&request(&draft), None).await.expect("submitted");
        wait_terminal(&client, &queued.id).await;
        let bytes = sim.video_bytes(&queued.id).expect("file");
        let path = dir.path().join(format!("{resolution}.mp4"));
        std::fs::write(&path, &bytes).expect("write");

        let probe = Command::new("ffprobe")
            .args(["-v", "error", "-show_entries", "stream=codec_name,width,height:format=duration", "-of", "json"])
            .arg(&path)
            .output()
            .expect("ffprobe runs");
        assert!(probe.status.success(), "{}", String::from_utf8_lossy(&probe.stderr));
        let info: serde_json::Value = serde_json::from_slice(&probe.stdout).expect("json");
        assert_eq!(info["streams"][0]["codec_name"], "h264");
        assert_eq!(
            (info["streams"][0]["width"].as_u64(), info["streams"][0]["height"].as_u64()),
            (Some(width), Some(height))
        );
        let duration: f64 = info["format"]["duration"].as_str().and_then(|d| d.parse().ok()).expect("duration");
        assert!((duration - seconds.parse::<f64>().expect("n")).abs() < 0.1, "{duration}");

        let decode = Command::new("ffmpeg")
            .args(["-v", "error", "-i"])
            .arg(&path)
            .args(["-f", "null", "-"])
            .output()
            .expect("ffmpeg runs");
        assert!(decode.status.success() && decode.stderr.is_empty(), "{}", String::from_utf8_lossy(&decode.stderr));
        assert!(bytes.len() < 4 * 1024 * 1024, "{resolution}: {} bytes", bytes.len());
    }
}
