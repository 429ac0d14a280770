//! `#url=<address>` links: a file fetched from another site (or this machine) and opened like
//! a dropped one, after the user agreed to it in the page.
//!
//! Only https addresses, and plain http to this machine, are fetched (see
//! [`crate::page::share::check_remote_address`]); the page's Content-Security-Policy allows exactly
//! those in `connect-src`. The fetch sends no cookies and is never cached, and the body is read
//! as a stream so its progress shows and Cancel stops it.
//!
//! What the page is doing about such a link is plain state ([`RemoteState`], kept by the
//! reducer); the fetching itself needs a browser and builds only for `wasm32`.

use crate::page::format::human_size;
use crate::page::pypi::{Choice, PypiLink};
use offload::edit::NodePath;

/// The `#url=` prompt and what follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RemoteState {
    /// "Open URL…": the address being typed, and why the last one was refused.
    Entering { address: String, problem: Option<String> },
    /// Asking whether to fetch the file at `address` (an absolute URL, already checked).
    Asking { address: String, selection: NodePath },
    /// Asking whether to read the package index a `#pypi=` link names: nothing is fetched
    /// before the user agrees.
    AskingIndex { link: PypiLink },
    /// Reading a package index for a `#pypi=` link (`package` as the link wrote it).
    Resolving { package: String },
    /// A `#pypi=` link's wheel, chosen (or picked by the user), waiting for Open.
    Choosing { package: String, choice: Choice, selection: NodePath },
    /// Reading the file: bytes so far, and the total when the server said it; `note` says how
    /// it is read when that is not by ranges ("read whole: the host does not serve ranges").
    Fetching { address: String, bytes_read: u64, total: Option<u64>, note: Option<String> },
    /// Why a link could not be opened: its address (when it had one) and the reason.
    Failed { address: Option<String>, message: String },
}

/// "12.0 KiB of 48.0 KiB read", or without a total "12.0 KiB read". A total smaller than what
/// was read (a server that compresses on the way reports the compressed length) is not shown.
pub fn progress_text(bytes_read: u64, total: Option<u64>) -> String {
    match total {
        Some(total) if total >= bytes_read => format!("{} of {} read", human_size(bytes_read), human_size(total)),
        _ => format!("{} read", human_size(bytes_read)),
    }
}

/// The tab's name for a fetched file: the last segment of the address's path, decoded, else
/// the host's name.
pub fn file_name_for(pathname: &str, hostname: &str) -> String {
    let last = pathname.rsplit('/').next().unwrap_or_default();
    let decoded = crate::page::share::percent_decode(last)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_else(|| last.to_string());
    let name = decoded.trim();
    if name.is_empty() || name.contains(['/', '\\']) || name.chars().any(char::is_control) {
        hostname.to_string()
    } else {
        name.to_string()
    }
}

/// The message for a fetch that failed before any response could be read. For another
/// origin that is, nearly always, a server that does not allow other sites to read its
/// files: the browser hides the difference from the page on purpose.
pub fn network_error_message(cross_origin: bool, host: &str) -> String {
    if cross_origin {
        format!(
            "{host} did not allow this page to read the file: its server sent no Access-Control-Allow-Origin header for this site \
             (or it could not be reached). Download the file and drop it on this page instead, or open it from a host that sends \
             Access-Control-Allow-Origin (as the Python package index's file host does)."
        )
    } else {
        format!("{host} could not be reached, so the file could not be read. Check the address and your connection.")
    }
}

/// The message for an HTTP error answer.
pub fn http_error_message(status: u16, status_text: &str) -> String {
    let text = if status_text.is_empty() { String::new() } else { format!(" {status_text}") };
    format!("the server answered HTTP {status}{text} instead of the file")
}

/// "read 41.0 MiB of 2.1 GiB": the bytes fetched from a remote file read by ranges, of its size.
pub fn fetched_text(fetched: u64, size: u64) -> String {
    format!("read {} of {}", human_size(fetched), human_size(size))
}

#[cfg(target_arch = "wasm32")]
pub use browser::{fetch_range, open_remote, resolve_address, FetchProblem, Opened};

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::{http_error_message, network_error_message};
    use crate::page::share::check_remote_address;
    use crate::wire::remote::{
        check_range_answer, probe, range_header, size_check_range, size_confirmed, Probe, RemoteFile, WholeWhy,
    };
    use js_sys::{Array, Reflect, Uint8Array};
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    use web_sys::{
        AbortController, AbortSignal, Blob, Headers, ReadableStreamDefaultReader, RequestCache, RequestCredentials,
        RequestInit, RequestMode, Response, Url,
    };

    /// Why a fetch gave no file.
    #[derive(Debug, PartialEq)]
    pub enum FetchProblem {
        /// The user cancelled it.
        Cancelled,
        Failed(String),
    }

    /// The absolute address a link names (relative ones are relative to the page's base), if
    /// the page may fetch it.
    pub fn resolve_address(address: &str) -> Result<Url, String> {
        let base = gloo_utils::document().base_uri().ok().flatten().unwrap_or_default();
        let url = Url::new_with_base(address, &base).map_err(|_| {
            format!("expected the address of a file after url=, found \"{address}\", which is not an address")
        })?;
        check_remote_address(&url.protocol(), &url.hostname())?;
        Ok(url)
    }

    /// How a remote file is opened.
    pub enum Opened {
        /// Read by ranges, by the workers.
        Ranges(RemoteFile),
        /// Read whole (the host serves no ranges): its bytes, and why it was read so.
        Whole(Blob, WholeWhy),
    }

    /// Bytes asked for by the first request, which tells whether the host serves ranges: what
    /// the CLI asks for first.
    const PROBE_BYTES: u64 = offload::explore::fetch_plan::PROBE;

    /// Opens the file at `url`: by ranges when its host serves them (the size from
    /// `Content-Range`, else from a HEAD's `Content-Length`, else from a plain GET's, aborted
    /// after the headers),
    /// else read whole as one stream, reporting (bytes read, total if known, why whole) after
    /// each piece; `signal` aborts it.
    pub async fn open_remote(
        url: &Url,
        signal: &AbortSignal,
        on_progress: impl Fn(u64, Option<u64>, Option<WholeWhy>),
    ) -> Result<Opened, FetchProblem> {
        let first = request(url, signal, range_header(0, PROBE_BYTES).as_deref()).await?;
        let header = |r: &Response, name: &str| r.headers().get(name).ok().flatten();
        let (range, encoding) = (header(&first, "content-range"), header(&first, "content-encoding"));
        match probe(first.status(), range.as_deref(), encoding.as_deref()) {
            Probe::Ranges { size: Some(size) } => {
                cancel_body(&first);
                Ok(Opened::Ranges(RemoteFile { url: url.href(), size }))
            }
            Probe::Ranges { size: None } => {
                cancel_body(&first);
                // Content-Range is hidden from this page: a HEAD's Content-Length (which CORS
                // always lets a page read) gives the size where the host answers HEAD.
                if let Some(size) = head_size(url, signal).await? {
                    return confirmed(url, signal, size, &on_progress).await;
                }
                // Else a plain GET's Content-Length, aborted at its headers (a signed address
                // may be signed for GET alone).
                let headers_only = AbortController::new().map_err(|e| FetchProblem::Failed(format!("{e:?}")))?;
                let stop = {
                    let c = headers_only.clone();
                    move || c.abort()
                };
                let on_abort = wasm_bindgen::closure::Closure::once_into_js(stop.clone());
                signal.add_event_listener_with_callback("abort", on_abort.unchecked_ref()).ok();
                let plain = request(url, &headers_only.signal(), None).await?;
                if !plain.ok() {
                    stop();
                    return Err(FetchProblem::Failed(http_error_message(plain.status(), &plain.status_text())));
                }
                match header(&plain, "content-length").and_then(|v| v.trim().parse::<u64>().ok()) {
                    Some(size) => {
                        stop();
                        confirmed(url, signal, size, &on_progress).await
                    }
                    // No length (a streamed answer): this answer is the whole file, read as it comes.
                    None => read_whole(plain, &|read, total| on_progress(read, total, Some(WholeWhy::NoRanges)))
                        .await
                        .map(|blob| Opened::Whole(blob, WholeWhy::NoRanges)),
                }
            }
            Probe::Whole { why } => read_whole(first, &|read, total| on_progress(read, total, Some(why)))
                .await
                .map(|blob| Opened::Whole(blob, why)),
            Probe::Refused(message) => Err(FetchProblem::Failed(message)),
        }
    }

    /// The file read by ranges once `size` (from a `Content-Length`) is confirmed by a range
    /// request for its last byte and the one after; else read whole, as one stream: a host
    /// that compresses whole answers gives their compressed length.
    async fn confirmed(
        url: &Url,
        signal: &AbortSignal,
        size: u64,
        on_progress: &dyn Fn(u64, Option<u64>, Option<WholeWhy>),
    ) -> Result<Opened, FetchProblem> {
        let Some((start, end)) = size_check_range(size) else {
            return Ok(Opened::Ranges(RemoteFile { url: url.href(), size }));
        };
        let check = request(url, signal, range_header(start, end).as_deref()).await?;
        let status = check.status();
        let received = match check.array_buffer() {
            Ok(promise) => JsFuture::from(promise).await.map(|b| u64::from(Uint8Array::new(&b).length())).ok(),
            Err(_) => None,
        };
        if received.is_some_and(|n| size_confirmed(status, n)) {
            return Ok(Opened::Ranges(RemoteFile { url: url.href(), size }));
        }
        let why = WholeWhy::SizeUnsure;
        let whole = request(url, signal, None).await?;
        read_whole(whole, &|read, total| on_progress(read, total, Some(why))).await.map(|blob| Opened::Whole(blob, why))
    }

    /// The file's size from a HEAD's `Content-Length`; `None` where the host does not answer
    /// HEAD with one (an address signed for GET alone answers 403).
    async fn head_size(url: &Url, signal: &AbortSignal) -> Result<Option<u64>, FetchProblem> {
        let response = match request_with(url, signal, "HEAD", None).await {
            Ok(response) => response,
            Err(FetchProblem::Cancelled) => return Err(FetchProblem::Cancelled),
            Err(FetchProblem::Failed(_)) => return Ok(None),
        };
        if !response.ok() {
            return Ok(None);
        }
        let length = response.headers().get("content-length").ok().flatten();
        Ok(length.and_then(|v| v.trim().parse::<u64>().ok()))
    }

    /// Lets go of an answer's body without reading it.
    fn cancel_body(response: &Response) {
        if let Some(body) = response.body() {
            let _ = body.cancel();
        }
    }

    /// Bytes `start..end` of the file at `url` by one range request (the hex view's rows).
    pub async fn fetch_range(url: &str, start: u64, end: u64) -> Result<Vec<u8>, String> {
        let url = Url::new(url).map_err(|e| format!("{e:?}"))?;
        let controller = AbortController::new().map_err(|e| format!("{e:?}"))?;
        let response =
            request(&url, &controller.signal(), range_header(start, end).as_deref()).await.map_err(|p| match p {
                FetchProblem::Cancelled => "cancelled".to_string(),
                FetchProblem::Failed(message) => message,
            })?;
        let buffer = JsFuture::from(response.array_buffer().map_err(|e| format!("{e:?}"))?)
            .await
            .map_err(|e| format!("the connection failed while reading bytes {start}..{end}: {e:?}"))?;
        let bytes = Uint8Array::new(&buffer).to_vec();
        check_range_answer(response.status(), start, end, bytes.len() as u64)?;
        Ok(bytes)
    }

    /// Reads an answer's body whole into a `Blob`, reporting (bytes read, total if known) after
    /// each piece.
    async fn read_whole(response: Response, on_progress: &dyn Fn(u64, Option<u64>)) -> Result<Blob, FetchProblem> {
        if !response.ok() {
            return Err(FetchProblem::Failed(http_error_message(response.status(), &response.status_text())));
        }
        let total = response.headers().get("content-length").ok().flatten().and_then(|v| v.trim().parse::<u64>().ok());
        on_progress(0, total);
        let Some(body) = response.body() else {
            // No body stream (an empty answer): nothing to show progress for.
            return Blob::new().map_err(|e| FetchProblem::Failed(format!("{e:?}")));
        };
        let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
        let parts = Array::new();
        let mut read: u64 = 0;
        loop {
            let chunk = JsFuture::from(reader.read()).await.map_err(|e| problem(&e, "reading the file"))?;
            if Reflect::get(&chunk, &"done".into()).ok().and_then(|d| d.as_bool()).unwrap_or(true) {
                break;
            }
            let value: Uint8Array =
                Reflect::get(&chunk, &"value".into()).map_err(|e| problem(&e, "reading the file"))?.unchecked_into();
            read += u64::from(value.length());
            parts.push(&value);
            on_progress(read, total);
        }
        Blob::new_with_u8_array_sequence(&parts)
            .map_err(|e| FetchProblem::Failed(format!("the file could not be kept: {e:?}")))
    }

    async fn request(url: &Url, signal: &AbortSignal, range: Option<&str>) -> Result<Response, FetchProblem> {
        request_with(url, signal, "GET", range).await
    }

    async fn request_with(
        url: &Url,
        signal: &AbortSignal,
        method: &str,
        range: Option<&str>,
    ) -> Result<Response, FetchProblem> {
        let init = RequestInit::new();
        init.set_method(method);
        if let Some(range) = range {
            let headers = Headers::new().map_err(|e| FetchProblem::Failed(format!("{e:?}")))?;
            headers.set("Range", range).map_err(|e| FetchProblem::Failed(format!("{e:?}")))?;
            init.set_headers(&headers);
        }
        init.set_mode(RequestMode::Cors);
        // No cookies go to the other site, and nothing is kept in the browser's cache.
        init.set_credentials(RequestCredentials::Omit);
        init.set_cache(RequestCache::NoStore);
        init.set_signal(Some(signal));
        let window = web_sys::window().ok_or(FetchProblem::Failed("no window".into()))?;
        match JsFuture::from(window.fetch_with_str_and_init(&url.href(), &init)).await {
            Ok(response) => {
                response.dyn_into::<Response>().map_err(|_| FetchProblem::Failed("the fetch gave no response".into()))
            }
            Err(e) if is_abort(&e) => Err(FetchProblem::Cancelled),
            Err(_) => {
                let cross_origin = window.location().origin().map_or(true, |o| o != url.origin());
                Err(FetchProblem::Failed(network_error_message(cross_origin, &url.host())))
            }
        }
    }

    fn is_abort(e: &JsValue) -> bool {
        Reflect::get(e, &"name".into()).ok().and_then(|n| n.as_string()).is_some_and(|n| n == "AbortError")
    }

    fn problem(e: &JsValue, doing: &str) -> FetchProblem {
        if is_abort(e) {
            FetchProblem::Cancelled
        } else {
            let message =
                Reflect::get(e, &"message".into()).ok().and_then(|m| m.as_string()).unwrap_or_else(|| format!("{e:?}"));
            FetchProblem::Failed(format!("the connection failed while {doing}: {message}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_shows_the_total_when_it_is_known_and_true() {
        assert_eq!(progress_text(0, Some(2048)), "0 B of 2.0 KiB read");
        assert_eq!(progress_text(3072, None), "3.0 KiB read");
        assert_eq!(progress_text(3072, Some(1024)), "3.0 KiB read");
    }

    #[test]
    fn fetched_files_are_named_after_their_path() {
        assert_eq!(file_name_for("/builds/libhip%20v2.so", "example.org"), "libhip v2.so");
        assert_eq!(file_name_for("/", "example.org"), "example.org");
        assert_eq!(file_name_for("/a%2Fb", "example.org"), "example.org");
        assert_eq!(file_name_for("/%ZZ.o", "h"), "%ZZ.o");
    }

    #[test]
    fn messages_say_what_happened() {
        assert!(network_error_message(true, "files.example.org").contains("no Access-Control-Allow-Origin"));
        assert!(network_error_message(true, "h").contains("drop it on this page"));
        assert!(!network_error_message(false, "h").contains("Access-Control"));
        assert_eq!(http_error_message(404, "Not Found"), "the server answered HTTP 404 Not Found instead of the file");
        assert_eq!(http_error_message(500, ""), "the server answered HTTP 500 instead of the file");
    }
}
