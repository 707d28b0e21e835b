//! An ISO base media (MP4) writer for one H.264 video track, `moov` first so players can start
//! before the whole file has arrived.

/// A box: 32-bit size, four-character type, content.
fn bx(kind: &[u8; 4], content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() + 8);
    out.extend_from_slice(&(content.len() as u32 + 8).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(content);
    out
}

/// A full box: version 0 and `flags`, then content.
fn full(kind: &[u8; 4], flags: u32, content: &[u8]) -> Vec<u8> {
    let mut c = flags.to_be_bytes().to_vec();
    c.extend_from_slice(content);
    bx(kind, &c)
}

#[derive(Default)]
struct Bytes(Vec<u8>);

impl Bytes {
    fn u16(mut self, v: u16) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn raw(mut self, v: &[u8]) -> Self {
        self.0.extend_from_slice(v);
        self
    }
    fn zeros(mut self, n: usize) -> Self {
        self.0.resize(self.0.len() + n, 0);
        self
    }
}

const MATRIX: [u32; 9] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000];

fn matrix(mut b: Bytes) -> Bytes {
    for v in MATRIX {
        b = b.u32(v);
    }
    b
}

pub struct Track<'a> {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub sps: &'a [u8],
    pub pps: &'a [u8],
    /// Each sample is one access unit as NAL units with 4-byte length prefixes.
    pub samples: &'a [Vec<u8>],
    /// Indices (0-based) of key frames.
    pub sync: &'a [u32],
    /// Free text stored in a `free` box (the simulator puts the task id there).
    pub label: &'a str,
}

fn avcc(sps: &[u8], pps: &[u8]) -> Vec<u8> {
    let b = Bytes::default()
        .raw(&[1, sps[1], sps[2], sps[3], 0xFF, 0xE1])
        .u16(sps.len() as u16)
        .raw(sps)
        .raw(&[1])
        .u16(pps.len() as u16)
        .raw(pps);
    bx(b"avcC", &b.0)
}

fn moov(t: &Track<'_>, data_offset: u32) -> Vec<u8> {
    let frames = t.samples.len() as u32;
    let media_scale = t.fps * 1000;
    let movie_ms = frames * 1000 / t.fps.max(1);
    let mvhd = matrix(Bytes::default().u32(0).u32(0).u32(1000).u32(movie_ms).u32(0x0001_0000).u16(0x0100).zeros(10))
        .zeros(24)
        .u32(2);
    let tkhd = matrix(Bytes::default().u32(0).u32(0).u32(1).u32(0).u32(movie_ms).zeros(8).zeros(8))
        .u32(t.width << 16)
        .u32(t.height << 16);
    let mdhd = Bytes::default().u32(0).u32(0).u32(media_scale).u32(frames * 1000).u16(0x55C4).u16(0);
    let hdlr = Bytes::default().u32(0).raw(b"vide").zeros(12).raw(b"reel sim video\0");
    let mut name = [0u8; 32];
    name[0] = 8;
    name[1..9].copy_from_slice(b"reel sim");
    let avc1 = Bytes::default()
        .zeros(6)
        .u16(1)
        .zeros(16)
        .u16(t.width as u16)
        .u16(t.height as u16)
        .u32(0x0048_0000)
        .u32(0x0048_0000)
        .u32(0)
        .u16(1)
        .raw(&name)
        .u16(0x0018)
        .u16(0xFFFF)
        .raw(&avcc(t.sps, t.pps));
    let stsd = Bytes::default().u32(1).raw(&bx(b"avc1", &avc1.0));
    let stts = Bytes::default().u32(1).u32(frames).u32(1000);
    let mut stss = Bytes::default().u32(t.sync.len() as u32);
    for s in t.sync {
        stss = stss.u32(s + 1);
    }
    let stsc = Bytes::default().u32(1).u32(1).u32(frames).u32(1);
    let mut stsz = Bytes::default().u32(0).u32(frames);
    for s in t.samples {
        stsz = stsz.u32(s.len() as u32);
    }
    let stco = Bytes::default().u32(1).u32(data_offset);
    let stbl = [
        full(b"stsd", 0, &stsd.0),
        full(b"stts", 0, &stts.0),
        full(b"stss", 0, &stss.0),
        full(b"stsc", 0, &stsc.0),
        full(b"stsz", 0, &stsz.0),
        full(b"stco", 0, &stco.0),
    ]
    .concat();
    let dinf = bx(b"dinf", &full(b"dref", 0, &[Bytes::default().u32(1).0, full(b"url ", 1, &[])].concat()));
    let minf = [full(b"vmhd", 1, &[0; 8]), dinf, bx(b"stbl", &stbl)].concat();
    let mdia = [full(b"mdhd", 0, &mdhd.0), full(b"hdlr", 0, &hdlr.0), bx(b"minf", &minf)].concat();
    let trak = [full(b"tkhd", 3, &tkhd.0), bx(b"mdia", &mdia)].concat();
    bx(b"moov", &[full(b"mvhd", 0, &mvhd.0), bx(b"trak", &trak)].concat())
}

/// The whole file: ftyp, moov, free (label), mdat.
pub fn write(t: &Track<'_>) -> Vec<u8> {
    let ftyp = bx(b"ftyp", &Bytes::default().raw(b"isom").u32(0x200).raw(b"isomiso2avc1mp41").0);
    let free = bx(b"free", t.label.as_bytes());
    let payload: usize = t.samples.iter().map(Vec::len).sum();
    // The moov's size does not depend on the offset it records, so measure it once with zero.
    let head = ftyp.len() + moov(t, 0).len() + free.len() + 8;
    let mut out = Vec::with_capacity(head + payload);
    out.extend_from_slice(&ftyp);
    out.extend_from_slice(&moov(t, head as u32));
    out.extend_from_slice(&free);
    out.extend_from_slice(&((payload + 8) as u32).to_be_bytes());
    out.extend_from_slice(b"mdat");
    for s in t.samples {
        out.extend_from_slice(s);
    }
    out
}
