use super::*;

fn full(kind: &[u8; 4], content: &[u8]) -> Vec<u8> {
    bx(kind, &[&[0u8; 4][..], content].concat())
}

/// A `trak` whose chunk offsets are `offsets` (`co64` when `wide`).
fn trak(offsets: &[u64], wide: bool) -> Vec<u8> {
    let mut table = (offsets.len() as u32).to_be_bytes().to_vec();
    for o in offsets {
        if wide {
            table.extend_from_slice(&o.to_be_bytes())
        } else {
            table.extend_from_slice(&(*o as u32).to_be_bytes())
        }
    }
    let co = full(if wide { b"co64" } else { b"stco" }, &table);
    let stbl = bx(b"stbl", &[full(b"stsz", &[0; 8]), co].concat());
    bx(b"trak", &bx(b"mdia", &bx(b"minf", &stbl)))
}

fn moov(children: &[Vec<u8>]) -> Vec<u8> {
    bx(b"moov", &[full(b"mvhd", &[0; 96])].into_iter().chain(children.iter().cloned()).collect::<Vec<_>>().concat())
}

/// The chunk offsets of every track of a `moov`, in order.
fn offsets(moov: &[u8]) -> Vec<u64> {
    let mut out = Vec::new();
    for (kind, at, len) in children(moov, 8, moov.len()).expect("moov") {
        if &kind != b"trak" {
            continue;
        }
        let mut b = (at + 8, at + len);
        for want in [b"mdia", b"minf", b"stbl"] {
            let kids = children(moov, b.0, b.1).expect("box");
            let &(_, a, l) = kids.iter().find(|(k, ..)| k == want).expect("child");
            b = (a + 8, a + l);
        }
        for (k, a, _) in children(moov, b.0, b.1).expect("stbl") {
            let n = be32(moov, a + 12).expect("count") as usize;
            for i in 0..n {
                out.push(match &k {
                    b"stco" => u64::from(be32(moov, a + 16 + i * 4).expect("entry")),
                    b"co64" => be64(moov, a + 16 + i * 8).expect("entry"),
                    _ => break,
                });
            }
        }
    }
    out
}

fn fields() -> Vec<(&'static str, String)> {
    vec![("title", "a fox".into()), ("comment", "{\"reel_version\":\"0.1.0\"}".into())]
}

/// Offsets past the `moov` move by exactly what it grew; those before it (an `mdat` first) stay.
#[test]
fn chunk_offsets_past_the_moov_move_by_its_growth() {
    // None of these has a `udta`: one is made around the `meta`.
    let grow = meta_box(&fields()).len() as u64 + 8;
    // (case, moov, where it starts, offsets before, offsets after)
    type Case = (&'static str, Vec<u8>, u64, Vec<u64>, Vec<u64>);
    let cases: [Case; 4] = [
        ("moov first, stco", moov(&[trak(&[1000, 2000], false)]), 40, vec![1000, 2000], vec![1000 + grow, 2000 + grow]),
        ("moov last", moov(&[trak(&[48, 900], false)]), 5000, vec![48, 900], vec![48, 900]),
        ("mdat on both sides", moov(&[trak(&[48, 9000], false)]), 5000, vec![48, 9000], vec![48, 9000 + grow]),
        (
            "two tracks, co64",
            moov(&[trak(&[1 << 33], true), trak(&[700], false)]),
            600,
            vec![1 << 33, 700],
            vec![(1 << 33) + grow, 700 + grow],
        ),
    ];
    for (name, old, at, before, after) in cases {
        assert_eq!(offsets(&old), before, "{name}: as built");
        let new = tagged_moov(&old, at, &fields()).unwrap_or_else(|| panic!("{name}: tagged"));
        assert_eq!(new.len() as u64, old.len() as u64 + grow, "{name}");
        assert_eq!(be32(&new, 0), Some(new.len() as u32), "{name}: the moov's size");
        assert_eq!(offsets(&new), after, "{name}");
        assert_eq!(&new[old.len()..], &bx(b"udta", &meta_box(&fields()))[..], "{name}: the meta comes last");
    }
}

/// What ffmpeg reads back from a `meta` box: the handler `mdta`, the keys and one UTF-8 item each.
#[test]
fn the_meta_box_holds_each_key_and_value() {
    let meta = meta_box(&fields());
    let kids = children(&meta, 12, meta.len()).expect("children");
    let (_, hdlr, _) = kids[0];
    assert_eq!(&meta[hdlr + 16..hdlr + 20], b"mdta");
    let kinds: Vec<&[u8; 4]> = kids.iter().map(|(k, ..)| k).collect();
    assert_eq!(kinds, [b"hdlr", b"keys", b"ilst"]);
    let (_, keys, len) = kids[1];
    assert_eq!(&meta[keys + 12..keys + 16], &2u32.to_be_bytes());
    assert_eq!(&meta[keys + 16..keys + len], b"\0\0\0\x0dmdtatitle\0\0\0\x0fmdtacomment");
    let (_, ilst, len) = kids[2];
    let items = children(&meta, ilst + 8, ilst + len).expect("items");
    assert_eq!(items.iter().map(|(k, ..)| u32::from_be_bytes(*k)).collect::<Vec<_>>(), [1, 2]);
    let (_, item, len) = items[0];
    assert_eq!(&meta[item + 8..item + len], &bx(b"data", b"\0\0\0\x01\0\0\0\0a fox")[..]);
}

/// Layouts whose offsets or keys this module cannot vouch for go to ffmpeg.
#[test]
fn layouts_it_does_not_handle_are_refused() {
    let mdta_meta = meta_box(&fields());
    let mut short = moov(&[trak(&[1000], false)]);
    short.truncate(short.len() - 2);
    let cases: [(&str, Vec<u8>, bool); 8] = [
        ("plain", moov(&[trak(&[1000], false)]), true),
        ("fragmented (mvex)", moov(&[trak(&[1000], false), bx(b"mvex", &[])]), false),
        ("a meta of its own", moov(&[trak(&[1000], false), mdta_meta.clone()]), false),
        ("udta with mdta keys", moov(&[trak(&[1000], false), bx(b"udta", &mdta_meta)]), false),
        ("udta without a meta", moov(&[trak(&[1000], false), bx(b"udta", &bx(b"\xa9too", b"x"))]), true),
        ("two udta", moov(&[trak(&[1000], false), bx(b"udta", &[]), bx(b"udta", &[])]), false),
        ("a size that does not add up", short, false),
        ("an stco past 4 GiB once moved", moov(&[trak(&[u64::from(u32::MAX) - 10], false)]), false),
    ];
    for (name, old, handled) in cases {
        assert_eq!(tagged_moov(&old, 40, &fields()).is_some(), handled, "{name}");
    }
    assert!(tagged_moov(&bx(b"free", &[0; 8]), 0, &fields()).is_none(), "not a moov");
}

#[test]
fn only_a_plain_file_that_starts_with_ftyp_is_taken() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ftyp = bx(b"ftyp", b"isom\0\0\0\x01isom");
    let mdat = bx(b"mdat", &[7; 100]);
    let cases: [(&str, Vec<u8>, bool); 4] = [
        ("ftyp moov mdat", [ftyp.clone(), moov(&[trak(&[1000], false)]), mdat.clone()].concat(), true),
        ("not an MP4", b"<html>not a video</html>".to_vec(), false),
        ("a fragment", [ftyp.clone(), moov(&[]), bx(b"moof", &[]), mdat.clone()].concat(), false),
        ("cut short", [ftyp.clone(), moov(&[]), mdat[..50].to_vec()].concat(), false),
    ];
    for (name, bytes, handled) in cases {
        let (from, to) = (dir.path().join("in.mp4"), dir.path().join("out.mp4"));
        let _ = std::fs::remove_file(&to);
        std::fs::write(&from, &bytes).expect("write");
        let sum = tag_file(&from, &to, &fields()).expect("read");
        assert_eq!(sum.is_some(), handled, "{name}");
        assert_eq!(to.exists(), handled, "{name}: written only when handled");
        if let Some(sum) = sum {
            assert_eq!(sum, crate::provenance::sha256_of(&to).expect("sum"), "{name}: the sum of what was written");
        }
    }
}

/// The simulator's real MP4 (moov first): ffmpeg reads the keys back, and the video stream it
/// copies out is the same packet for packet (so every offset still points at its sample).
#[test]
fn ffmpeg_reads_the_tags_and_the_same_frames() {
    if !reel_sim::video::testing::have_ffmpeg() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let video = reel_sim::video::testing::video(dir.path());
    let tagged = dir.path().join("tagged.mp4");
    let fields = vec![("title", "a fox = ; # \\ at dawn".to_string()), ("comment", "{\"reel_version\":\"x\"}".into())];
    assert!(tag_file(&video, &tagged, &fields).expect("tagged").is_some(), "the simulator's layout is handled");
    let ffmpeg = |args: &[&str], file: &Path| {
        let out = std::process::Command::new("ffmpeg")
            .args(["-v", "error", "-nostdin", "-i"])
            .arg(file)
            .args(args)
            .output()
            .expect("ffmpeg");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let pairs = crate::provenance::ffmetadata(&ffmpeg(&["-f", "ffmetadata", "-"], &tagged));
    for (k, v) in &fields {
        assert!(pairs.iter().any(|(pk, pv)| pk == k && pv == v), "{k} in {pairs:?}");
    }
    let packets = ["-map", "0:v", "-c", "copy", "-f", "framemd5", "-"];
    assert_eq!(ffmpeg(&packets, &tagged), ffmpeg(&packets, &video), "the same packets");
}

/// A `udta` already there takes the `meta` at its end, and grows by it as the `moov` does.
#[test]
fn the_meta_goes_into_the_udta_that_is_there() {
    let udta = bx(b"udta", &bx(b"\xa9too", b"Lavf"));
    let old = moov(&[udta.clone(), trak(&[1000], false)]);
    let new = tagged_moov(&old, 40, &fields()).expect("tagged");
    let meta = meta_box(&fields());
    let kids = children(&new, 8, new.len()).expect("children");
    let &(_, at, len) = kids.iter().find(|(k, ..)| k == b"udta").expect("udta");
    assert_eq!(len, udta.len() + meta.len());
    assert_eq!(&new[at + len - meta.len()..at + len], &meta[..], "the meta ends the udta");
    assert_eq!(offsets(&new), [1000 + meta.len() as u64], "the track after it still finds its chunk");
}
