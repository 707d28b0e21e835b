//! Fault injection: each fault is a probability per request, rolled independently.

use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Faults {
    /// HTTP 500, 502 or 503 instead of an answer.
    pub server_error: f64,
    /// HTTP 429 with `Retry-After: retry_after`.
    pub rate_limit: f64,
    pub retry_after: Duration,
    /// The connection is closed without an answer (after a submission is recorded).
    pub drop: f64,
    /// The answer is held back for `slow_delay` first.
    pub slow: f64,
    pub slow_delay: Duration,
    /// A 200 answer whose body is not valid JSON.
    pub malformed: f64,
    /// A file download that stops halfway.
    pub truncate: f64,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            server_error: 0.0,
            rate_limit: 0.0,
            retry_after: Duration::from_secs(1),
            drop: 0.0,
            slow: 0.0,
            slow_delay: Duration::from_secs(2),
            malformed: 0.0,
            truncate: 0.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    Api,
    File,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    ServerError(u16),
    RateLimited(Duration),
    Drop,
    Malformed,
    Truncate,
}

impl Fault {
    pub fn label(self) -> &'static str {
        match self {
            Fault::ServerError(_) => "server_error",
            Fault::RateLimited(_) => "rate_limit",
            Fault::Drop => "drop",
            Fault::Malformed => "malformed",
            Fault::Truncate => "truncate",
        }
    }
}

/// What happens to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Roll {
    pub delay: Option<Duration>,
    pub fault: Option<Fault>,
}

impl Faults {
    pub fn roll(&self, route: Route, rng: &mut fastrand::Rng) -> Roll {
        let status = [500, 502, 503][rng.usize(..3)];
        let mut hit = |p: f64| p > 0.0 && rng.f64() < p;
        let delay = hit(self.slow).then_some(self.slow_delay);
        let candidates: &[(f64, Fault)] = match route {
            Route::Api => &[
                (self.rate_limit, Fault::RateLimited(self.retry_after)),
                (self.server_error, Fault::ServerError(status)),
                (self.drop, Fault::Drop),
                (self.malformed, Fault::Malformed),
            ],
            Route::File => &[
                (self.server_error, Fault::ServerError(status)),
                (self.drop, Fault::Drop),
                (self.truncate, Fault::Truncate),
            ],
        };
        let fault = candidates.iter().find(|(p, _)| hit(*p)).map(|(_, f)| *f);
        Roll { delay, fault }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_faults_by_default_and_certain_faults_always() {
        let mut rng = fastrand::Rng::with_seed(1);
        for _ in 0..1000 {
            assert_eq!(Faults::default().roll(Route::Api, &mut rng), Roll::default());
        }
        let always = Faults { rate_limit: 1.0, truncate: 1.0, slow: 1.0, ..Faults::default() };
        let api = always.roll(Route::Api, &mut rng);
        assert_eq!(api.fault, Some(Fault::RateLimited(Duration::from_secs(1))));
        assert_eq!(api.delay, Some(Duration::from_secs(2)));
        assert_eq!(always.roll(Route::File, &mut rng).fault, Some(Fault::Truncate), "429 is not rolled for files");
    }

    #[test]
    fn rates_are_roughly_honoured() {
        let mut rng = fastrand::Rng::with_seed(2);
        let f = Faults { server_error: 0.2, ..Faults::default() };
        let hits = (0..10_000).filter(|_| f.roll(Route::Api, &mut rng).fault.is_some()).count();
        assert!((1_700..2_300).contains(&hits), "{hits}");
    }
}
