//! Billing (spec section 8): billed seconds = output seconds + total seconds of reference videos.

use std::fmt;

use serde::Serialize;

use super::catalog::DurationRule;
use super::params::MediaKind;

/// The billed duration of one submission, as far as it is known before rendering.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Billing {
    /// `None` when the duration is automatic (`-1`): the service decides.
    pub output_seconds: Option<i64>,
    /// Sum of the stated durations of reference videos.
    pub reference_video_seconds: f64,
    /// Reference videos whose duration the user did not state.
    pub unstated_reference_videos: usize,
    /// The longest output the model allows, where the rules know it: what an automatic
    /// duration may come to.
    #[serde(skip)]
    pub longest_output: Option<i64>,
}

impl Billing {
    /// The exact billed seconds, when every part is known.
    pub fn total(&self) -> Option<f64> {
        match (self.output_seconds, self.unstated_reference_videos) {
            (Some(out), 0) => Some(out as f64 + self.reference_video_seconds),
            _ => None,
        }
    }

    /// The most these billed seconds can come to by the spec's rules: an automatic duration at
    /// the model's longest, reference videos of unstated length at what is left of their
    /// 15-second total. `None` only when an automatic duration's model is not known.
    pub fn at_most(&self) -> Option<f64> {
        let output = self.output_seconds.or(self.longest_output)? as f64;
        let cap = MediaKind::ReferenceVideo.max_total_seconds().unwrap_or(0.0);
        let unstated = match self.unstated_reference_videos {
            0 => 0.0,
            _ => (cap - self.reference_video_seconds).max(0.0),
        };
        Some(output + self.reference_video_seconds + unstated)
    }
}

/// Billed seconds for an output duration and the media items (type, stated seconds).
pub fn billing(seconds: i64, media: &[(MediaKind, Option<f64>)]) -> Billing {
    let videos = media.iter().filter(|(k, _)| *k == MediaKind::ReferenceVideo);
    let (stated, unstated) = videos.fold((0.0, 0), |(sum, n), (_, secs)| match secs {
        Some(s) => (sum + s, n),
        None => (sum, n + 1),
    });
    Billing {
        output_seconds: (seconds != DurationRule::AUTO).then_some(seconds),
        reference_video_seconds: stated,
        unstated_reference_videos: unstated,
        longest_output: None,
    }
}

/// Seconds as every billed figure writes them: whole when whole, else to a tenth.
pub fn secs(v: f64) -> String {
    if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v:.1}") }
}

impl fmt::Display for Billing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(total) = self.total() {
            return write!(f, "{} s", secs(total));
        }
        match self.output_seconds {
            Some(out) => write!(f, "{} s", secs(out as f64 + self.reference_video_seconds))?,
            None if self.reference_video_seconds > 0.0 => write!(f, "auto + {} s", secs(self.reference_video_seconds))?,
            None => write!(f, "auto")?,
        }
        match self.unstated_reference_videos {
            0 => Ok(()),
            1 => write!(f, " + 1 reference video of unstated length"),
            n => write!(f, " + {n} reference videos of unstated length"),
        }
    }
}

/// The billed seconds of a recorded task, as every view shows them: the recorded figure when
/// it is known, else the rule's own words for the part that is not ("18 s + 1 reference video
/// of unstated length"), never 0 and never "until rendered" (the service does not say).
pub fn describe(billed: Option<f64>, seconds: i64, media: &[(MediaKind, Option<f64>)]) -> String {
    match billed {
        Some(b) => format!("{} s", secs(b)),
        None => billing(seconds, media).to_string(),
    }
}

/// The billed seconds once the service says how long it rendered: its seconds and the stated
/// reference videos' (the same rule as before rendering, on what was made rather than asked);
/// what was recorded when it does not say, or when a reference video's length is not known.
pub fn as_rendered(
    recorded: Option<f64>,
    rendered_seconds: Option<f64>,
    media: &[(MediaKind, Option<f64>)],
) -> Option<f64> {
    let Some(rendered) = rendered_seconds else { return recorded };
    let b = billing(0, media);
    match b.unstated_reference_videos {
        0 => Some(rendered + b.reference_video_seconds),
        _ => recorded,
    }
}

/// A sum of billed seconds with the tasks whose billed seconds are not known kept apart:
/// "120 s", "120 s + 2 tasks unknown".
pub fn total(known: f64, unknown_tasks: u64) -> String {
    match unknown_tasks {
        0 => format!("{} s", secs(known)),
        1 => format!("{} s + 1 task unknown", secs(known)),
        n => format!("{} s + {n} tasks unknown", secs(known)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use MediaKind::*;

    type Case<'a> = (i64, &'a [(MediaKind, Option<f64>)], Option<f64>, &'a str);

    #[test]
    fn billed_seconds_table() {
        let cases: &[Case] = &[
            (5, &[], Some(5.0), "5 s"),
            (10, &[(ReferenceVideo, Some(4.0))], Some(14.0), "14 s"),
            (10, &[(ReferenceVideo, Some(4.0)), (ReferenceVideo, Some(2.5))], Some(16.5), "16.5 s"),
            (10, &[(ReferenceImage, None), (ReferenceAudio, Some(9.0))], Some(10.0), "10 s"),
            (10, &[(ReferenceVideo, None)], None, "10 s + 1 reference video of unstated length"),
            (
                10,
                &[(ReferenceVideo, None), (ReferenceVideo, None), (ReferenceVideo, Some(1.0))],
                None,
                "11 s + 2 reference videos of unstated length",
            ),
            (-1, &[], None, "auto"),
            (-1, &[(ReferenceVideo, Some(3.0))], None, "auto + 3 s"),
        ];
        for (seconds, media, total, text) in cases {
            let b = billing(*seconds, media);
            assert_eq!(b.total(), *total, "{seconds} {media:?}");
            assert_eq!(b.to_string(), *text);
            let recorded = describe(b.total(), *seconds, media);
            assert_eq!(recorded, *text, "a recorded task reads as the form did");
        }
        assert_eq!(describe(Some(18.0), 10, &[(ReferenceVideo, None)]), "18 s", "a known figure wins");
        assert_eq!((total(120.0, 0), total(18.0, 1)), ("120 s".into(), "18 s + 1 task unknown".into()));
        assert_eq!(total(0.0, 2), "0 s + 2 tasks unknown", "unknown is never zero");
    }

    #[test]
    fn billed_as_rendered_when_the_service_says() {
        type Case<'a> = (Option<f64>, Option<f64>, &'a [(MediaKind, Option<f64>)], Option<f64>);
        let cases: &[Case] = &[
            (Some(5.0), Some(8.0), &[], Some(8.0)),
            (Some(5.0), Some(5.0), &[], Some(5.0)),
            (Some(5.0), None, &[], Some(5.0)),
            (None, Some(8.0), &[], Some(8.0)),
            (Some(9.0), Some(8.0), &[(ReferenceVideo, Some(4.0)), (ReferenceImage, None)], Some(12.0)),
            (None, Some(8.0), &[(ReferenceVideo, None)], None),
            (None, None, &[], None),
        ];
        for (recorded, rendered, media, want) in cases {
            assert_eq!(as_rendered(*recorded, *rendered, media), *want, "{recorded:?} {rendered:?} {media:?}");
        }
    }
}
