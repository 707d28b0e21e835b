//! Provenance written into an MP4 without a program: a `meta` box (handler `mdta`, with `keys`
//! and `ilst`, the layout and place ffmpeg writes with `-movflags +use_metadata_tags`) added to
//! the `moov`'s `udta`, and every chunk offset that pointed past the `moov` moved by what it grew. Starting
//! ffmpeg costs about 100 ms per file; this costs a copy of the file. Layouts it does not handle
//! (fragmented files, a `moov` that already holds `mdta` keys, anything unparsed) are left to
//! ffmpeg: `tag_file` says `false` and writes nothing.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use sha2::{Digest, Sha256};

/// A `moov` larger than this is left to ffmpeg (hours of video have a few MiB).
const MAX_MOOV: u64 = 64 << 20;

/// A top-level box: type, where it starts and its whole length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Top {
    kind: [u8; 4],
    start: u64,
    len: u64,
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at.checked_add(4)?).map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

fn be64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(be32(b, at)?) << 32 | u64::from(be32(b, at + 4)?))
}

fn bx(kind: &[u8; 4], content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() + 8);
    out.extend_from_slice(&((content.len() + 8) as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(content);
    out
}

/// The `meta` box of `fields`, as ffmpeg writes it: a full box holding `hdlr` (`mdta`), `keys`
/// (1-based) and `ilst` (one item per key, its value a UTF-8 `data` box).
pub fn meta_box(fields: &[(&str, String)]) -> Vec<u8> {
    let mut hdlr = vec![0u8; 8];
    hdlr.extend_from_slice(b"mdta");
    hdlr.extend_from_slice(&[0u8; 13]);
    let mut keys = vec![0u8; 4];
    keys.extend_from_slice(&(fields.len() as u32).to_be_bytes());
    let mut ilst = Vec::new();
    for (i, (key, value)) in fields.iter().enumerate() {
        keys.extend_from_slice(&((key.len() + 8) as u32).to_be_bytes());
        keys.extend_from_slice(b"mdta");
        keys.extend_from_slice(key.as_bytes());
        let mut data = vec![0, 0, 0, 1, 0, 0, 0, 0];
        data.extend_from_slice(value.as_bytes());
        ilst.extend_from_slice(&bx(&(i as u32 + 1).to_be_bytes(), &bx(b"data", &data)));
    }
    let content = [vec![0u8; 4], bx(b"hdlr", &hdlr), bx(b"keys", &keys), bx(b"ilst", &ilst)].concat();
    bx(b"meta", &content)
}

/// The children of the box content `b[from..to]`: (type, start of the box, its length). `None`
/// when a child's size does not fit.
fn children(b: &[u8], from: usize, to: usize) -> Option<Vec<([u8; 4], usize, usize)>> {
    let mut out = Vec::new();
    let mut at = from;
    while at < to {
        let size = be32(b, at)? as usize;
        let kind: [u8; 4] = b.get(at + 4..at + 8)?.try_into().ok()?;
        // Inside a `moov` every box has its 32-bit size (no large or open-ended ones).
        if size < 8 || at.checked_add(size)? > to {
            return None;
        }
        out.push((kind, at, size));
        at += size;
    }
    Some(out)
}

/// The `moov` (whole box, 32-bit size, starting at file offset `moov_at`) with `meta` of
/// `fields` in its `udta` (made when it has none; exiftool reads keys there, not in the `moov`
/// itself) and every chunk offset at or past `moov_at` moved by its growth. `None`: a layout
/// left to ffmpeg.
pub fn tagged_moov(moov: &[u8], moov_at: u64, fields: &[(&str, String)]) -> Option<Vec<u8>> {
    if be32(moov, 0)? as usize != moov.len() || moov.get(4..8)? != b"moov" {
        return None;
    }
    let meta = meta_box(fields);
    let kids = children(moov, 8, moov.len())?;
    let mut udta = None;
    for &(kind, at, len) in &kids {
        match &kind {
            // Fragments carry offsets of their own; a `meta` may hold keys of its own.
            b"mvex" | b"meta" => return None,
            b"udta" if udta.is_some() => return None,
            b"udta" => {
                if children(moov, at + 8, at + len)?.iter().any(|(k, ..)| k == b"meta") {
                    return None;
                }
                udta = Some((at, len));
            }
            _ => {}
        }
    }
    let insert = match udta {
        Some(_) => meta.clone(),
        None => bx(b"udta", &meta),
    };
    let grown = u32::try_from(moov.len() + insert.len()).ok()?;
    let mut out = moov.to_vec();
    for &(kind, at, len) in &kids {
        if &kind == b"trak" {
            shift_track(&mut out, at, len, moov_at, insert.len() as u64)?;
        }
    }
    out[..4].copy_from_slice(&grown.to_be_bytes());
    let at = match udta {
        Some((at, len)) => {
            let size = u32::try_from(len + insert.len()).ok()?;
            out[at..at + 4].copy_from_slice(&size.to_be_bytes());
            at + len
        }
        None => out.len(),
    };
    out.splice(at..at, insert);
    Some(out)
}

/// Moves the chunk offsets (`stco`, `co64`) of the `trak` at `at` that point at or past `from`.
fn shift_track(b: &mut [u8], at: usize, len: usize, from: u64, by: u64) -> Option<()> {
    let path: [&[u8; 4]; 3] = [b"mdia", b"minf", b"stbl"];
    let (mut start, mut end) = (at + 8, at + len);
    for want in path {
        let kids = children(b, start, end)?;
        let &(_, a, l) = kids.iter().find(|(k, ..)| k == want)?;
        (start, end) = (a + 8, a + l);
    }
    for (kind, a, l) in children(b, start, end)? {
        let wide = match &kind {
            b"stco" => false,
            b"co64" => true,
            _ => continue,
        };
        let count = be32(b, a + 12)? as usize;
        let width = if wide { 8 } else { 4 };
        if 16 + count.checked_mul(width)? > l {
            return None;
        }
        for i in 0..count {
            let p = a + 16 + i * width;
            let old = if wide { be64(b, p)? } else { u64::from(be32(b, p)?) };
            if old < from {
                continue;
            }
            let new = old.checked_add(by)?;
            if wide {
                b[p..p + 8].copy_from_slice(&new.to_be_bytes());
            } else {
                b[p..p + 4].copy_from_slice(&u32::try_from(new).ok()?.to_be_bytes());
            }
        }
    }
    Some(())
}

/// The top-level boxes of a file of `len` bytes, read header by header. `None`: not an MP4
/// this module handles (no `ftyp` first, a fragment, a size that does not add up).
fn top_level(file: &mut (impl Read + Seek), len: u64) -> std::io::Result<Option<Vec<Top>>> {
    let mut out = Vec::new();
    let mut at = 0u64;
    while at < len {
        let mut head = [0u8; 16];
        let n = (len - at).min(16) as usize;
        file.seek(SeekFrom::Start(at))?;
        file.read_exact(&mut head[..n])?;
        let Some(size) = be32(&head[..n], 0) else { return Ok(None) };
        let kind: [u8; 4] = head[4..8].try_into().unwrap_or_default();
        let size = match size {
            0 => len - at,
            1 => match be64(&head[..n], 8) {
                Some(large) => large,
                None => return Ok(None),
            },
            s => u64::from(s),
        };
        let first_is_ftyp = !out.is_empty() || &kind == b"ftyp";
        let fragment = matches!(&kind, b"moof" | b"mfra" | b"sidx" | b"styp");
        if size < 8 || size > len - at || !first_is_ftyp || fragment {
            return Ok(None);
        }
        out.push(Top { kind, start: at, len: size });
        at += size;
    }
    Ok(Some(out))
}

/// Bytes copied between two requests to start writing them to disk, so that the fsync after
/// waits for the last piece only (as the downloader does).
const WRITEBACK_EVERY: u64 = 1 << 20;

/// Copies `len` bytes (all that is left when `None`) from `src` to `out`, hashing them and
/// asking for their writeback as it goes; `at` is where `out` is, and moves on.
fn copy(
    src: &mut impl Read,
    out: &mut std::fs::File,
    len: Option<u64>,
    hasher: &mut Sha256,
    at: &mut (u64, u64),
) -> std::io::Result<()> {
    let mut buf = vec![0u8; 1 << 20];
    let mut left = len.unwrap_or(u64::MAX);
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = src.read(&mut buf[..want])?;
        if n == 0 {
            if len.is_some() {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            break;
        }
        write(out, &buf[..n], hasher, at)?;
        left -= n as u64;
    }
    Ok(())
}

/// Writes and hashes `bytes`; `at` is (bytes written, bytes already asked to be written back).
fn write(out: &mut std::fs::File, bytes: &[u8], hasher: &mut Sha256, at: &mut (u64, u64)) -> std::io::Result<()> {
    out.write_all(bytes)?;
    hasher.update(bytes);
    at.0 += bytes.len() as u64;
    if at.0 - at.1 >= WRITEBACK_EVERY {
        super::download::start_writeback(out, at.1, at.0 - at.1);
        at.1 = at.0;
    }
    Ok(())
}

/// Writes `from` with `fields` in its `moov` to `to` and returns the sha256 of what it wrote
/// (not yet fsynced). `None`: a layout left to ffmpeg, and nothing was written.
pub fn tag_file(from: &Path, to: &Path, fields: &[(&str, String)]) -> std::io::Result<Option<String>> {
    let mut src = std::fs::File::open(from)?;
    let len = src.metadata()?.len();
    let Some(tops) = top_level(&mut src, len)? else { return Ok(None) };
    let mut moovs = tops.iter().filter(|t| &t.kind == b"moov");
    let (Some(moov), None) = (moovs.next(), moovs.next()) else { return Ok(None) };
    if moov.len > MAX_MOOV {
        return Ok(None);
    }
    let mut old = vec![0u8; moov.len as usize];
    src.seek(SeekFrom::Start(moov.start))?;
    src.read_exact(&mut old)?;
    let Some(new) = tagged_moov(&old, moov.start, fields) else { return Ok(None) };
    let mut out = std::fs::File::create(to)?;
    let (mut hasher, mut at) = (Sha256::new(), (0, 0));
    src.seek(SeekFrom::Start(0))?;
    copy(&mut src, &mut out, Some(moov.start), &mut hasher, &mut at)?;
    write(&mut out, &new, &mut hasher, &mut at)?;
    src.seek(SeekFrom::Start(moov.start + moov.len))?;
    copy(&mut src, &mut out, None, &mut hasher, &mut at)?;
    Ok(Some(reel_rules::text::hex(&hasher.finalize())))
}

#[cfg(test)]
#[path = "mp4_tags_tests.rs"]
mod tests;
