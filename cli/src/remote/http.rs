//! The HTTP requests of the remote reader: the first request that learns a file's size (and
//! whether its host serves ranges), range requests, and the checks on what came back. Each
//! request asks for one range (hosts refuse several in one request) in `bytes=A-B` form (the
//! package index's file host refuses suffix ranges, `bytes=-N`, with 501), and for the identity
//! encoding (a gzip-encoded body has no byte offsets of the file).

use std::io::Read;
use std::time::Duration;
use ureq::http::{Response, StatusCode};
use ureq::{Body, ResponseExt};

/// Bytes asked for by the first request: what the explorer reads to tell a file's format
/// (a PE's NT headers follow its DOS stub), and the size from `Content-Range`; the page's
/// first request asks for as many (the core's `fetch_plan::PROBE`).
pub const FIRST_BYTES: u64 = offload::explore::fetch_plan::PROBE;

/// One client for the process: its connections are kept and shared by every thread.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(10)
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_recv_response(Some(Duration::from_secs(120)))
        .max_idle_connections_per_host(32)
        .user_agent(concat!("offload/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// What the first request found.
pub enum Opened {
    /// The host serves ranges: the file's size, and its first bytes.
    Ranged { location: String, size: u64, head: Vec<u8> },
    /// The host ignored the range and is sending the whole file (of `length` bytes, when it
    /// says): the body, to be read as it arrives.
    Whole { location: String, length: Option<u64>, body: ureq::BodyReader<'static> },
}

/// Why a range request failed.
pub enum RangeError {
    /// The URL answered 403 or 410: a signed URL that expired, to be resolved again.
    Refused(String),
    Other(String),
}

impl RangeError {
    pub fn message(self) -> String {
        match self {
            RangeError::Refused(m) | RangeError::Other(m) => m,
        }
    }
}

/// Asks `url` for its first [`FIRST_BYTES`], following redirects.
pub fn open(agent: &ureq::Agent, url: &str) -> Result<Opened, String> {
    let asked = format!("bytes=0-{}", FIRST_BYTES - 1);
    let response = get(agent, url, &asked)?;
    let location = response.get_uri().to_string();
    identity_encoding(url, &response)?;
    match response.status() {
        StatusCode::PARTIAL_CONTENT => {
            let (start, end, size) = content_range(url, &response, &asked)?;
            if start != 0 {
                return Err(format!("{url}: asked for `Range: {asked}`, got `Content-Range` starting at byte {start}"));
            }
            let head = body_of(url, response, end - start)?;
            Ok(Opened::Ranged { location, size, head })
        }
        StatusCode::OK => {
            let length = header(&response, "content-length").and_then(|v| v.parse().ok());
            Ok(Opened::Whole { location, length, body: response.into_body().into_reader() })
        }
        StatusCode::RANGE_NOT_SATISFIABLE if header(&response, "content-range").as_deref() == Some("bytes */0") => {
            Ok(Opened::Ranged { location, size: 0, head: Vec::new() })
        }
        status => Err(status_error(url, status, &format!("206 Partial Content or 200 OK to `Range: {asked}`"))),
    }
}

/// The bytes `start..end` of the file at `location` (`url` is what the user gave, for messages).
pub fn range(agent: &ureq::Agent, url: &str, location: &str, start: u64, end: u64) -> Result<Vec<u8>, RangeError> {
    let asked = format!("bytes={start}-{}", end - 1);
    let response = get(agent, location, &asked).map_err(RangeError::Other)?;
    identity_encoding(url, &response).map_err(RangeError::Other)?;
    let status = response.status();
    if status == StatusCode::FORBIDDEN || status == StatusCode::GONE {
        return Err(RangeError::Refused(status_error(
            url,
            status,
            &format!("206 Partial Content to `Range: {asked}`"),
        )));
    }
    if status != StatusCode::PARTIAL_CONTENT {
        let expected = format!("206 Partial Content to `Range: {asked}` (it served ranges before)");
        return Err(RangeError::Other(status_error(url, status, &expected)));
    }
    let (got_start, got_end, _) = content_range(url, &response, &asked).map_err(RangeError::Other)?;
    if (got_start, got_end) != (start, end) {
        return Err(RangeError::Other(format!(
            "{url}: asked for `Range: {asked}`, got bytes {got_start}-{} in `Content-Range`",
            got_end.saturating_sub(1)
        )));
    }
    body_of(url, response, end - start).map_err(RangeError::Other)
}

fn get(agent: &ureq::Agent, url: &str, range: &str) -> Result<Response<Body>, String> {
    agent
        .get(url)
        .header("Range", range)
        .header("Accept-Encoding", "identity")
        .call()
        .map_err(|e| format!("{url}: request for `Range: {range}` failed: {e}"))
}

fn header(response: &Response<Body>, name: &str) -> Option<String> {
    response.headers().get(name).and_then(|v| v.to_str().ok()).map(|v| v.trim().to_string())
}

/// Refuses a body in an encoding other than identity: its bytes are not the file's.
fn identity_encoding(url: &str, response: &Response<Body>) -> Result<(), String> {
    match header(response, "content-encoding") {
        Some(encoding) if !encoding.is_empty() && !encoding.eq_ignore_ascii_case("identity") => Err(format!(
            "{url}: expected the file's own bytes (`Accept-Encoding: identity` was sent), got `Content-Encoding: {encoding}`"
        )),
        _ => Ok(()),
    }
}

/// `(start, end exclusive, size)` from `Content-Range: bytes A-B/SIZE`.
fn content_range(url: &str, response: &Response<Body>, asked: &str) -> Result<(u64, u64, u64), String> {
    let value = header(response, "content-range").ok_or_else(|| {
        format!("{url}: expected a `Content-Range` header with the 206 answer to `Range: {asked}`, found none")
    })?;
    parse_content_range(&value).ok_or_else(|| {
        format!("{url}: expected `Content-Range: bytes FIRST-LAST/SIZE` answering `Range: {asked}`, found `{value}`")
    })
}

/// `bytes A-B/SIZE` as `(A, B + 1, SIZE)`, when it is well formed and B < SIZE.
pub fn parse_content_range(value: &str) -> Option<(u64, u64, u64)> {
    let rest = value.strip_prefix("bytes ")?.trim();
    let (span, size) = rest.split_once('/')?;
    let (first, last) = span.split_once('-')?;
    let (first, last, size): (u64, u64, u64) =
        (first.trim().parse().ok()?, last.trim().parse().ok()?, size.trim().parse().ok()?);
    (first <= last && last < size).then_some((first, last + 1, size))
}

/// The body of a range answer, which must be exactly `expected` bytes.
fn body_of(url: &str, response: Response<Body>, expected: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0).min(64 << 20));
    let mut reader = response.into_body().into_reader().take(expected.saturating_add(1));
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{url}: reading the answer failed after {} bytes: {e}", bytes.len()))?;
    if bytes.len() as u64 != expected {
        return Err(format!("{url}: expected {expected} bytes in the answer, got {}", bytes.len()));
    }
    Ok(bytes)
}

/// `URL: answered 404 Not Found, expected …`.
fn status_error(url: &str, status: StatusCode, expected: &str) -> String {
    let reason = status.canonical_reason().unwrap_or("");
    format!("{url}: answered {} {reason}, expected {expected}", status.as_u16())
}

#[cfg(test)]
mod tests {
    use super::parse_content_range;

    #[test]
    fn content_ranges_are_read_and_checked() {
        assert_eq!(parse_content_range("bytes 0-99/1000"), Some((0, 100, 1000)));
        assert_eq!(parse_content_range("bytes 10-9/1000"), None);
        assert_eq!(parse_content_range("bytes 0-1000/1000"), None);
        assert_eq!(parse_content_range("bytes */1000"), None);
        assert_eq!(parse_content_range("bytes 0-99/*"), None);
    }
}
