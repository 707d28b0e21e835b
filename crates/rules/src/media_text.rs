//! A media item as typed on a command line or in a batch file: `TYPE=URL[@SECONDS]`.

use thiserror::Error;

use super::validate::MediaDraft;

/// A `--media` value without the `TYPE=` that says what the item is.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("--media \"{0}\" is not TYPE=URL[@SECONDS]")]
pub struct BadMedia(pub String);

/// `TYPE=URL[@SECONDS]`; `@SECONDS` counts only when it is a number, since URLs may hold `@`.
pub fn parse_media(text: &str) -> Result<MediaDraft, BadMedia> {
    let (kind, rest) = text.split_once('=').ok_or_else(|| BadMedia(text.to_string()))?;
    let (url, seconds) = match rest.rsplit_once('@') {
        Some((url, secs)) if secs.trim().parse::<f64>().is_ok() => (url, Some(secs.trim().to_string())),
        _ => (rest, None),
    };
    Ok(MediaDraft::typed(kind, url, seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_arguments() {
        let cases = [
            ("first_frame=https://x.org/a.png", Ok(("first_frame", "https://x.org/a.png", None))),
            ("reference_video=https://x.org/v.mp4@4.5", Ok(("reference_video", "https://x.org/v.mp4", Some("4.5")))),
            ("reference_image=https://user@x.org/a.png", Ok(("reference_image", "https://user@x.org/a.png", None))),
            ("no-equals", Err("--media \"no-equals\" is not TYPE=URL[@SECONDS]")),
        ];
        for (text, want) in cases {
            let got = parse_media(text);
            match (got, want) {
                (Ok(m), Ok((k, u, s))) => {
                    assert_eq!((m.kind.as_str(), m.url.as_str(), m.seconds.as_deref()), (k, u, s))
                }
                (Err(e), Err(words)) => assert_eq!(e.to_string(), words),
                (got, want) => panic!("{text}: {got:?} vs {want:?}"),
            }
        }
    }
}
