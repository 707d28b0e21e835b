//! Reference media: checks of media URLs before a paid submission (preflight).

pub mod measured;
pub mod mp4;
pub mod preflight;
pub mod probe;
pub mod sniff;
pub mod verdict;
pub mod wav;
