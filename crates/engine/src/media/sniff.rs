//! What a file is by its first bytes, for servers that give no content type (or
//! `application/octet-stream`): images, video containers and audio formats.

/// The broad sort of a medium, as an item type needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Image,
    Video,
    Audio,
}

impl Sort {
    /// "an image", "a video", "audio": for "…, not a video".
    pub fn words(self) -> &'static str {
        match self {
            Sort::Image => "an image",
            Sort::Video => "a video",
            Sort::Audio => "audio",
        }
    }
}

/// A format recognized by its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sniffed {
    /// The format's name for messages: "a PNG image", "an MP4 file".
    pub name: &'static str,
    /// The sorts it can hold: containers (MP4, WebM, Ogg) hold video or audio alone.
    pub sorts: &'static [Sort],
}

impl Sniffed {
    pub fn holds(&self, sort: Sort) -> bool {
        self.sorts.contains(&sort)
    }
}

const IMAGE: &[Sort] = &[Sort::Image];
const AUDIO: &[Sort] = &[Sort::Audio];
const VIDEO: &[Sort] = &[Sort::Video];
const EITHER: &[Sort] = &[Sort::Video, Sort::Audio];

/// The format of a file from its first bytes, if it is one a reference can be.
pub fn sniff(b: &[u8]) -> Option<Sniffed> {
    let at = |range: std::ops::Range<usize>| b.get(range).unwrap_or_default();
    let found = |name, sorts| Some(Sniffed { name, sorts });
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        found("a PNG image", IMAGE)
    } else if b.starts_with(&[0xff, 0xd8, 0xff]) {
        found("a JPEG image", IMAGE)
    } else if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        found("a GIF image", IMAGE)
    } else if b.starts_with(b"RIFF") && at(8..12) == b"WEBP" {
        found("a WebP image", IMAGE)
    } else if b.starts_with(b"RIFF") && at(8..12) == b"WAVE" {
        found("a WAV file", AUDIO)
    } else if at(4..8) == b"ftyp" {
        match at(8..12) {
            b"M4A " | b"M4B " | b"M4P " => found("an M4A audio file", AUDIO),
            b"qt  " => found("a QuickTime movie", VIDEO),
            _ => found("an MP4 file", EITHER),
        }
    } else if b.starts_with(&[0x1a, 0x45, 0xdf, 0xa3]) {
        found("a WebM/Matroska file", EITHER)
    } else if b.starts_with(b"OggS") {
        found("an Ogg file", EITHER)
    } else if b.starts_with(b"fLaC") {
        found("a FLAC file", AUDIO)
    } else if b.starts_with(b"ID3") {
        found("an MP3 file", AUDIO)
    } else if let [0xff, second, ..] = b {
        // MPEG audio frame sync: ADTS (AAC) has layer bits 00, MP3 has them set.
        if second & 0xf6 == 0xf0 {
            found("an AAC file", AUDIO)
        } else if second & 0xe0 == 0xe0 && (second >> 1) & 3 != 0 {
            found("an MP3 file", AUDIO)
        } else {
            None
        }
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Sort::*;

    #[test]
    fn magic_bytes() {
        type Case<'a> = (&'a [u8], Option<(&'a str, &'a [Sort])>);
        let cases: &[Case] = &[
            (&reel_sim::MEDIA_PNG, Some(("a PNG image", &[Image]))),
            (b"\xff\xd8\xff\xe0\0\x10JFIF", Some(("a JPEG image", &[Image]))),
            (b"GIF89a\x01\0", Some(("a GIF image", &[Image]))),
            (b"RIFF\0\0\0\0WEBPVP8 ", Some(("a WebP image", &[Image]))),
            (b"RIFF\0\0\0\0WAVEfmt ", Some(("a WAV file", &[Audio]))),
            (b"\0\0\0\x20ftypisom\0\0\x02\0", Some(("an MP4 file", &[Video, Audio]))),
            (b"\0\0\0\x20ftypM4A \0\0\x02\0", Some(("an M4A audio file", &[Audio]))),
            (b"\0\0\0\x14ftypqt  \0\0\x02\0", Some(("a QuickTime movie", &[Video]))),
            (b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81", Some(("a WebM/Matroska file", &[Video, Audio]))),
            (b"OggS\0\x02", Some(("an Ogg file", &[Video, Audio]))),
            (b"fLaC\0\0\0\x22", Some(("a FLAC file", &[Audio]))),
            (b"ID3\x04\0\0", Some(("an MP3 file", &[Audio]))),
            (b"\xff\xfb\x90\x64", Some(("an MP3 file", &[Audio]))),
            (b"\xff\xf1\x50\x80", Some(("an AAC file", &[Audio]))),
            (b"\xff\xe1\0\0", None),
            (b"<!doctype html>", None),
            (b"RIFF\0\0\0\0AVI ", None),
            (b"", None),
        ];
        for (bytes, want) in cases {
            let got = sniff(bytes).map(|s| (s.name, s.sorts));
            assert_eq!(got, *want, "{bytes:?}");
        }
    }
}
