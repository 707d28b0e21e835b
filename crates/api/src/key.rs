//! The API key: kept out of Debug output, logs and error messages by construction.

use std::fmt;

use sha2::{Digest, Sha256};
use thiserror::Error;

#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KeyError {
    #[error("the API key is empty")]
    Empty,
    #[error("the API key contains spaces or control characters; check for a stray newline or quote")]
    BadCharacter,
}

impl ApiKey {
    /// Surrounding whitespace (a trailing newline from a file or `api_key_cmd`) is removed.
    pub fn new(text: &str) -> Result<ApiKey, KeyError> {
        let key = text.trim();
        if key.is_empty() {
            return Err(KeyError::Empty);
        }
        if !key.chars().all(|c| c.is_ascii_graphic()) {
            return Err(KeyError::BadCharacter);
        }
        Ok(ApiKey(key.to_string()))
    }

    /// A short fingerprint, to tell two keys apart without revealing either (an engine serving
    /// another key is not reused).
    pub fn fingerprint(&self) -> String {
        Sha256::digest(self.0.as_bytes()).iter().take(6).map(|b| format!("{b:02x}")).collect()
    }

    /// The secret itself, for the Authorization header only.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_checked_and_never_printed() {
        let k = ApiKey::new("  sk-secret-123\n").expect("valid");
        assert_eq!(k.expose(), "sk-secret-123");
        assert!(!format!("{k:?}").contains("secret"));
        assert_eq!(ApiKey::new(" \n"), Err(KeyError::Empty));
        assert_eq!(ApiKey::new("sk one"), Err(KeyError::BadCharacter));
        assert_eq!(ApiKey::new("sk\u{7}x"), Err(KeyError::BadCharacter));
    }
}
