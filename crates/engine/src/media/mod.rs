//! Reference media: uploads of local files to storage, and checks of media URLs before a paid
//! submission (preflight).

pub mod measured;
pub mod mp4;
pub mod preflight;
pub mod probe;
pub mod sniff;
pub mod storage;
pub mod uploads;
pub mod verdict;
pub mod wav;
