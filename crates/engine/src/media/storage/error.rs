//! What can go wrong with storage, in words a user can act on, and the mapping from a failed
//! request (a status with S3's `<Code>` and `<Message>`, or no answer) to them.

use std::path::PathBuf;

use thiserror::Error;

use super::request::Failure;

use reel_rules::params::MediaKind;

/// How to set up storage, quoted by the errors that need it.
pub const HOW_TO_CONFIGURE: &str = "add to the config file:\n  [storage]\n  bucket = \"my-bucket\"\n  region = \"us-east-1\"\n  endpoint = \"https://s3.example.com\"   # only for S3-compatible servers\n  prefix = \"reel\"\nand give credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN if temporary), or credentials_cmd = [\"program\", \"args\"] printing credential_process JSON";

/// Why what a credentials command printed is not credentials. Never quotes it: it holds the
/// secret.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProcessOutputError {
    #[error(
        "its output is not credential_process JSON (line {line}, column {column}); it should print {{\"Version\": 1, \"AccessKeyId\": \"…\", \"SecretAccessKey\": \"…\"}}"
    )]
    NotJson { line: usize, column: usize },
    #[error("its output lacks AccessKeyId or SecretAccessKey")]
    Incomplete,
}

#[derive(Debug, Error)]
pub enum StorageError {
    #[error("a local file needs storage to upload it to, and none is configured: {HOW_TO_CONFIGURE}")]
    NotConfigured,
    #[error("[storage] in the config file: {field}: {reason}")]
    BadSettings { field: &'static str, reason: String },
    #[error(
        "no storage credentials ({detail}): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or credentials_cmd in [storage]"
    )]
    NoCredentials { detail: String },
    #[error("storage credentials_cmd {command:?} failed: {detail}")]
    CredentialsCommand { command: Vec<String>, detail: String },
    #[error("cannot read {path}: {source}")]
    FileUnreadable { path: PathBuf, source: std::io::Error },
    #[error("{path}: {kind} takes {accepted}, not {found}")]
    WrongType { path: PathBuf, kind: MediaKind, found: String, accepted: String },
    #[error("{path} changed while it was being uploaded; try again once nothing is writing to it")]
    FileChanged { path: PathBuf },
    #[error(
        "bucket \"{bucket}\" does not exist at the storage server: create it, or fix bucket (and endpoint, region) in [storage]"
    )]
    BucketMissing { bucket: String },
    #[error(
        "the storage server refused access to bucket \"{bucket}\" ({detail}): check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or credentials_cmd) and that they may read and write under the prefix"
    )]
    AccessDenied { bucket: String, detail: String },
    #[error("upload of {key} failed: {detail}")]
    UploadFailed { key: String, detail: String },
    #[error("{key} is no longer in bucket \"{bucket}\"; upload the file again")]
    Gone { key: String, bucket: String },
}

/// S3's error code and message, found in the text of an error that quotes the server's body.
pub fn server_reply(text: &str) -> (Option<String>, Option<String>) {
    (between(text, "<Code>", "</Code>"), between(text, "<Message>", "</Message>"))
}

fn between(text: &str, open: &str, close: &str) -> Option<String> {
    let start = text.find(open)? + open.len();
    let len = text[start..].find(close)?;
    Some(text[start..start + len].trim().to_string()).filter(|s| !s.is_empty())
}

/// Codes that mean the credentials are wrong or lack permission.
const ACCESS_CODES: &[&str] = &[
    "AccessDenied",
    "AllAccessDisabled",
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "ExpiredToken",
    "InvalidToken",
    "TokenRefreshRequired",
    "AuthorizationHeaderMalformed",
];

/// What a failed request to storage means for the user. `key` names the object involved.
pub fn classify(failure: &Failure, bucket: &str, key: &str) -> StorageError {
    let (status, code, message) = match failure {
        Failure::Status { status, reason, body } => {
            let (code, message) = server_reply(body);
            (Some(format!("HTTP {status} {reason}").trim_end().to_string()), code, message)
        }
        Failure::Network(detail) | Failure::Unreadable(detail) => (None, None, Some(detail.clone())),
    };
    let detail = match (&code, &message) {
        (Some(c), Some(m)) => format!("{c}: {m}"),
        (Some(c), None) => c.clone(),
        (None, Some(m)) => m.clone(),
        (None, None) => status.unwrap_or_default(),
    };
    let detail = reel_rules::text::excerpt(&detail, 300);
    let denied_status = matches!(failure, Failure::Status { status: 401 | 403, .. });
    match code.as_deref() {
        Some("NoSuchBucket") => StorageError::BucketMissing { bucket: bucket.to_string() },
        Some(c) if ACCESS_CODES.contains(&c) => StorageError::AccessDenied { bucket: bucket.to_string(), detail },
        _ if denied_status => StorageError::AccessDenied { bucket: bucket.to_string(), detail },
        _ => StorageError::UploadFailed { key: key.to_string(), detail },
    }
}
