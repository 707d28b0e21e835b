//! The S3 operations reel needs on the configured bucket, and nothing more: ask an object's
//! size, put it whole or in parts, and presign a GET. rusty-s3 gives the addresses, S3's XML
//! and the presigned URLs; `sigv4` signs what is sent, and `request` sends it.

use std::time::Duration;

use bytes::Bytes;
use reqwest::Method;
use reqwest::header::{CONTENT_LENGTH, ETAG};
use rusty_s3::S3Action as _;
use rusty_s3::actions::CreateMultipartUpload;
use sha2::{Digest, Sha256};
use url::Url;

use super::request::{self, Failure};
use super::settings::Credentials;
use super::sigv4::{EMPTY_SHA256, Signer};
use reel_rules::text::hex;

/// S3 numbers parts 1 ..= 10,000.
pub(super) const MAX_PARTS: u16 = 10_000;

pub(super) struct Bucket {
    http: reqwest::Client,
    address: rusty_s3::Bucket,
    credentials: Credentials,
    /// The same keys as rusty-s3 takes them, for presigning.
    presigner: rusty_s3::Credentials,
}

impl Bucket {
    pub fn new(address: rusty_s3::Bucket, credentials: Credentials) -> Result<Bucket, reqwest::Error> {
        let (id, secret) = (credentials.access_key_id.clone(), credentials.secret_access_key.clone());
        let presigner = match credentials.session_token.clone() {
            Some(token) => rusty_s3::Credentials::new_with_token(id, secret, token),
            None => rusty_s3::Credentials::new(id, secret),
        };
        Ok(Bucket { http: request::client()?, address, credentials, presigner })
    }

    pub fn name(&self) -> &str {
        self.address.name()
    }

    /// The size of the object at `key`, or `None` when nothing is there.
    pub async fn size_of(&self, key: &str) -> Result<Option<u64>, Failure> {
        let reply = self.send(Method::HEAD, self.address.object_url(key), &[], None, true).await?;
        if reply.status == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        let size = reply.headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok());
        Ok(Some(size.unwrap_or(0)))
    }

    /// One PUT of the whole object.
    pub async fn put(&self, key: &str, content_type: &str, body: Bytes) -> Result<(), Failure> {
        let url = self.address.object_url(key);
        self.send(Method::PUT, url, &[("content-type", content_type)], Some(body), false).await.map(drop)
    }

    /// Starts a multipart upload; its id.
    pub async fn start_parts(&self, key: &str, content_type: &str) -> Result<String, Failure> {
        let mut url = self.address.object_url(key);
        url.set_query(Some("uploads"));
        let reply = self.send(Method::POST, url, &[("content-type", content_type)], None, false).await?;
        let started = CreateMultipartUpload::parse_response(&reply.body)
            .map_err(|e| Failure::Unreadable(format!("the answer to starting a multipart upload: {e}")))?;
        Ok(started.upload_id().to_string())
    }

    /// Sends part `number` (from 1); its ETag, which completing the upload names.
    pub async fn put_part(&self, key: &str, upload_id: &str, number: u16, body: Bytes) -> Result<String, Failure> {
        let mut url = self.address.object_url(key);
        url.query_pairs_mut().append_pair("partNumber", &number.to_string()).append_pair("uploadId", upload_id);
        let reply = self.send(Method::PUT, url, &[], Some(body), false).await?;
        let etag = reply.headers.get(ETAG).and_then(|v| v.to_str().ok()).filter(|e| !e.is_empty());
        etag.map(str::to_string).ok_or_else(|| Failure::Unreadable(format!("part {number} came back without an ETag")))
    }

    /// Joins the parts, in order, into the object.
    pub async fn finish_parts(&self, key: &str, upload_id: &str, etags: &[String]) -> Result<(), Failure> {
        let body =
            self.address.complete_multipart_upload(None, key, upload_id, etags.iter().map(String::as_str)).body();
        let url = self.upload_url(key, upload_id);
        let xml = [("content-type", "application/xml")];
        self.send(Method::POST, url, &xml, Some(Bytes::from(body)), false).await.map(drop)
    }

    /// Drops the parts sent so far: they cost money until the bucket's lifecycle rules remove them.
    pub async fn abandon_parts(&self, key: &str, upload_id: &str) -> Result<(), Failure> {
        self.send(Method::DELETE, self.upload_url(key, upload_id), &[], None, false).await.map(drop)
    }

    /// A URL that GETs the object for `lifetime`. Signed with temporary credentials it carries
    /// their session token, never the secret key.
    pub fn presign_get(&self, key: &str, lifetime: Duration) -> Url {
        self.address.get_object(Some(&self.presigner), key).sign(lifetime)
    }

    fn upload_url(&self, key: &str, upload_id: &str) -> Url {
        let mut url = self.address.object_url(key);
        url.query_pairs_mut().append_pair("uploadId", upload_id);
        url
    }

    /// Signs `method url` with `headers` (sent and signed) and `body`, and sends it.
    async fn send(
        &self,
        method: Method,
        url: Url,
        headers: &[(&str, &str)],
        body: Option<Bytes>,
        missing_ok: bool,
    ) -> Result<request::Reply, Failure> {
        let payload = body.as_ref().map_or_else(|| EMPTY_SHA256.to_string(), |b| hex(&Sha256::digest(b)));
        let signer = Signer {
            key_id: &self.credentials.access_key_id,
            secret: &self.credentials.secret_access_key,
            token: self.credentials.session_token.as_deref(),
            region: self.address.region(),
        };
        let mut all: Vec<(&str, String)> = headers.iter().map(|(n, v)| (*n, v.to_string())).collect();
        all.extend(signer.headers(method.as_str(), &url, headers, &payload, jiff::Timestamp::now()));
        request::send(&self.http, method, &url, &all, body, missing_ok).await
    }
}
