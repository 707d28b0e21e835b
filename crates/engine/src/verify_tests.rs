use std::io::Cursor;

use super::*;
use reel_sim::video::{VideoSpec, render_mp4};

fn video(seconds: u32) -> Vec<u8> {
    render_mp4(&VideoSpec { width: 64, height: 48, seconds, seed: 1, label: "task_1".into() })
}

fn check(bytes: &[u8]) -> Result<Container, Damage> {
    check_container(Cursor::new(bytes), bytes.len() as u64)
}

fn bx(kind: &[u8; 4], content: &[u8]) -> Vec<u8> {
    [&((content.len() + 8) as u32).to_be_bytes()[..], kind, content].concat()
}

fn mvhd(scale: u32, duration: u32) -> Vec<u8> {
    let mut c = vec![0u8; 12];
    c.extend_from_slice(&scale.to_be_bytes());
    c.extend_from_slice(&duration.to_be_bytes());
    c.resize(100, 0);
    bx(b"mvhd", &c)
}

fn ftyp() -> Vec<u8> {
    bx(b"ftyp", b"isom\0\0\x02\0isomiso2")
}

#[test]
fn size_bounds() {
    let ceiling = 2000 * MB;
    // (seconds, the model's longest, resolution, ceiling) → (bytes, limit)
    type Case<'a> = ((i64, Option<i64>, &'a str, u64), (u64, &'a str));
    let cases: Vec<Case> = vec![
        ((10, Some(30), "1080P", ceiling), (82 * MB, "a 10 s 1080P video can be")),
        ((4, Some(30), "480P", ceiling), (10 * MB, "a 4 s 480P video can be")),
        ((5, None, "720P", ceiling), (22 * MB, "a 5 s 720P video can be")),
        ((-1, Some(30), "720P", ceiling), (122 * MB, "an automatic-length 720P video (up to 30 s) can be")),
        ((-1, None, "720P", ceiling), (ceiling, "[engine] max_file_mb allows")),
        ((10, Some(30), "4K", ceiling), (ceiling, "[engine] max_file_mb allows")),
        ((150, Some(150), "1080P", ceiling), (1202 * MB, "a 150 s 1080P video can be")),
        ((150, Some(150), "1080P", 500 * MB), (500 * MB, "[engine] max_file_mb allows")),
        ((0, Some(0), "1080P", ceiling), (ceiling, "[engine] max_file_mb allows")),
        ((i64::MAX, None, "1080P", ceiling), (ceiling, "[engine] max_file_mb allows")),
    ];
    for ((seconds, longest, res, ceiling), (bytes, limit)) in cases {
        let b = size_bound(seconds, longest, res, ceiling);
        assert_eq!((b.bytes, b.limit.as_str()), (bytes, limit), "{seconds} s {res} (longest {longest:?})");
    }
}

#[test]
fn refusals_name_the_numbers() {
    let b = size_bound(10, None, "1080P", 2000 * MB);
    assert_eq!(
        b.refusal(82 * MB + 1, false),
        "the file passed 82 MB, the most a 10 s 1080P video can be; the transfer was cut at 82000001 bytes"
    );
    assert_eq!(
        SizeBound::ceiling(5 * MB).refusal(7_500_000, true),
        "the server announced 7.5 MB, more than [engine] max_file_mb allows (5.0 MB); not downloaded"
    );
}

#[test]
fn expectations_of_a_task() {
    let catalog = Catalog::builtin();
    let mut r = reel_store::fixtures::record(1, reel_store::LocalState::Completed);
    r.model = "acme/aurora-3.0/text-to-video".into();
    r.resolution = "1080P".into();
    r.seconds = 10;
    let e = Expect::of(&r, &catalog, 2000 * MB);
    assert_eq!((e.bound.bytes, e.seconds), (82 * MB, Some(10.0)));
    r.seconds = -1;
    let e = Expect::of(&r, &catalog, 2000 * MB);
    assert_eq!((e.bound.bytes, e.seconds), (242 * MB, None), "automatic: the family's longest, 30 s");
}

#[test]
fn durations_within_a_quarter_or_a_second_and_a_half() {
    let cases = [
        (5.0, Some(5.0), true),
        (6.4, Some(5.0), true),
        (6.6, Some(5.0), false),
        (3.6, Some(5.0), true),
        (3.4, Some(5.0), false),
        (37.0, Some(30.0), true),
        (38.0, Some(30.0), false),
        (4.0, Some(10.0), false),
        (999.0, None, true),
    ];
    for (got, asked, fits) in cases {
        assert_eq!(duration_fits(got, asked), fits, "{got} s for {asked:?}");
    }
}

#[test]
fn the_simulators_video_is_complete_at_its_length_and_damaged_at_every_cut() {
    let good = video(4);
    assert_eq!(check(&good), Ok(Container::Mp4 { seconds: 4.0 }));
    let mdat_at = good.windows(4).position(|w| w == b"mdat").expect("an mdat") as u64 - 4;
    let free_at = good.windows(4).position(|w| w == b"free").expect("a free box") as u64 - 4;
    let len = good.len() as u64;
    // Cuts: inside the ftyp, inside the moov, at the start of the free box (no mdat yet), inside
    // the mdat header, half, one byte short.
    let cuts = [10, 200, free_at, mdat_at + 5, len / 2, len - 1];
    for cut in cuts {
        let got = check(&good[..cut as usize]);
        let damaged = match &got {
            Err(Damage::Cut { len: l, .. } | Damage::CutHeader { len: l, .. }) => *l == cut,
            Err(Damage::NoMdat) => cut == free_at,
            _ => false,
        };
        assert!(damaged, "cut at {cut} of {len}: {got:?}");
    }
    let half = check(&good[..(len / 2) as usize]).expect_err("damaged").to_string();
    assert_eq!(
        half,
        format!("it ends at byte {} inside its `mdat` box, which runs to byte {len}: the file is cut short", len / 2)
    );
}

#[test]
fn boxes_must_tile_the_file() {
    let moov = bx(b"moov", &mvhd(1000, 8000));
    let mdat = bx(b"mdat", &[7; 64]);
    let large_mdat = [&1u32.to_be_bytes()[..], b"mdat", &(16u64 + 64).to_be_bytes(), &[7; 64]].concat();
    let to_end_mdat = [&0u32.to_be_bytes()[..], b"mdat", &[7; 64]].concat();
    let lying = [&ftyp()[..], &moov, &500u32.to_be_bytes(), b"mdat", &[7; 64]].concat();
    let tiny_size = [&ftyp()[..], &moov, &4u32.to_be_bytes(), b"mdat", &[7; 64]].concat();
    let cases: Vec<(&str, Vec<u8>, Result<Container, Damage>)> = vec![
        ("moov then mdat", [ftyp(), moov.clone(), mdat.clone()].concat(), Ok(Container::Mp4 { seconds: 8.0 })),
        ("moov last", [ftyp(), mdat.clone(), moov.clone()].concat(), Ok(Container::Mp4 { seconds: 8.0 })),
        ("64-bit mdat size", [ftyp(), moov.clone(), large_mdat].concat(), Ok(Container::Mp4 { seconds: 8.0 })),
        ("size 0: to the end", [ftyp(), moov.clone(), to_end_mdat].concat(), Ok(Container::Mp4 { seconds: 8.0 })),
        ("no moov", [ftyp(), mdat.clone()].concat(), Err(Damage::NoMoov)),
        ("moov without mvhd", [ftyp(), bx(b"moov", &bx(b"trak", &[])), mdat.clone()].concat(), Err(Damage::NoMvhd)),
        ("no media", [ftyp(), moov.clone()].concat(), Err(Damage::NoMdat)),
        (
            "a box size past the end",
            lying,
            Err(Damage::Cut { kind: "mdat".into(), end: 32 + 108 + 500, len: 32 + 108 + 72 }),
        ),
        ("a box size under its header", tiny_size, Err(Damage::BadSize { at: 140, size: 4 })),
        (
            "garbage after the boxes",
            [ftyp(), moov.clone(), mdat.clone(), vec![0xff; 12]].concat(),
            Err(Damage::NotABox { at: 212 }),
        ),
        (
            "a header cut",
            [ftyp(), moov.clone(), mdat.clone(), vec![0, 0, 0]].concat(),
            Err(Damage::CutHeader { at: 212, len: 215 }),
        ),
        ("html", b"<!doctype html><html>nope</html>".to_vec(), Ok(Container::Other)),
        ("empty", vec![], Ok(Container::Other)),
    ];
    for (name, bytes, want) in cases {
        assert_eq!(check(&bytes), want, "{name}");
    }
}

#[test]
fn judgements() {
    let good = || Ok(Container::Mp4 { seconds: 4.0 });
    let cut = || Err(Damage::NoMoov);
    let webm = b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81";
    let html = b"<!doctype html><html>";
    let png = reel_sim::MEDIA_PNG;
    // (container, first bytes, framed, asked) → remedy (None: saved)
    type Case<'a> = (Result<Container, Damage>, &'a [u8], bool, Option<f64>, Option<Remedy>);
    let cases: Vec<Case> = vec![
        (good(), b"", true, Some(4.0), None),
        (good(), b"", false, Some(5.0), None),
        (good(), b"", false, None, None),
        (good(), b"", true, Some(10.0), Some(Remedy::Never)),
        (cut(), b"", false, Some(4.0), Some(Remedy::Resume)),
        (cut(), b"", true, Some(4.0), Some(Remedy::Again)),
        (Ok(Container::Other), webm, true, Some(4.0), None),
        (Ok(Container::Other), webm, false, Some(4.0), Some(Remedy::Never)),
        (Ok(Container::Other), html, true, Some(4.0), Some(Remedy::Never)),
        (Ok(Container::Other), &png, true, None, Some(Remedy::Never)),
    ];
    for (container, head, framed, asked, want) in cases {
        let got = judge(container.clone(), head, framed, asked);
        assert_eq!(
            got.as_ref().err().map(|r| r.remedy),
            want,
            "{container:?} framed {framed} asked {asked:?}: {got:?}"
        );
    }
    let far = judge(good(), b"", true, Some(10.0)).expect_err("refused");
    assert_eq!(far.why, "the video is 4.0 s long, far from the 10 s asked for; not the video of this task");
    let page = judge(Ok(Container::Other), html, true, None).expect_err("refused");
    assert_eq!(page.why, "the server sent no video (the file starts with \"<!doctype html><html>\")");
}
