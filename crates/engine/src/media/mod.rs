//! Reference media: uploads of local files to storage, and checks of media URLs before a paid
//! submission (preflight).
//!
//! `uploads` (a draft's local files made into URLs) over `storage` (the S3-compatible bucket);
//! `preflight` (the checks' I/O) over `verdict` (their pure core); `measured` (measured durations
//! in place of stated ones); durations read from headers: `mp4`, `wav`, `probe` (ffprobe);
//! `sniff` (what a file is by its first bytes).

pub mod measured;
pub mod mp4;
pub mod preflight;
pub mod probe;
pub mod sniff;
pub mod storage;
pub mod uploads;
pub mod verdict;
pub mod wav;
