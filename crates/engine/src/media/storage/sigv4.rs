//! AWS Signature Version 4 in the `Authorization` header, the way the AWS SDKs sign S3
//! requests: every S3-compatible server checks it, where some check a request signed in its
//! URL only for GET (moto, for one, cannot check any other). rusty-s3 presigns the GET URLs
//! handed to the API; the requests reel makes itself are signed here.

use hmac::{Hmac, KeyInit, Mac};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use sha2::{Digest, Sha256};
use url::Url;

use reel_rules::text::hex;

/// What SigV4 leaves unencoded: letters, digits and `-._~`.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// The hash of an empty body.
pub(super) const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// Who signs, and for which region.
pub(super) struct Signer<'a> {
    pub key_id: &'a str,
    pub secret: &'a str,
    pub token: Option<&'a str>,
    pub region: &'a str,
}

impl Signer<'_> {
    /// The headers to add to `method url` so S3 accepts it at `now`: `x-amz-date`,
    /// `x-amz-content-sha256`, the session token if any, and `authorization`. `signed` are
    /// more headers the request carries that the signature covers (lowercase names).
    pub fn headers(
        &self,
        method: &str,
        url: &Url,
        signed: &[(&str, &str)],
        payload_sha256: &str,
        now: jiff::Timestamp,
    ) -> Vec<(&'static str, String)> {
        let amz_date = now.strftime("%Y%m%dT%H%M%SZ").to_string();
        let day = &amz_date[..8];
        let host = match url.port() {
            Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
            None => url.host_str().unwrap_or_default().to_string(),
        };
        let mut headers: Vec<(String, String)> = vec![
            ("host".into(), host),
            ("x-amz-content-sha256".into(), payload_sha256.into()),
            ("x-amz-date".into(), amz_date.clone()),
        ];
        if let Some(token) = self.token {
            headers.push(("x-amz-security-token".into(), token.into()));
        }
        headers.extend(signed.iter().map(|(n, v)| (n.to_ascii_lowercase(), v.trim().to_string())));
        headers.sort();
        let names: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
        let signed_names = names.join(";");
        let canonical_headers: String = headers.iter().map(|(n, v)| format!("{n}:{v}\n")).collect();
        let canonical = format!(
            "{method}\n{}\n{}\n{canonical_headers}\n{signed_names}\n{payload_sha256}",
            canonical_path(url),
            canonical_query(url)
        );
        let scope = format!("{day}/{}/s3/aws4_request", self.region);
        let to_sign = format!("AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}", hex(&Sha256::digest(canonical)));
        let key = [day, self.region, "s3", "aws4_request"]
            .iter()
            .fold(format!("AWS4{}", self.secret).into_bytes(), |key, part| hmac(&key, part.as_bytes()));
        let signature = hex(&hmac(&key, to_sign.as_bytes()));
        let mut out = vec![
            ("x-amz-date", amz_date),
            ("x-amz-content-sha256", payload_sha256.to_string()),
            (
                "authorization",
                format!(
                    "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={signed_names}, Signature={signature}",
                    self.key_id
                ),
            ),
        ];
        if let Some(token) = self.token {
            out.push(("x-amz-security-token", token.to_string()));
        }
        out
    }
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    // HMAC takes a key of any length.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else { return Vec::new() };
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

/// The path as sent: already encoded once, which is what S3 signs (it does not encode again).
fn canonical_path(url: &Url) -> &str {
    match url.path() {
        "" => "/",
        path => path,
    }
}

/// The query's pairs decoded, encoded again the SigV4 way and sorted; `uploads` is `uploads=`.
fn canonical_query(url: &Url) -> String {
    let mut pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| {
            (utf8_percent_encode(&k, UNRESERVED).to_string(), utf8_percent_encode(&v, UNRESERVED).to_string())
        })
        .collect();
    pairs.sort();
    pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The examples of AWS's "Signature Calculations for the Authorization Header" for S3.
    #[test]
    fn the_signatures_of_the_aws_examples() {
        let signer = Signer {
            key_id: "AKIAIOSFODNN7EXAMPLE",
            secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            token: None,
            region: "us-east-1",
        };
        let at: jiff::Timestamp = "2013-05-24T00:00:00Z".parse().expect("time");
        type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], &'a str);
        let cases: [Case; 3] = [
            (
                "https://examplebucket.s3.amazonaws.com/test.txt",
                EMPTY_SHA256,
                &[("range", "bytes=0-9")],
                "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, \
                 Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
            ),
            (
                "https://examplebucket.s3.amazonaws.com/?lifecycle",
                EMPTY_SHA256,
                &[],
                "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543",
            ),
            (
                "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J",
                EMPTY_SHA256,
                &[],
                "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
            ),
        ];
        for (url, payload, signed, want) in cases {
            let url = Url::parse(url).expect("url");
            let headers = signer.headers("GET", &url, signed, payload, at);
            let auth = headers.iter().find(|(n, _)| *n == "authorization").map(|(_, v)| v.as_str()).unwrap_or("");
            assert!(
                auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request"),
                "{auth}"
            );
            assert!(auth.ends_with(want), "{url}: {auth}");
        }
    }

    #[test]
    fn a_session_token_is_sent_and_signed() {
        let signer = Signer { key_id: "AKID", secret: "s", token: Some("tok en"), region: "eu-west-1" };
        let url = Url::parse("http://127.0.0.1:9000/b/k?partNumber=2&uploadId=a%2Fb").expect("url");
        let headers = signer.headers("PUT", &url, &[], EMPTY_SHA256, jiff::Timestamp::UNIX_EPOCH);
        let get = |name: &str| headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone());
        assert_eq!(get("x-amz-security-token").as_deref(), Some("tok en"));
        assert!(
            get("authorization")
                .is_some_and(|a| a.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token"))
        );
        assert_eq!(canonical_query(&url), "partNumber=2&uploadId=a%2Fb");
    }
}
