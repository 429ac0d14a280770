//! Share links: a link to the page whose fragment carries a file (or the address of one) and
//! the node selected in it. Fragments never reach a server, so sharing uploads nothing: the
//! file travels inside the link itself.
//!
//! The fragment is a list of `key=value` parameters joined by `&`:
//!
//! | parameter | value |
//! |---|---|
//! | `file=`   | the file's name, percent-encoded (UTF-8) |
//! | `sel=`    | the selected node as child indices from the root, joined by `.` (`0.2.1`); absent or empty: the root |
//! | `zlib=`   | the file's bytes, zlib-compressed (deflate, best level) and base64url-encoded without padding |
//! | `url=`    | the address of a file to fetch instead; always last, it takes the rest of the fragment as it is, so a hand-written `#url=https://host/f?a=1&b=2` works; percent-encoded (`https%3A%2F%2F…`, as `encodeURIComponent` writes it) it is decoded |
//!
//! A file link is `file=…&sel=…&zlib=…`, a remote link `sel=…&url=…`. A fragment that starts
//! with none of these keys is not a share link (an in-page anchor) and is left alone.
//!
//! A file travels in a link when it compresses to at most [`LINK_LIMIT`] bytes. The selection
//! is a path of child indices rather than a node's index in the flattened tree because the path
//! names the same node whatever the explorer's limits flatten around it.
//!
//! Browser-free: built natively and unit-tested by `cargo test --workspace`. Decoding never
//! panics and bounds everything it allocates by the link's own length.

use miniz_oxide::deflate::core::{
    compress_to_output, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus,
};
use offload::edit::NodePath;
use std::fmt;

/// The most compressed bytes a link carries. Browsers and chat tools handle links of a few
/// hundred KiB; 64 KiB compressed is about 87 KiB of link, and holds most objects and small
/// libraries.
pub const LINK_LIMIT: usize = 64 * 1024;

/// Deflate never compresses better than about 1032 to 1 (a 258-byte match in about two bits),
/// so no file larger than this can fit in a link, and no link we write decodes to more.
pub const MAX_FILE_IN_LINK: u64 = LINK_LIMIT as u64 * 1032;

/// miniz_oxide's best compression ("uber", level 10): links are written rarely and short links
/// matter more than the milliseconds.
const LEVEL: u8 = 10;

/// Longest file name a link may carry, in bytes (after percent-decoding).
const MAX_NAME: usize = 1024;
/// Deepest selection a link may name; the explorer nests far less (32 levels at most).
const MAX_PATH_DEPTH: usize = 256;

/// What a share link asks the page to open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SharedLink {
    /// A file carried in the link.
    File { name: String, bytes: Vec<u8>, selection: NodePath },
    /// A file to fetch from `address` (checked by [`check_remote_address`] before fetching).
    Remote { address: String, selection: NodePath },
}

/// Why a fragment is not a share link that can be opened. Each says what was expected and
/// what was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    NotKeyValue { found: String },
    UnknownKey { key: String },
    RepeatedKey { key: String },
    MissingKey { key: &'static str },
    FileAndUrl,
    BadPercent { found: String },
    NameNotUtf8,
    BadName { reason: String },
    BadPath { found: String },
    PathTooDeep { depth: usize },
    BadBase64 { position: usize, found: char },
    Base64CutShort { length: usize },
    TooLong { compressed: usize },
    Damaged { detail: String },
    EmptyAddress,
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::NotKeyValue { found } => write!(f, "expected key=value parameters (file=, sel=, zlib=, url=), found \"{}\"", shorten(found)),
            LinkError::UnknownKey { key } => write!(f, "expected the parameters file=, sel=, zlib= or url=, found \"{}=\"", shorten(key)),
            LinkError::RepeatedKey { key } => write!(f, "the parameter {key}= appears twice; expected it once"),
            LinkError::MissingKey { key } => write!(f, "the link has no {key}= parameter; a link that carries a file needs file=, zlib= and optionally sel="),
            LinkError::FileAndUrl => write!(f, "the link has both a file (file=, zlib=) and an address (url=); expected one of them"),
            LinkError::BadPercent { found } => write!(f, "expected %XX with two hex digits in the file name, found \"{}\"", shorten(found)),
            LinkError::NameNotUtf8 => write!(f, "the file name is not UTF-8 text once percent-decoded"),
            LinkError::BadName { reason } => write!(f, "the file name in the link is not usable: {reason}"),
            LinkError::BadPath { found } => write!(f, "expected the selection (sel=) as child indices joined by dots, like 0.2.1, found \"{}\"", shorten(found)),
            LinkError::PathTooDeep { depth } => write!(f, "the selection (sel=) is {depth} levels deep; expected at most {MAX_PATH_DEPTH}"),
            LinkError::BadBase64 { position, found } => {
                write!(f, "expected base64url (A-Z, a-z, 0-9, - and _) in the file data (zlib=), found {found:?} at character {position}")
            }
            LinkError::Base64CutShort { length } => write!(f, "the file data (zlib=) is {length} characters long, which base64 cannot produce: the link was cut short"),
            LinkError::TooLong { compressed } => write!(f, "the file data in the link is {compressed} bytes compressed; links carry at most {LINK_LIMIT} bytes"),
            LinkError::Damaged { detail } => write!(f, "the file data in the link is damaged ({detail}); was the link cut short or changed?"),
            LinkError::EmptyAddress => write!(f, "the link's url= parameter is empty; expected the address of a file"),
        }
    }
}

impl std::error::Error for LinkError {}

/// A file that does not fit in a link: it compresses to more than [`LINK_LIMIT`] bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooBig {
    pub file_size: u64,
    /// How much of the file had been compressed when the compressed bytes passed the limit
    /// (the whole file when it was too big to try).
    pub bytes_read: u64,
    /// Compressed bytes written by then (0 when it was too big to try): more than the limit.
    pub compressed: usize,
}

impl fmt::Display for TooBig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "The file ({} bytes) is too big for a link: links carry at most {} KiB compressed, and ",
            self.file_size,
            LINK_LIMIT / 1024
        )?;
        if self.compressed == 0 {
            write!(f, "no file over {MAX_FILE_IN_LINK} bytes compresses that far.")
        } else if self.bytes_read >= self.file_size {
            write!(f, "it compresses to more than that.")
        } else {
            // Compression stops as soon as it is over: the rest of the file was not read.
            write!(f, "its first {} bytes already compress to more than that.", self.bytes_read)
        }
    }
}

impl std::error::Error for TooBig {}

// ------------------------------------------------------------------------------ encoding --

/// Compresses a file for a link chunk by chunk, and gives up as soon as the compressed bytes
/// pass [`LINK_LIMIT`], so a large incompressible file costs only its first few dozen KiB.
pub struct LinkEncoder {
    compressor: Box<CompressorOxide>,
    compressed: Vec<u8>,
    file_size: u64,
    read: u64,
}

impl LinkEncoder {
    /// An encoder for a file of `file_size` bytes; a file too large to ever fit is refused
    /// before a byte of it is read.
    pub fn new(file_size: u64) -> Result<LinkEncoder, TooBig> {
        if file_size > MAX_FILE_IN_LINK {
            return Err(TooBig { file_size, bytes_read: file_size, compressed: 0 });
        }
        // Positive window bits select the zlib wrapper, whose Adler-32 catches a changed link.
        let flags = create_comp_flags_from_zip_params(LEVEL.into(), 1, 0);
        Ok(LinkEncoder {
            compressor: Box::new(CompressorOxide::new(flags)),
            compressed: Vec::new(),
            file_size,
            read: 0,
        })
    }

    /// Compresses the next bytes of the file.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), TooBig> {
        self.run(chunk, TDEFLFlush::None)
    }

    /// Ends the stream: the file's zlib-compressed bytes, at most [`LINK_LIMIT`] of them.
    pub fn finish(mut self) -> Result<Vec<u8>, TooBig> {
        self.run(&[], TDEFLFlush::Finish)?;
        Ok(self.compressed)
    }

    fn run(&mut self, mut input: &[u8], flush: TDEFLFlush) -> Result<(), TooBig> {
        loop {
            let out = &mut self.compressed;
            let (status, consumed) = compress_to_output(&mut self.compressor, input, flush, |bytes| {
                out.extend_from_slice(bytes);
                out.len() <= LINK_LIMIT
            });
            self.read = self.read.saturating_add(consumed as u64);
            input = input.get(consumed..).unwrap_or_default();
            match status {
                TDEFLStatus::Done => return self.within_limit(),
                TDEFLStatus::Okay if input.is_empty() => return self.within_limit(),
                TDEFLStatus::Okay => continue,
                // The output callback refused more bytes: over the limit.
                _ => return Err(self.too_big()),
            }
        }
    }

    fn within_limit(&self) -> Result<(), TooBig> {
        if self.compressed.len() <= LINK_LIMIT {
            Ok(())
        } else {
            Err(self.too_big())
        }
    }

    fn too_big(&self) -> TooBig {
        TooBig { file_size: self.file_size, bytes_read: self.read, compressed: self.compressed.len() }
    }
}

/// The fragment (without `#`) of a link carrying `name`, its zlib-compressed bytes (from
/// [`LinkEncoder`]) and the selection.
pub fn file_fragment(name: &str, compressed: &[u8], selection: &[usize]) -> String {
    let mut out = format!("file={}", percent_encode(name));
    if !selection.is_empty() {
        out.push_str("&sel=");
        out.push_str(&path_text(selection));
    }
    out.push_str("&zlib=");
    out.push_str(&base64url_encode(compressed));
    out
}

/// The fragment (without `#`) of a link to the file at `address`, with the selection.
pub fn remote_fragment(address: &str, selection: &[usize]) -> String {
    if selection.is_empty() {
        format!("url={address}")
    } else {
        format!("sel={}&url={address}", path_text(selection))
    }
}

/// A whole file in memory to a fragment (what the page does chunk by chunk).
pub fn encode_file(name: &str, bytes: &[u8], selection: &[usize]) -> Result<String, TooBig> {
    let mut encoder = LinkEncoder::new(bytes.len() as u64)?;
    encoder.push(bytes)?;
    Ok(file_fragment(name, &encoder.finish()?, selection))
}

/// A page address and a fragment made into a link: whatever fragment the address had is
/// replaced.
pub fn link(page: &str, fragment: &str) -> String {
    let page = page.split_once('#').map_or(page, |(before, _)| before);
    format!("{page}#{fragment}")
}

fn path_text(path: &[usize]) -> String {
    path.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(".")
}

// ------------------------------------------------------------------------------ decoding --

/// Reads a location's fragment (with or without its `#`). `Ok(None)`: not a share link.
pub fn parse_fragment(fragment: &str) -> Result<Option<SharedLink>, LinkError> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    if !["file=", "sel=", "url=", "zlib="].iter().any(|k| fragment.starts_with(k)) {
        return Ok(None);
    }
    let params = split_parameters(fragment)?;
    if let Some(address) = params.url {
        if params.file.is_some() || params.zlib.is_some() {
            return Err(LinkError::FileAndUrl);
        }
        let address = address.trim();
        if address.is_empty() {
            return Err(LinkError::EmptyAddress);
        }
        let selection = parse_path(params.sel.unwrap_or(""))?;
        return Ok(Some(SharedLink::Remote { address: address_as_meant(address), selection }));
    }
    let name = decode_name(params.file.ok_or(LinkError::MissingKey { key: "file" })?)?;
    let data = params.zlib.ok_or(LinkError::MissingKey { key: "zlib" })?;
    let selection = parse_path(params.sel.unwrap_or(""))?;
    let bytes = decode_data(data)?;
    Ok(Some(SharedLink::File { name, bytes, selection }))
}

#[derive(Default)]
struct Parameters<'a> {
    file: Option<&'a str>,
    sel: Option<&'a str>,
    zlib: Option<&'a str>,
    url: Option<&'a str>,
}

fn split_parameters(fragment: &str) -> Result<Parameters<'_>, LinkError> {
    let mut params = Parameters::default();
    let mut rest = fragment;
    while !rest.is_empty() {
        if let Some(address) = rest.strip_prefix("url=") {
            // The address is last and taken whole: it may hold & and = of its own.
            params.url = Some(address);
            break;
        }
        let (part, after) = rest.split_once('&').unwrap_or((rest, ""));
        rest = after;
        if part.is_empty() {
            continue;
        }
        let (key, value) = part.split_once('=').ok_or_else(|| LinkError::NotKeyValue { found: part.to_string() })?;
        let slot = match key {
            "file" => &mut params.file,
            "sel" => &mut params.sel,
            "zlib" => &mut params.zlib,
            _ => return Err(LinkError::UnknownKey { key: key.to_string() }),
        };
        if slot.replace(value).is_some() {
            return Err(LinkError::RepeatedKey { key: key.to_string() });
        }
    }
    Ok(params)
}

/// The address a `url=` parameter names. Links we write carry it raw; a link written with
/// `encodeURIComponent` or `URLSearchParams` carries it percent-encoded (`https%3A%2F%2F…`, `+`
/// for a space), which a browser would resolve as a path under the page. An address whose
/// scheme's colon is encoded is decoded; any other is taken as it is (its own `%20`s stay).
fn address_as_meant(address: &str) -> String {
    if address.contains(':') {
        return address.to_string();
    }
    // Form encoding writes a space as `+`; a `+` of the address itself is `%2B`.
    let decoded = percent_decode(&address.replace('+', " ")).ok().and_then(|bytes| String::from_utf8(bytes).ok());
    match decoded {
        Some(decoded) if has_scheme(&decoded) => decoded,
        _ => address.to_string(),
    }
}

/// Whether `address` starts with a URL scheme and its colon (`https:`).
fn has_scheme(address: &str) -> bool {
    let Some((scheme, _)) = address.split_once(':') else { return false };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

fn parse_path(text: &str) -> Result<NodePath, LinkError> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let bad = || LinkError::BadPath { found: text.to_string() };
    let depth = text.split('.').count();
    if depth > MAX_PATH_DEPTH {
        return Err(LinkError::PathTooDeep { depth });
    }
    text.split('.')
        .map(|part| {
            if part.bytes().all(|b| b.is_ascii_digit()) {
                part.parse::<usize>().map_err(|_| bad())
            } else {
                Err(bad())
            }
        })
        .collect()
}

fn decode_name(text: &str) -> Result<String, LinkError> {
    let name = String::from_utf8(percent_decode(text)?).map_err(|_| LinkError::NameNotUtf8)?;
    let reason = if name.is_empty() {
        Some("it is empty".to_string())
    } else if name.len() > MAX_NAME {
        Some(format!("it is {} bytes long, expected at most {MAX_NAME}", name.len()))
    } else if name.contains(['/', '\\']) {
        Some("expected a file name, found a path (with / or \\)".to_string())
    } else if name.chars().any(char::is_control) {
        Some("it holds control characters".to_string())
    } else {
        None
    };
    match reason {
        Some(reason) => Err(LinkError::BadName { reason }),
        None => Ok(name),
    }
}

fn decode_data(text: &str) -> Result<Vec<u8>, LinkError> {
    // Checked before decoding, so a huge fragment costs nothing.
    let compressed_len = text.len() / 4 * 3 + (text.len() % 4).saturating_sub(1);
    if compressed_len > LINK_LIMIT {
        return Err(LinkError::TooLong { compressed: compressed_len });
    }
    let compressed = base64url_decode(text)?;
    miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&compressed, MAX_FILE_IN_LINK as usize)
        .map_err(|e| LinkError::Damaged { detail: inflate_problem(e.status) })
}

fn inflate_problem(status: miniz_oxide::inflate::TINFLStatus) -> String {
    use miniz_oxide::inflate::TINFLStatus as S;
    match status {
        S::FailedCannotMakeProgress | S::NeedsMoreInput => "the compressed stream ends early".into(),
        S::Adler32Mismatch => "its checksum does not match".into(),
        S::HasMoreOutput => format!("it decompresses to more than {MAX_FILE_IN_LINK} bytes"),
        other => format!("not a zlib stream: {other:?}"),
    }
}

// --------------------------------------------------------------------- text encodings --

const BASE64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64url without padding (RFC 4648 §5), the form that needs no escaping in a fragment.
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let sextets = [n >> 18, n >> 12, n >> 6, n];
        // 1 byte needs 2 characters, 2 need 3, 3 need 4.
        for s in &sextets[..chunk.len() + 1] {
            out.push(BASE64URL[(s & 63) as usize] as char);
        }
    }
    out
}

/// Decodes base64url; padding `=` at the end is tolerated, anything else outside the alphabet
/// is an error naming it.
pub fn base64url_decode(text: &str) -> Result<Vec<u8>, LinkError> {
    let text = text.trim_end_matches('=');
    if text.len() % 4 == 1 {
        return Err(LinkError::Base64CutShort { length: text.len() });
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for (position, c) in text.chars().enumerate() {
        let value = sextet(c).ok_or(LinkError::BadBase64 { position, found: c })?;
        acc = (acc << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

fn sextet(c: char) -> Option<u32> {
    Some(match c {
        'A'..='Z' => c as u32 - 'A' as u32,
        'a'..='z' => c as u32 - 'a' as u32 + 26,
        '0'..='9' => c as u32 - '0' as u32 + 52,
        '-' => 62,
        '_' => 63,
        _ => return None,
    })
}

/// Percent-encodes everything but RFC 3986's unreserved characters, so the name can hold
/// `&`, `=`, `#`, spaces and any language.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes; other characters (a browser may show a fragment's UTF-8 unescaped)
/// are kept as they are.
pub fn percent_decode(text: &str) -> Result<Vec<u8>, LinkError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            let Some(byte) = hex else {
                let found: String = text[i..].chars().take(3).collect();
                return Err(LinkError::BadPercent { found });
            };
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// Long inputs quoted in messages are cut to their first characters.
fn shorten(text: &str) -> String {
    const SHOWN: usize = 40;
    if text.chars().count() <= SHOWN {
        text.to_string()
    } else {
        format!("{}…", text.chars().take(SHOWN).collect::<String>())
    }
}

// ------------------------------------------------------------------- remote addresses --

/// Whether the page may fetch a file from this address, given the scheme and host name of
/// the parsed URL (as the browser's `URL` gives them: `https:`, `localhost`, `[::1]`). Only
/// https, and plain http to this machine, where there is no network to read it on the way.
///
/// Plain http to `[::1]` is refused too, with a way out: a Content-Security-Policy cannot name
/// an IPv6 address (its host grammar has no brackets; Chromium drops `http://[::1]:*` from the
/// policy with a console error), so the page's `connect-src` could not allow that fetch.
pub fn check_remote_address(protocol: &str, hostname: &str) -> Result<(), String> {
    let scheme = protocol.trim_end_matches(':').to_ascii_lowercase();
    let host = hostname.to_ascii_lowercase();
    let local = matches!(host.as_str(), "localhost" | "127.0.0.1");
    match scheme.as_str() {
        "https" => Ok(()),
        "http" if local => Ok(()),
        "http" if host == "[::1]" => Err("expected http on localhost or 127.0.0.1, found http on [::1], which the page's Content-Security-Policy cannot name: use http://localhost or http://127.0.0.1 with the same port".to_string()),
        "http" => Err(format!("expected an https address (or http on localhost or 127.0.0.1), found http on {hostname}: a file read over plain http could be changed on the way")),
        _ => Err(format!("expected an https address (or http on localhost or 127.0.0.1), found a {scheme}: address")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HIP_O: &[u8] = include_bytes!("../../../tests/fixtures/hip_elf_2arch_compressed.o");
    const ARCHIVE: &[u8] = include_bytes!("../../../tests/fixtures/hip_rdc_archive.a");

    /// Bytes that do not compress (xorshift), like an already compressed file.
    fn noise(len: usize) -> Vec<u8> {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    fn file(link: &str) -> (String, Vec<u8>, NodePath) {
        match parse_fragment(link) {
            Ok(Some(SharedLink::File { name, bytes, selection })) => (name, bytes, selection),
            other => panic!("expected a file link, got {other:?}"),
        }
    }

    #[test]
    fn a_file_and_its_selection_round_trip() {
        let fragment = encode_file("hip object & more #1.o", HIP_O, &[0, 2, 1]).unwrap();
        assert!(fragment.starts_with("file=hip%20object%20%26%20more%20%231.o&sel=0.2.1&zlib="), "{fragment}");
        let (name, bytes, selection) = file(&format!("#{fragment}"));
        assert_eq!(name, "hip object & more #1.o");
        assert_eq!(bytes, HIP_O);
        assert_eq!(selection, vec![0, 2, 1]);
        // The fixture is mostly headers and zeros: the link is far smaller than the file.
        assert!(fragment.len() < HIP_O.len() / 2, "{} characters for {} bytes", fragment.len(), HIP_O.len());
    }

    #[test]
    fn root_selection_and_unicode_names_round_trip() {
        let fragment = encode_file("ядро-ガ.bin", b"", &[]).unwrap();
        assert!(!fragment.contains("sel="));
        let (name, bytes, selection) = file(&fragment);
        assert_eq!((name.as_str(), bytes.len(), selection.len()), ("ядро-ガ.bin", 0, 0));
        // A browser may hand the name over unescaped.
        let raw = fragment.replacen(&percent_encode("ядро-ガ.bin"), "ядро-ガ.bin", 1);
        assert_eq!(file(&raw).0, "ядро-ガ.bin");
    }

    #[test]
    fn base64url_round_trips_every_length() {
        for len in 0..70 {
            let bytes = noise(len);
            let text = base64url_encode(&bytes);
            assert!(!text.contains(['=', '+', '/']));
            assert_eq!(base64url_decode(&text).unwrap(), bytes, "length {len}");
        }
        assert_eq!(base64url_encode(b"\xfb\xff"), "-_8");
        assert_eq!(base64url_decode("-_8=").unwrap(), b"\xfb\xff");
    }

    #[test]
    fn the_limit_is_the_compressed_size() {
        // Incompressible: a little under the limit fits, a little over does not.
        let fits = noise(LINK_LIMIT - 200);
        assert!(encode_file("fits.bin", &fits, &[]).is_ok());
        let over = noise(200 * 1024);
        let err = encode_file("noise.bin", &over, &[]).unwrap_err();
        assert_eq!(err.file_size, 200 * 1024);
        assert!(err.compressed > LINK_LIMIT, "{err:?}");
        // It stopped soon after the limit, not at the end of the file.
        assert!(err.bytes_read > LINK_LIMIT as u64 / 2 && err.bytes_read < over.len() as u64, "{err:?}");
        let text = err.to_string();
        assert!(
            text.starts_with(
                "The file (204800 bytes) is too big for a link: links carry at most 64 KiB compressed, and its first "
            ),
            "{text}"
        );
        // 8 MiB of zeros compress to a few KiB: it travels.
        let zeros = vec![0u8; 8 << 20];
        let fragment = encode_file("zeros.bin", &zeros, &[]).unwrap();
        assert!(fragment.len() < 64 * 1024, "{}", fragment.len());
        assert_eq!(file(&fragment).1.len(), 8 << 20);
    }

    #[test]
    fn a_chunked_encoder_stops_early_on_a_large_file() {
        let mut encoder = LinkEncoder::new(10 << 20).unwrap();
        let chunk = noise(256 * 1024);
        let err = encoder.push(&chunk).unwrap_err();
        assert!(err.bytes_read < 256 * 1024, "{err:?}");
        assert!(
            err.to_string().contains(&format!("its first {} bytes already compress to more than that", err.bytes_read)),
            "{err}"
        );
        let huge = LinkEncoder::new(MAX_FILE_IN_LINK + 1).err().unwrap();
        assert_eq!(huge.compressed, 0);
        assert!(huge.to_string().contains("too big for a link"));
    }

    #[test]
    fn chunked_and_whole_encodings_agree() {
        let mut encoder = LinkEncoder::new(ARCHIVE.len() as u64).unwrap();
        for chunk in ARCHIVE.chunks(1000) {
            encoder.push(chunk).unwrap();
        }
        let compressed = encoder.finish().unwrap();
        let fragment = file_fragment("a.a", &compressed, &[3]);
        assert_eq!(file(&fragment).1, ARCHIVE);
    }

    #[test]
    fn remote_links_keep_the_address_whole() {
        let fragment = remote_fragment("https://example.org/f.o?a=1&b=2#x", &[1, 0]);
        assert_eq!(fragment, "sel=1.0&url=https://example.org/f.o?a=1&b=2#x");
        assert_eq!(
            parse_fragment(&fragment).unwrap(),
            Some(SharedLink::Remote { address: "https://example.org/f.o?a=1&b=2#x".into(), selection: vec![1, 0] })
        );
        assert_eq!(
            parse_fragment("#url=http://localhost:8000/x.so").unwrap(),
            Some(SharedLink::Remote { address: "http://localhost:8000/x.so".into(), selection: vec![] })
        );
        assert_eq!(parse_fragment("url=  ").unwrap_err(), LinkError::EmptyAddress);
    }

    #[test]
    fn percent_encoded_addresses_are_decoded_and_raw_ones_kept() {
        let remote = |f: &str| match parse_fragment(f).unwrap() {
            Some(SharedLink::Remote { address, .. }) => address,
            other => panic!("{other:?}"),
        };
        // encodeURIComponent("https://example.org/lib v2.so?a=1&b=2")
        assert_eq!(
            remote("#url=https%3A%2F%2Fexample.org%2Flib%20v2.so%3Fa%3D1%26b%3D2"),
            "https://example.org/lib v2.so?a=1&b=2"
        );
        // new URLSearchParams({url: "http://localhost:8000/a b.so"}).toString()
        assert_eq!(remote("#sel=1&url=http%3A%2F%2Flocalhost%3A8000%2Fa+b.so"), "http://localhost:8000/a b.so");
        // Raw addresses keep their own escapes and plus signs.
        assert_eq!(remote("#url=https://example.org/lib%20v2+x.so"), "https://example.org/lib%20v2+x.so");
        // Relative addresses, and escapes that do not decode to an absolute address, stay.
        assert_eq!(remote("#url=files/lib.so"), "files/lib.so");
        assert_eq!(remote("#url=files%2Flib.so"), "files%2Flib.so");
        assert_eq!(remote("#url=https%3Z%2F%2Fx"), "https%3Z%2F%2Fx");
        assert_eq!(remote("#url=%FF%3A%2F%2Fx"), "%FF%3A%2F%2Fx");
    }

    #[test]
    fn other_fragments_are_not_share_links() {
        for f in ["", "#", "#main", "#tab-panel", "#files=1", "#selection"] {
            assert_eq!(parse_fragment(f), Ok(None), "{f}");
        }
    }

    #[test]
    fn malformed_links_say_what_is_wrong() {
        let good = encode_file("x.o", HIP_O, &[1]).unwrap();
        let data = good.split("zlib=").nth(1).unwrap();
        let cases: Vec<(String, &str)> = vec![
            ("file=x.o".into(), "no zlib= parameter"),
            (format!("zlib={data}"), "no file= parameter"),
            (format!("file=x.o&file=y&zlib={data}"), "file= appears twice"),
            (format!("file=x.o&size=3&zlib={data}"), "found \"size=\""),
            (format!("file=x.o&oops&zlib={data}"), "expected key=value"),
            (format!("file=x.o&zlib={data}&url=https://a/b"), "both a file"),
            (format!("file=%zz.o&zlib={data}"), "%XX"),
            (format!("file=%FF&zlib={data}"), "not UTF-8"),
            (format!("file=&zlib={data}"), "it is empty"),
            (format!("file=..%2Fetc%2Fpasswd&zlib={data}"), "found a path"),
            (format!("file=a%0Ab&zlib={data}"), "control characters"),
            (format!("file=x.o&sel=1.a&zlib={data}"), "child indices joined by dots"),
            (format!("file=x.o&sel=1..2&zlib={data}"), "child indices joined by dots"),
            (format!("file=x.o&sel=99999999999999999999999&zlib={data}"), "child indices"),
            (format!("file=x.o&sel={}&zlib={data}", vec!["0"; 300].join(".")), "300 levels deep"),
            (format!("file=x.o&zlib={}", data.replacen('A', "+", 1)), "found '+'"),
            (format!("file=x.o&zlib={}", &data[..data.len() / 2]), "ends early"),
            (format!("file=x.o&zlib={}", &data[..(data.len() / 4 - 1) * 4 + 1]), "cut short"),
            ("file=x.o&zlib=AAAAAAAA".into(), "damaged"),
            (format!("file=x.o&zlib={}", "A".repeat(LINK_LIMIT * 2)), "at most 65536 bytes"),
        ];
        for (fragment, expected) in cases {
            let err = parse_fragment(&fragment).expect_err(&fragment[..fragment.len().min(60)]);
            let text = err.to_string();
            assert!(text.contains(expected), "{fragment:.60}: expected {expected:?} in {text:?}");
        }
    }

    #[test]
    fn a_changed_byte_is_caught_by_the_checksum() {
        let good = encode_file("x.o", HIP_O, &[]).unwrap();
        let at = good.len() - 10;
        let flipped = if &good[at..at + 1] == "A" { "B" } else { "A" };
        let changed = format!("{}{}{}", &good[..at], flipped, &good[at + 1..]);
        let err = parse_fragment(&changed).unwrap_err();
        assert!(matches!(err, LinkError::Damaged { .. }), "{err}");
    }

    #[test]
    fn decoding_never_panics_on_any_cut_or_byte_change() {
        let good = encode_file("x.o", &HIP_O[..600], &[0, 1]).unwrap();
        for cut in 0..good.len() {
            let _ = parse_fragment(&good[..cut]);
        }
        let bytes = good.as_bytes();
        for at in (0..bytes.len()).step_by(7) {
            for replacement in [b'%', b'&', b'=', b'.', b'#', b'0', 0xC3] {
                let mut changed = bytes.to_vec();
                changed[at] = replacement;
                let _ = parse_fragment(&String::from_utf8_lossy(&changed));
            }
        }
    }

    #[test]
    fn remote_addresses_are_https_or_this_machine() {
        assert!(check_remote_address("https:", "example.org").is_ok());
        for host in ["localhost", "127.0.0.1", "LOCALHOST"] {
            assert!(check_remote_address("http:", host).is_ok(), "{host}");
        }
        assert!(check_remote_address("https:", "[::1]").is_ok());
        let v6 = check_remote_address("http:", "[::1]").unwrap_err();
        assert!(v6.contains("use http://localhost"), "{v6}");
        let plain = check_remote_address("http:", "example.org").unwrap_err();
        assert!(plain.contains("found http on example.org"), "{plain}");
        for (scheme, found) in [
            ("ftp:", "a ftp: address"),
            ("file:", "a file: address"),
            ("javascript:", "a javascript: address"),
            ("data:", "a data: address"),
        ] {
            let err = check_remote_address(scheme, "").unwrap_err();
            assert!(err.contains(found), "{err}");
        }
    }

    #[test]
    fn links_replace_the_page_fragment() {
        assert_eq!(link("https://h/sub/path/", "file=a&zlib=AA"), "https://h/sub/path/#file=a&zlib=AA");
        assert_eq!(link("https://h/sub/path/#url=x", "file=a&zlib=AA"), "https://h/sub/path/#file=a&zlib=AA");
    }
}
