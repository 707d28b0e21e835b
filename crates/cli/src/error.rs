//! The error of a headless command, and how main reports it.

use std::error::Error;

use thiserror::Error;

use super::output::OutputError;
use reel_engine::EngineError;
use reel_engine::query::QueryError;
use reel_engine::reader::ReadError;
use reel_engine::session::SessionError;

#[derive(Debug, Error)]
pub enum CliError {
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("cannot listen on 127.0.0.1:{port}: {source}; choose another --port")]
    Listen { port: u16, source: std::io::Error },
    /// Arguments that clap accepted but that do not fit together.
    #[error("{0}")]
    Usage(String),
}

impl From<ReadError> for CliError {
    fn from(e: ReadError) -> CliError {
        match e {
            ReadError::Query(q) => CliError::Query(q),
            ReadError::Engine(e) => CliError::Engine(e),
            ReadError::Stopped(why) => CliError::Engine(reel_engine::Refused::failed(why).into()),
        }
    }
}

impl CliError {
    pub fn is_closed_pipe(&self) -> bool {
        matches!(self, CliError::Output(e) if e.is_closed())
    }
}

/// An error and its causes on one line, each cause once: many messages already quote their
/// source, and printing the chain again would repeat it.
pub fn report(error: &(dyn Error + 'static)) -> String {
    let mut out = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = cause.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Error)]
    #[error("cannot read {path}: {source}")]
    struct Quoting {
        path: &'static str,
        source: std::io::Error,
    }

    #[derive(Debug, Error)]
    #[error("the engine failed")]
    struct Terse(#[source] std::io::Error);

    #[test]
    fn causes_are_reported_once() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        assert_eq!(report(&Quoting { path: "a.toml", source: io() }), "cannot read a.toml: no such file");
        assert_eq!(report(&Terse(io())), "the engine failed: no such file");
        assert!(CliError::Output(OutputError::Closed).is_closed_pipe());
        assert!(!CliError::Usage("x".into()).is_closed_pipe());
    }
}
