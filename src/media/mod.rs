//! Local media files used as references: storage for uploads.
pub mod storage;
