//! Measured durations in place of stated ones, pure: which items of a draft to check, whether a
//! refused draft may pass once measured, and the draft to validate again with what was measured.
//! Validation then enforces the spec's 15 s totals and computes billed seconds from it, so the
//! rules stay in one place (`rules::validate`, `rules::billing`).

use super::verdict::{Checked, Item};
use reel_rules::{Draft, Invalid, MediaKind, Violation};

/// The media items of a draft, in order; those of an unknown type are left to validation.
pub fn items(draft: &Draft) -> Vec<Item> {
    draft
        .media
        .iter()
        .enumerate()
        .filter_map(|(index, m)| {
            let kind = MediaKind::parse(&m.kind)?;
            let stated = m.seconds.as_deref().and_then(|s| s.trim().parse::<f64>().ok());
            Some(Item { index, kind, url: m.url.clone(), stated })
        })
        .collect()
}

/// Whether every broken rule is a duration total, which measuring may put right.
pub fn only_totals(invalid: &Invalid) -> bool {
    invalid.violations.iter().all(|v| matches!(v, Violation::ReferenceDurationExceeded { .. }))
}

/// The draft with each measured duration in place of the stated one; where none was measured
/// the stated one (or none: unknown) stays.
pub fn with_measured(draft: &Draft, checked: &[Checked]) -> Draft {
    let mut out = draft.clone();
    for c in checked {
        if let (Some(m), Some(d)) = (out.media.get_mut(c.item.index), c.duration) {
            // Display of an f64 reads back as the same number.
            m.seconds = Some(d.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_rules::{Catalog, MediaDraft, UnknownModels, validate};

    const MODEL: &str = "acme/aurora-3.0/reference-to-video-global";

    fn draft(media: &[(&str, Option<&str>)]) -> Draft {
        Draft {
            model: MODEL.into(),
            prompt: "video 1 and video 2".into(),
            seconds: Some("10".into()),
            media: media
                .iter()
                .enumerate()
                .map(|(i, (kind, secs))| {
                    MediaDraft::typed(kind, &format!("https://cdn.example/{i}"), secs.map(str::to_string))
                })
                .collect(),
            ..Draft::default()
        }
    }

    fn measured(d: &Draft, durations: &[Option<f64>]) -> Vec<Checked> {
        items(d)
            .into_iter()
            .zip(durations)
            .map(|(item, duration)| Checked {
                item,
                format: "video/mp4".into(),
                size: None,
                duration: *duration,
                source: None,
            })
            .collect()
    }

    #[test]
    fn measured_durations_decide_totals_and_billing() {
        type Case<'a> = (&'a [(&'a str, Option<&'a str>)], &'a [Option<f64>], Result<Option<f64>, &'a str>);
        let v = "reference_video";
        let a = "reference_audio";
        let cases: &[Case] = &[
            // Two 8 s videos stated as 5 s each: 16 s measured, over the 15 s total.
            (&[(v, Some("5")), (v, Some("5"))], &[Some(8.0), Some(8.0)], Err("reference_video items total 16 s")),
            // Stated over the total, measured within it: the measured ones count.
            (&[(v, Some("9")), (v, Some("9"))], &[Some(4.0), Some(3.5)], Ok(Some(17.5))),
            (&[(v, None)], &[Some(8.0)], Ok(Some(18.0))),
            (&[(v, Some("6"))], &[None], Ok(Some(16.0))),
            (&[(v, None)], &[None], Ok(None)),
            (&[(a, None), (a, None)], &[Some(8.0), Some(7.5)], Err("reference_audio items total 15.5 s")),
            (&[(a, None), (v, Some("2"))], &[Some(14.0), Some(2.25)], Ok(Some(12.25))),
            (&[("reference_image", None)], &[None], Ok(Some(10.0))),
        ];
        for (media, durations, want) in cases {
            let d = draft(media);
            let again = with_measured(&d, &measured(&d, durations));
            let got = validate(&again, &Catalog::builtin(), UnknownModels::Warn);
            match (&got, want) {
                (Ok(valid), Ok(billed)) => assert_eq!(valid.billing.total(), *billed, "{media:?}"),
                (Err(invalid), Err(text)) => {
                    assert!(only_totals(invalid));
                    assert!(invalid.to_string().starts_with(text), "{invalid}");
                }
                _ => panic!("{media:?} {durations:?}: {got:?}"),
            }
        }
    }

    #[test]
    fn items_of_a_draft() {
        let mut d = draft(&[("reference_video", Some("4.5")), ("bogus", None), ("reference_image", None)]);
        d.media[0].seconds = Some(" 4.5 ".into());
        let got: Vec<(usize, MediaKind, Option<f64>)> = items(&d).iter().map(|i| (i.index, i.kind, i.stated)).collect();
        assert_eq!(got, [(0, MediaKind::ReferenceVideo, Some(4.5)), (2, MediaKind::ReferenceImage, None)]);
        let invalid = validate(&d, &Catalog::builtin(), UnknownModels::Warn).expect_err("a bogus type");
        assert!(!only_totals(&invalid));
    }
}
