//! `[storage]` as written in the config file, and the credentials for it, which are never in
//! the file: they come from the environment or from `credentials_cmd` each time they are needed.

use std::fmt;
use std::time::Duration;

use serde::Deserialize;
use url::Url;

use super::error::{ProcessOutputError, StorageError};

/// `[storage]`: an S3-compatible bucket for local media files. Holds no secret.
///
/// ```toml
/// [storage]
/// endpoint = "https://s3.example.com"   # omit for AWS
/// region = "eu-west-1"                  # default us-east-1
/// bucket = "my-media"
/// prefix = "reel"                       # objects are <prefix>/<sha256>.<ext>
/// virtual_hosted = false                # default: path style with an endpoint, else virtual hosted
/// credentials_cmd = ["aws", "configure", "export-credentials", "--format", "process"]
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageSettings {
    /// An S3-compatible server; `None`: AWS S3 itself.
    pub endpoint: Option<String>,
    pub region: Option<String>,
    pub bucket: String,
    #[serde(default)]
    pub prefix: String,
    /// Bucket in the host name (`bucket.host`) rather than in the path (`host/bucket`).
    pub virtual_hosted: Option<bool>,
    /// A program and arguments (no shell) that prints credentials as AWS `credential_process`
    /// JSON: `{"Version": 1, "AccessKeyId": "…", "SecretAccessKey": "…", "SessionToken": "…"}`.
    /// When set it is used instead of the environment.
    pub credentials_cmd: Option<Vec<String>>,
}

/// Used when `region` is not set; S3-compatible servers mostly ignore it.
pub const DEFAULT_REGION: &str = "us-east-1";

impl StorageSettings {
    pub fn region(&self) -> &str {
        self.region.as_deref().map(str::trim).filter(|r| !r.is_empty()).unwrap_or(DEFAULT_REGION)
    }

    /// Path style is what S3-compatible servers accept everywhere; AWS prefers virtual hosts.
    pub fn virtual_hosted(&self) -> bool {
        self.virtual_hosted.unwrap_or(self.endpoint.is_none())
    }

    /// The prefix without surrounding slashes; empty for the bucket's root.
    pub fn prefix(&self) -> &str {
        self.prefix.trim().trim_matches('/')
    }

    /// The endpoint as written, checked: `None` for AWS itself.
    pub fn endpoint_url(&self) -> Result<Option<Url>, StorageError> {
        let Some(text) = self.endpoint.as_deref().map(str::trim).filter(|e| !e.is_empty()) else {
            return Ok(None);
        };
        let bad = |reason: &str| StorageError::BadSettings { field: "endpoint", reason: format!("{text}: {reason}") };
        let url = Url::parse(text).map_err(|e| bad(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad("must start with http:// or https://"));
        }
        if url.query().is_some() || url.fragment().is_some() || !matches!(url.path(), "" | "/") {
            return Err(bad("must be a bare server address, without a path or query"));
        }
        if url.host_str().is_none() {
            return Err(bad("has no host"));
        }
        Ok(Some(url))
    }

    /// The bucket's address: on the endpoint (AWS's regional one without it), with the bucket
    /// in the host name when virtual hosted, else in the path.
    pub fn bucket_address(&self) -> Result<rusty_s3::Bucket, StorageError> {
        let endpoint = match self.endpoint_url()? {
            Some(url) => url,
            None => Url::parse(&format!("https://s3.{}.amazonaws.com", self.region())).map_err(|e| {
                StorageError::BadSettings { field: "region", reason: format!("\"{}\": {e}", self.region()) }
            })?,
        };
        let style = if self.virtual_hosted() { rusty_s3::UrlStyle::VirtualHost } else { rusty_s3::UrlStyle::Path };
        let bucket = self.bucket.trim().to_string();
        rusty_s3::Bucket::new(endpoint, style, bucket, self.region().to_string()).map_err(|e| {
            StorageError::BadSettings {
                field: "bucket",
                reason: format!("{e}; set virtual_hosted = false for an IP address"),
            }
        })
    }

    /// Checks what can be checked without the network.
    pub fn check(&self) -> Result<(), StorageError> {
        let bucket = self.bucket.trim();
        if bucket.is_empty() || bucket.chars().any(|c| c == '/' || c.is_whitespace() || c.is_control()) {
            return Err(StorageError::BadSettings {
                field: "bucket",
                reason: format!("\"{}\" is not a bucket name", reel_rules::text::excerpt(bucket, 80)),
            });
        }
        let prefix = self.prefix();
        let bad_segment = |s: &str| s.is_empty() || s == "." || s == ".." || s.chars().any(char::is_control);
        if !prefix.is_empty() && prefix.split('/').any(bad_segment) {
            return Err(StorageError::BadSettings {
                field: "prefix",
                reason: format!(
                    "\"{}\" has an empty, \".\" or \"..\" part, or a control character",
                    reel_rules::text::excerpt(&self.prefix, 80)
                ),
            });
        }
        if self.credentials_cmd.as_ref().is_some_and(|c| c.first().is_none_or(|p| p.trim().is_empty())) {
            return Err(StorageError::BadSettings { field: "credentials_cmd", reason: "names no program".into() });
        }
        self.bucket_address().map(drop)
    }
}

/// Keys for the bucket. `Debug` shows only the start of the key id.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub(super) access_key_id: String,
    pub(super) secret_access_key: String,
    pub(super) session_token: Option<String>,
    /// When temporary credentials stop working; URLs signed with them die then too.
    pub(super) expires_at: Option<jiff::Timestamp>,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id: String = self.access_key_id.chars().take(4).collect();
        f.debug_struct("Credentials")
            .field("access_key_id", &format!("{id}…"))
            .field("secret_access_key", &"<redacted>")
            .field("session_token", &self.session_token.as_ref().map(|_| "<redacted>"))
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

/// Where the environment names the keys (the AWS tools' own names).
pub const ENV_ACCESS_KEY_ID: &str = "AWS_ACCESS_KEY_ID";
pub const ENV_SECRET_ACCESS_KEY: &str = "AWS_SECRET_ACCESS_KEY";
pub const ENV_SESSION_TOKEN: &str = "AWS_SESSION_TOKEN";

/// How long `credentials_cmd` may take (a password manager may be slow, never this slow).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

impl Credentials {
    /// Both parts are needed; surrounding whitespace (a stray newline) is dropped.
    pub fn new(access_key_id: &str, secret_access_key: &str, session_token: Option<&str>) -> Option<Credentials> {
        let id = access_key_id.trim();
        let secret = secret_access_key.trim();
        if id.is_empty() || secret.is_empty() {
            return None;
        }
        let session_token = session_token.map(str::trim).filter(|t| !t.is_empty()).map(str::to_string);
        Some(Credentials {
            access_key_id: id.into(),
            secret_access_key: secret.into(),
            session_token,
            expires_at: None,
        })
    }

    /// Temporary credentials: they stop working at `at`.
    pub fn expiring(mut self, at: jiff::Timestamp) -> Credentials {
        self.expires_at = Some(at);
        self
    }

    /// From AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN as `var` gives them
    /// (the caller passes the process environment; this module reads none itself).
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Credentials, StorageError> {
        let id = var(ENV_ACCESS_KEY_ID).filter(|v| !v.trim().is_empty());
        let secret = var(ENV_SECRET_ACCESS_KEY).filter(|v| !v.trim().is_empty());
        match (id, secret) {
            (Some(id), Some(secret)) => Credentials::new(&id, &secret, var(ENV_SESSION_TOKEN).as_deref())
                .ok_or(StorageError::NoCredentials { detail: "they are blank".into() }),
            (None, None) => Err(StorageError::NoCredentials { detail: "none are set".into() }),
            (None, Some(_)) => Err(StorageError::NoCredentials { detail: format!("{ENV_ACCESS_KEY_ID} is not set") }),
            (Some(_), None) => {
                Err(StorageError::NoCredentials { detail: format!("{ENV_SECRET_ACCESS_KEY} is not set") })
            }
        }
    }

    /// Parses `credential_process` JSON. Errors never quote the text: it holds the secret.
    pub fn from_process_json(text: &str) -> Result<Credentials, ProcessOutputError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "PascalCase")]
        struct Printed {
            access_key_id: Option<String>,
            secret_access_key: Option<String>,
            session_token: Option<String>,
            expiration: Option<String>,
        }
        let printed: Printed = serde_json::from_str(text.trim())
            .map_err(|e| ProcessOutputError::NotJson { line: e.line(), column: e.column() })?;
        let id = printed.access_key_id.unwrap_or_default();
        let secret = printed.secret_access_key.unwrap_or_default();
        let credentials =
            Credentials::new(&id, &secret, printed.session_token.as_deref()).ok_or(ProcessOutputError::Incomplete)?;
        // An Expiration that does not parse is treated as unknown, as when it is absent.
        Ok(match printed.expiration.and_then(|e| e.trim().parse::<jiff::Timestamp>().ok()) {
            Some(at) => credentials.expiring(at),
            None => credentials,
        })
    }

    /// Runs `argv` (no shell, no stdin) and parses what it prints. Async so that a slow
    /// password manager never blocks the caller's runtime.
    pub async fn from_command(argv: &[String]) -> Result<Credentials, StorageError> {
        let fail = |detail: String| StorageError::CredentialsCommand { command: argv.to_vec(), detail };
        let Some((program, args)) = argv.split_first() else { return Err(fail("it names no program".into())) };
        let child = tokio::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output();
        let output = tokio::time::timeout(COMMAND_TIMEOUT, child)
            .await
            .map_err(|_| fail(format!("it did not finish within {} s", COMMAND_TIMEOUT.as_secs())))?
            .map_err(|e| fail(e.to_string()))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(fail(format!("{}: {}", output.status, reel_rules::text::excerpt(stderr.trim(), 200))));
        }
        Credentials::from_process_json(&String::from_utf8_lossy(&output.stdout)).map_err(|e| fail(e.to_string()))
    }

    /// The credentials `[storage]` calls for: `credentials_cmd` when set, else the environment.
    pub async fn resolve(
        settings: &StorageSettings,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Credentials, StorageError> {
        match &settings.credentials_cmd {
            Some(argv) => Credentials::from_command(argv).await,
            None => Credentials::from_env(var),
        }
    }
}
