use super::*;
use MediaKind::*;

const PNG: &[u8] = &reel_sim::MEDIA_PNG;
const MP4: &[u8] = b"\0\0\0\x20ftypisom\0\0\x02\0";
const WAV: &[u8] = b"RIFF\0\0\0\0WAVEfmt ";

fn item(kind: MediaKind, stated: Option<f64>) -> Item {
    Item { index: 1, kind, url: "https://cdn.example/a".into(), stated }
}

fn seen(status: u16, content_type: Option<&str>, first: &[u8]) -> Observed {
    Observed {
        status,
        content_type: content_type.map(str::to_string),
        length: Some(2048),
        first_bytes: first.to_vec(),
        duration: None,
    }
}

#[test]
fn verdicts_table() {
    type Case<'a> = (MediaKind, u16, Option<&'a str>, &'a [u8], Result<&'a str, &'a str>);
    let cases: &[Case] = &[
        (ReferenceImage, 200, Some("image/png"), &[], Ok("image/png")),
        (FirstFrame, 200, Some("Image/JPEG; charset=binary"), &[], Ok("image/jpeg")),
        (ReferenceVideo, 206, Some("Video/MP4; codecs=\"avc1.42E01E\""), &[], Ok("video/mp4")),
        (ReferenceAudio, 200, Some("audio/wav"), &[], Ok("audio/wav")),
        (ReferenceVideo, 200, Some("image/png"), &[], Err("the server says it is image/png, not a video")),
        (ReferenceAudio, 200, Some("video/mp4"), &[], Err("the server says it is video/mp4, not audio")),
        (FirstFrame, 200, Some("text/html; charset=utf-8"), &[], Err("the server says it is text/html, not an image")),
        (
            ReferenceImage,
            200,
            Some("application/octet-stream"),
            PNG,
            Ok("application/octet-stream, by its first bytes a PNG image"),
        ),
        (ReferenceVideo, 200, None, MP4, Ok("no content type, by its first bytes an MP4 file")),
        (
            ReferenceAudio,
            200,
            Some("binary/octet-stream"),
            MP4,
            Ok("binary/octet-stream, by its first bytes an MP4 file"),
        ),
        (ReferenceAudio, 200, None, WAV, Ok("no content type, by its first bytes a WAV file")),
        (
            ReferenceVideo,
            200,
            Some("application/octet-stream"),
            PNG,
            Err("the server gives application/octet-stream and the first bytes are a PNG image, not a video"),
        ),
        (
            ReferenceImage,
            200,
            None,
            b"<html>",
            Err("the server gives no content type and the first bytes are not a known image, video or audio format"),
        ),
        (ReferenceImage, 404, Some("text/html"), &[], Err("the server says there is no such file (404)")),
        (ReferenceImage, 410, None, &[], Err("the server says there is no such file (410)")),
        (ReferenceImage, 403, Some("image/png"), &[], Err("the server answered 403 Forbidden instead of the file")),
        (ReferenceImage, 599, None, &[], Err("the server answered 599 instead of the file")),
    ];
    for (kind, status, content_type, first, want) in cases {
        let got = verdict(&item(*kind, None), &seen(*status, *content_type, first));
        let got = got.as_ref().map(|c| c.format.as_str()).map_err(|e| e.reason.to_string());
        assert_eq!(got, want.map_err(str::to_string), "{kind} {status} {content_type:?}");
    }
}

#[test]
fn the_message_names_the_item() {
    let e = verdict(&item(ReferenceVideo, None), &seen(200, Some("image/png"), &[])).expect_err("refused");
    assert_eq!(
        e.to_string(),
        "media item 2 (reference video) https://cdn.example/a: the server says it is image/png, not a video"
    );
    let hostile = Item { url: "https://x.example/\u{1b}]52;c;AAAA\u{7}".into(), ..item(FirstFrame, None) };
    let e = verdict(&hostile, &seen(404, None, &[])).expect_err("refused");
    assert!(!e.to_string().chars().any(reel_rules::text::is_unsafe), "{e}");
}

#[test]
fn durations_and_summaries() {
    type Case<'a> = (MediaKind, Option<f64>, Option<(f64, Source)>, Option<f64>, bool, &'a str);
    let cases: &[Case] = &[
        (
            ReferenceVideo,
            Some(5.0),
            Some((8.0, Source::Ffprobe)),
            Some(8.0),
            true,
            "8 s (ffprobe; stated 5 s, the measured one counts)",
        ),
        (ReferenceVideo, Some(5.0), Some((5.4, Source::Mp4Header)), Some(5.4), false, "5.4 s (MP4 header)"),
        (ReferenceAudio, None, Some((3.0, Source::WavHeader)), Some(3.0), false, "3 s (WAV header)"),
        (ReferenceVideo, Some(4.0), None, None, false, "duration unknown (the stated 4 s counts)"),
        (ReferenceVideo, None, None, None, false, "duration unknown (so the billed seconds are unknown)"),
        (
            ReferenceVideo,
            None,
            Some((0.0, Source::Ffprobe)),
            None,
            false,
            "duration unknown (so the billed seconds are unknown)",
        ),
        (ReferenceVideo, None, Some((f64::NAN, Source::Ffprobe)), None, false, "duration unknown"),
        (ReferenceImage, None, Some((3.0, Source::Ffprobe)), None, false, "2.0 KB"),
    ];
    for (kind, stated, measured, want, disagrees, text) in cases {
        let mut s = seen(200, Some(if *kind == ReferenceImage { "image/png" } else { "video/mp4" }), &[]);
        if *kind == ReferenceAudio {
            s.content_type = Some("audio/wav".into());
        }
        s.duration = *measured;
        let c = verdict(&item(*kind, *stated), &s).expect("passes");
        assert_eq!((c.duration, c.disagrees()), (*want, *disagrees), "{kind} {measured:?}");
        let line = c.to_string();
        assert!(line.starts_with(&format!("media item 2 ({}): ", words(*kind))), "{line}");
        assert!(line.ends_with(text) || line.contains(text), "{line} lacks {text}");
    }
}
