//! Local media files uploaded to an S3-compatible bucket the user configured, handed to the
//! API as presigned GET URLs. Objects are content-addressed (`<prefix>/<sha256>.<ext>`), so a
//! file is uploaded once however often it is used. object_store does the HTTP and the SigV4
//! signing; this module decides what to upload and what its failures mean.

mod error;
mod naming;
mod settings;
mod transfer;

use std::path::Path;
use std::sync::{Arc, Once};
use std::time::Duration;

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as ObjectPath;
use object_store::signer::{Method, Signer};
use object_store::{ClientOptions, ObjectStoreExt, RetryConfig, StaticCredentialProvider};

pub use error::{HOW_TO_CONFIGURE, ProcessOutputError, StorageError, classify, server_reply};
pub use naming::{
    MAX_URL_LIFETIME, URL_LIFETIME_MARGIN, accepted, clamp_lifetime, content_type, object_key, url_expiry, url_lifetime,
};
pub use settings::{
    Credentials, DEFAULT_REGION, ENV_ACCESS_KEY_ID, ENV_SECRET_ACCESS_KEY, ENV_SESSION_TOKEN, StorageSettings,
};
pub use transfer::{Progress, Transfer};

use crate::rules::params::MediaKind;

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
    store: AmazonS3,
    bucket: String,
    prefix: String,
    transfer: Transfer,
    credentials_expire: Option<jiff::Timestamp>,
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storage").field("bucket", &self.bucket).field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

fn install_crypto() {
    static ONCE: Once = Once::new();
    // reqwest is built without a default TLS provider; fails only when one is installed already.
    ONCE.call_once(|| drop(rustls::crypto::ring::default_provider().install_default()));
}

/// A reply that stops coming this long is cut (and retried by object_store).
const READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest one request may take: 8 MiB at 75 kbit/s.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15 * 60);

impl Storage {
    /// `settings` is `None` when the config has no `[storage]`: the error says how to add one.
    pub fn connect(settings: Option<&StorageSettings>, credentials: Credentials) -> Result<Storage, StorageError> {
        let settings = settings.ok_or(StorageError::NotConfigured)?;
        settings.check()?;
        install_crypto();
        let endpoint = settings.endpoint_url()?;
        // One request carries at most a part (8 MiB): the whole-request limit only ends a stall
        // in sending, which the read timeout cannot see, and never a working slow line.
        let options = ClientOptions::new()
            .with_timeout(REQUEST_TIMEOUT)
            .with_connect_timeout(Duration::from_secs(10))
            .with_read_timeout(READ_TIMEOUT)
            .with_allow_http(endpoint.as_ref().is_some_and(|u| u.scheme() == "http"));
        let retry = RetryConfig { max_retries: 4, retry_timeout: Duration::from_secs(120), ..RetryConfig::default() };
        let credentials_expire = credentials.expires_at;
        let credential = object_store::aws::AwsCredential {
            key_id: credentials.access_key_id,
            secret_key: credentials.secret_access_key,
            token: credentials.session_token,
        };
        let mut builder = AmazonS3Builder::new()
            .with_region(settings.region())
            .with_bucket_name(settings.bucket.trim())
            .with_virtual_hosted_style_request(settings.virtual_hosted())
            .with_credentials(Arc::new(StaticCredentialProvider::new(credential)))
            .with_client_options(options)
            .with_retry(retry);
        if let Some(url) = endpoint {
            builder = builder.with_endpoint(url.as_str().trim_end_matches('/'));
        }
        let store = builder.build().map_err(|e| StorageError::BadSettings {
            field: "storage",
            reason: crate::text::excerpt(&e.to_string(), 300),
        })?;
        Ok(Storage {
            store,
            bucket: settings.bucket.trim().to_string(),
            prefix: settings.prefix().to_string(),
            transfer: Transfer::default(),
            credentials_expire,
        })
    }

    /// Part sizes and parallelism for large files (tests use small parts).
    pub fn with_transfer(mut self, transfer: Transfer) -> Storage {
        self.transfer = transfer;
        self
    }

    pub fn bucket(&self) -> &str {
        &self.bucket
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
        let location = self.location(&key)?;
        let reused = match self.store.head(&location).await {
            Ok(meta) if meta.size == local.size => true,
            Ok(_) | Err(object_store::Error::NotFound { .. }) => false,
            Err(e) => return Err(classify(&e, &self.bucket, &key)),
        };
        if reused {
            progress(Progress { sent: local.size, total: local.size });
        } else {
            let fail = |e: object_store::Error| classify(&e, &self.bucket, &key);
            transfer::send(&self.store, &location, path, &local, content_type, &self.transfer, &mut progress, fail)
                .await?;
            tracing::info!(key = %key, size = local.size, "uploaded a media file");
        }
        let (url, expires_at) = self.sign(&location, &key, lifetime).await?;
        Ok(Uploaded { key, sha256: local.sha256, size: local.size, url, expires_at, reused })
    }

    /// A new URL for an object uploaded before (a re-run whose URL has expired), after
    /// checking it is still there.
    pub async fn resign(&self, key: &str, lifetime: Duration) -> Result<Signed, StorageError> {
        let location = self.location(key)?;
        let meta = self.store.head(&location).await.map_err(|e| match e {
            object_store::Error::NotFound { .. } => {
                StorageError::Gone { key: key.to_string(), bucket: self.bucket.clone() }
            }
            e => classify(&e, &self.bucket, key),
        })?;
        let (url, expires_at) = self.sign(&location, key, lifetime).await?;
        Ok(Signed { url, expires_at, size: meta.size })
    }

    fn location(&self, key: &str) -> Result<ObjectPath, StorageError> {
        ObjectPath::parse(key).map_err(|e| StorageError::UploadFailed { key: key.to_string(), detail: e.to_string() })
    }

    async fn sign(
        &self,
        location: &ObjectPath,
        key: &str,
        lifetime: Duration,
    ) -> Result<(String, jiff::Timestamp), StorageError> {
        let lifetime = clamp_lifetime(lifetime);
        let now = jiff::Timestamp::now();
        let url = self.store.signed_url(Method::GET, location, lifetime).await.map_err(|e| StorageError::Sign {
            key: key.to_string(),
            detail: crate::text::excerpt(&e.to_string(), 300),
        })?;
        Ok((url.to_string(), url_expiry(now, lifetime, self.credentials_expire)))
    }
}

#[cfg(test)]
#[path = "storage/tests.rs"]
mod tests;
