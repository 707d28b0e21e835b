//! Local media files uploaded to an S3-compatible bucket the user configured, handed to the
//! API as presigned GET URLs. Objects are content-addressed (`<prefix>/<sha256>.<ext>`), so a
//! file is uploaded once however often it is used. `bucket` holds the S3 operations, `sigv4`
//! signs them, `request` sends them with our reqwest; this module decides what to upload and
//! what its failures mean.

mod bucket;
mod error;
mod naming;
mod request;
mod settings;
mod sigv4;
mod transfer;

use std::path::Path;
use std::sync::Once;
use std::time::Duration;

use bucket::Bucket;

pub use error::{HOW_TO_CONFIGURE, ProcessOutputError, StorageError, classify, server_reply};
pub use naming::{
    MAX_URL_LIFETIME, URL_LIFETIME_MARGIN, accepted, clamp_lifetime, content_type, object_key, url_expiry, url_lifetime,
};
pub use request::Failure;
pub use settings::{
    Credentials, DEFAULT_REGION, ENV_ACCESS_KEY_ID, ENV_SECRET_ACCESS_KEY, ENV_SESSION_TOKEN, StorageSettings,
};
pub use transfer::{Progress, Transfer};

use reel_rules::params::MediaKind;

/// A file in the bucket and a URL that fetches it until `expires_at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uploaded {
    /// The object key, `<prefix>/<sha256>.<ext>`; keep it to re-sign later.
    pub key: String,
    /// Hex sha256 of the file.
    pub sha256: String,
    pub size: u64,
    /// Presigned GET URL. Signed with temporary credentials it carries their session token
    /// (SigV4 requires it), never the secret key.
    pub url: String,
    /// The URL works until about then (taken just before signing, so never later), or until
    /// the temporary credentials that signed it expire, if that is sooner.
    pub expires_at: jiff::Timestamp,
    /// The object was there already: nothing was sent.
    pub reused: bool,
}

/// A fresh presigned URL for an object already in the bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    pub url: String,
    pub expires_at: jiff::Timestamp,
    pub size: u64,
}

/// A connection to the configured bucket. Building it does no I/O.
pub struct Storage {
    bucket: Bucket,
    prefix: String,
    transfer: Transfer,
    credentials_expire: Option<jiff::Timestamp>,
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storage")
            .field("bucket", &self.bucket.name())
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

fn install_crypto() {
    static ONCE: Once = Once::new();
    // reqwest is built without a default TLS provider; fails only when one is installed already.
    ONCE.call_once(|| drop(rustls::crypto::ring::default_provider().install_default()));
}

impl Storage {
    /// `settings` is `None` when the config has no `[storage]`: the error says how to add one.
    pub fn connect(settings: Option<&StorageSettings>, credentials: Credentials) -> Result<Storage, StorageError> {
        let settings = settings.ok_or(StorageError::NotConfigured)?;
        settings.check()?;
        install_crypto();
        let credentials_expire = credentials.expires_at;
        let bucket = Bucket::new(settings.bucket_address()?, credentials).map_err(|e| StorageError::BadSettings {
            field: "storage",
            reason: reel_rules::text::excerpt(&e.to_string(), 300),
        })?;
        Ok(Storage { bucket, prefix: settings.prefix().to_string(), transfer: Transfer::default(), credentials_expire })
    }

    /// Part sizes and parallelism for large files (tests use small parts).
    pub fn with_transfer(mut self, transfer: Transfer) -> Storage {
        self.transfer = transfer;
        self
    }

    pub fn bucket(&self) -> &str {
        self.bucket.name()
    }

    /// Uploads `path` unless its content is in the bucket already, then presigns a GET URL
    /// living `lifetime` (clamped to 1 s ..= 7 days; see [`url_lifetime`]). `progress` hears
    /// bytes sent of the total as parts finish.
    pub async fn upload(
        &self,
        path: &Path,
        kind: MediaKind,
        lifetime: Duration,
        mut progress: impl FnMut(Progress) + Send,
    ) -> Result<Uploaded, StorageError> {
        let ext = naming::extension(path);
        let content_type = content_type(kind, ext.as_deref()).ok_or_else(|| StorageError::WrongType {
            path: path.to_path_buf(),
            kind,
            found: ext.as_deref().map_or("a file without an extension".to_string(), |e| format!(".{e}")),
            accepted: accepted(kind),
        })?;
        let ext = ext.unwrap_or_default();
        let local = transfer::read_local(path, self.transfer.multipart_threshold).await?;
        let key = object_key(&self.prefix, &local.sha256, &ext);
        let reused = match self.bucket.size_of(&key).await {
            Ok(size) => size == Some(local.size),
            Err(e) => return Err(classify(&e, self.bucket.name(), &key)),
        };
        if reused {
            progress(Progress { sent: local.size, total: local.size });
        } else {
            let fail = |e: Failure| classify(&e, self.bucket.name(), &key);
            transfer::send(&self.bucket, &key, path, &local, content_type, &self.transfer, &mut progress, fail).await?;
            tracing::info!(key = %key, size = local.size, "uploaded a media file");
        }
        let (url, expires_at) = self.sign(&key, lifetime);
        Ok(Uploaded { key, sha256: local.sha256, size: local.size, url, expires_at, reused })
    }

    /// A new URL for an object uploaded before (a re-run whose URL has expired), after
    /// checking it is still there.
    pub async fn resign(&self, key: &str, lifetime: Duration) -> Result<Signed, StorageError> {
        let size = match self.bucket.size_of(key).await {
            Ok(Some(size)) => size,
            Ok(None) => {
                return Err(StorageError::Gone { key: key.to_string(), bucket: self.bucket.name().to_string() });
            }
            Err(e) => return Err(classify(&e, self.bucket.name(), key)),
        };
        let (url, expires_at) = self.sign(key, lifetime);
        Ok(Signed { url, expires_at, size })
    }

    fn sign(&self, key: &str, lifetime: Duration) -> (String, jiff::Timestamp) {
        let lifetime = clamp_lifetime(lifetime);
        let now = jiff::Timestamp::now();
        let url = self.bucket.presign_get(key, lifetime);
        (url.to_string(), url_expiry(now, lifetime, self.credentials_expire))
    }
}

#[cfg(test)]
#[path = "storage/tests.rs"]
mod tests;
