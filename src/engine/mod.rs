//! The background engine: submits, polls every outstanding task with one scheduler, records
//! every change in the store and downloads finished videos at once.

pub mod files;
pub mod health;
pub mod schedule;
pub mod transition;
