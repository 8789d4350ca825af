//! webfold-fetch: the I/O side of `webfold fetch` and of URL inputs.
//!
//! The core crate does no I/O, so getting bytes off the network lives here, with the
//! guard rails an agent's tool needs: only `http`/`https`, at most 10 redirects,
//! connect and total timeouts, and a size limit enforced while the body streams in
//! (a 4 GB download or a gzip bomb is cut off at the limit, not after buffering it).
//! Every error says what went wrong and what to do about it, because the reader is
//! often an LLM deciding its next call.
//!
//! It returns bytes and what the server said they are; turning them into text
//! (charset sniffing) and a view is the core's work, so this crate does not
//! depend on it: a URL's page flows one way, from here to the core.

use std::fmt;
use std::time::Duration;

use url::Url;

/// Default response size limit: 20 MB.
pub const DEFAULT_MAX_BYTES: u64 = 20 * 1024 * 1024;
/// Default connect timeout.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default total timeout, from connecting until the last body byte.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default redirect limit.
pub const DEFAULT_MAX_REDIRECTS: usize = 10;
/// The `User-Agent` webfold sends.
pub const USER_AGENT: &str = concat!(
    "webfold/",
    env!("CARGO_PKG_VERSION"),
    " (+https://github.com/webfold/webfold)"
);

/// What the `Accept` header asks for: HTML first, anything else after.
const ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
/// How much of an error response's body is read for the preview in [`FetchError::Status`].
const ERROR_BODY_BYTES: usize = 8 * 1024;
/// Length of that preview, in characters.
const ERROR_PREVIEW_CHARS: usize = 200;

/// How to fetch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchOptions {
    /// Largest body accepted, in bytes, after content decoding (gzip, brotli).
    pub max_bytes: u64,
    /// Time allowed to establish the connection (TCP + TLS).
    pub connect_timeout: Duration,
    /// Time allowed for the whole request, redirects and body included.
    pub timeout: Duration,
    /// Redirects followed at most; one more is an error.
    pub max_redirects: usize,
    /// The `User-Agent` header.
    pub user_agent: String,
    /// Return 4xx/5xx responses as [`Fetched`] instead of [`FetchError::Status`].
    pub accept_error_status: bool,
    /// Honour the `HTTP_PROXY` / `HTTPS_PROXY` / `NO_PROXY` environment variables.
    pub use_env_proxy: bool,
}

impl Default for FetchOptions {
    fn default() -> Self {
        Self {
            max_bytes: DEFAULT_MAX_BYTES,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            timeout: DEFAULT_TIMEOUT,
            max_redirects: DEFAULT_MAX_REDIRECTS,
            user_agent: USER_AGENT.to_owned(),
            accept_error_status: false,
            use_env_proxy: true,
        }
    }
}

/// A fetched response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched {
    /// The URL after redirects: the base for resolving relative links.
    pub final_url: Url,
    /// The HTTP status code.
    pub status: u16,
    /// The raw `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// The MIME essence (`text/html`), from the header or, when it is missing,
    /// sniffed from the body.
    pub mime: String,
    /// The body, content-decoded (gzip, brotli, deflate).
    pub body: Vec<u8>,
}

impl Fetched {
    /// Whether the body is an HTML document.
    pub fn is_html(&self) -> bool {
        self.mime == "text/html" || self.mime == "application/xhtml+xml"
    }
}

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    #[error("invalid URL '{url}': {reason}")]
    InvalidUrl { url: String, reason: String },

    #[error(
        "cannot fetch '{url}': scheme '{scheme}' is not supported; use an http:// or https:// URL"
    )]
    UnsupportedScheme { url: String, scheme: String },

    #[error(
        "could not connect to {host} ({url}): {reason}; check the host name and port, and that the server is up"
    )]
    Connect {
        url: String,
        host: String,
        reason: String,
    },

    #[error("{url} did not answer within {}: the server is slow or unreachable; try again later or allow more time", Secs(.after))]
    Timeout { url: String, after: Duration },

    #[error(
        "{url} redirected more than {limit} times; the redirects may loop, so open the last URL directly if it is right"
    )]
    TooManyRedirects { url: String, limit: usize },

    #[error("HTTP {status} from {url}{}", preview_suffix(.preview))]
    Status {
        url: String,
        status: u16,
        content_type: Option<String>,
        preview: String,
    },

    #[error("response from {url} is larger than the {} limit; pass --max-bytes to raise it", Bytes(*.limit))]
    TooLarge { url: String, limit: u64 },

    #[error("could not set up the HTTP client: {0}")]
    Client(String),

    #[error("fetching {url} failed: {reason}")]
    Other { url: String, reason: String },
}

impl FetchError {
    /// The HTTP status, for [`FetchError::Status`].
    pub fn status(&self) -> Option<u16> {
        match self {
            FetchError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

fn preview_suffix(preview: &str) -> String {
    if preview.is_empty() {
        String::new()
    } else {
        format!(": {preview}")
    }
}

struct Secs<'a>(&'a Duration);

impl fmt::Display for Secs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0.as_millis();
        if ms.is_multiple_of(1000) {
            write!(f, "{} s", ms / 1000)
        } else {
            write!(f, "{:.1} s", self.0.as_secs_f64())
        }
    }
}

/// Byte counts as people say them: `20 MB`, `512 KB`, `100 bytes` (binary units).
struct Bytes(u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const KB: u64 = 1024;
        const MB: u64 = 1024 * KB;
        let n = self.0;
        if n >= MB && n.is_multiple_of(MB) {
            write!(f, "{} MB", n / MB)
        } else if n >= MB {
            write!(f, "{:.1} MB", n as f64 / MB as f64)
        } else if n >= KB && n.is_multiple_of(KB) {
            write!(f, "{} KB", n / KB)
        } else {
            write!(f, "{n} bytes")
        }
    }
}

/// A reusable HTTP client with fixed options (building one loads TLS roots, so a
/// surface that fetches more than once keeps one).
#[derive(Clone, Debug)]
pub struct Fetcher {
    client: reqwest::Client,
    opts: FetchOptions,
}

impl Fetcher {
    pub fn new(opts: FetchOptions) -> Result<Self, FetchError> {
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::limited(opts.max_redirects))
            .connect_timeout(opts.connect_timeout)
            .timeout(opts.timeout)
            .user_agent(opts.user_agent.clone());
        if !opts.use_env_proxy {
            builder = builder.no_proxy();
        }
        let client = builder
            .build()
            .map_err(|e| FetchError::Client(error_chain(&e)))?;
        Ok(Self { client, opts })
    }

    pub fn options(&self) -> &FetchOptions {
        &self.opts
    }

    /// Fetches `url` (GET).
    pub async fn fetch(&self, url: &str) -> Result<Fetched, FetchError> {
        let parsed = parse_url(url)?;
        let mut response = self
            .client
            .get(parsed.clone())
            .header(reqwest::header::ACCEPT, ACCEPT)
            .send()
            .await
            .map_err(|e| self.classify(url, &parsed, e))?;

        let final_url = response.url().clone();
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);

        if status >= 400 && !self.opts.accept_error_status {
            let body = read_body(&mut response, ERROR_BODY_BYTES as u64, false)
                .await
                .unwrap_or_default();
            return Err(FetchError::Status {
                url: final_url.to_string(),
                status,
                preview: error_preview(body.as_deref(), content_type.as_deref()),
                content_type,
            });
        }

        let too_large = || FetchError::TooLarge {
            url: final_url.to_string(),
            limit: self.opts.max_bytes,
        };
        if response
            .content_length()
            .is_some_and(|n| n > self.opts.max_bytes)
        {
            return Err(too_large());
        }
        let body = match read_body(&mut response, self.opts.max_bytes, true).await {
            Ok(Some(body)) => body,
            Ok(None) => return Err(too_large()),
            Err(e) => return Err(self.classify(final_url.as_str(), &final_url, e)),
        };

        let mime = match content_type.as_deref().map(mime_essence) {
            Some(m) if !m.is_empty() => m,
            _ => sniff_mime(&body).to_owned(),
        };
        Ok(Fetched {
            final_url,
            status,
            content_type,
            mime,
            body,
        })
    }

    fn classify(&self, url: &str, parsed: &Url, e: reqwest::Error) -> FetchError {
        let url = url.to_owned();
        if e.is_timeout() {
            let after = if e.is_connect() {
                self.opts.connect_timeout
            } else {
                self.opts.timeout
            };
            FetchError::Timeout { url, after }
        } else if e.is_redirect() {
            FetchError::TooManyRedirects {
                url,
                limit: self.opts.max_redirects,
            }
        } else if e.is_connect() {
            let host = match (parsed.host_str(), parsed.port_or_known_default()) {
                (Some(h), Some(p)) => format!("{h}:{p}"),
                (Some(h), None) => h.to_owned(),
                _ => url.clone(),
            };
            FetchError::Connect {
                url,
                host,
                reason: error_chain(&e),
            }
        } else {
            FetchError::Other {
                url,
                reason: error_chain(&e),
            }
        }
    }
}

/// Fetches `url` with a one-off [`Fetcher`].
pub async fn fetch(url: &str, opts: &FetchOptions) -> Result<Fetched, FetchError> {
    Fetcher::new(opts.clone())?.fetch(url).await
}

/// [`fetch`] for a caller with no async runtime of its own (the Python and
/// Node packages): one on this thread for the one request.
pub fn fetch_blocking(url: &str, opts: &FetchOptions) -> Result<Fetched, FetchError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| FetchError::Client(format!("cannot start the network runtime: {e}")))?
        .block_on(fetch(url, opts))
}

fn parse_url(url: &str) -> Result<Url, FetchError> {
    let parsed = Url::parse(url.trim()).map_err(|e| FetchError::InvalidUrl {
        url: url.to_owned(),
        reason: match e {
            url::ParseError::RelativeUrlWithoutBase => {
                "not an absolute URL; include the scheme, e.g. https://example.com/".to_owned()
            }
            other => other.to_string(),
        },
    })?;
    match parsed.scheme() {
        "http" | "https" => Ok(parsed),
        scheme => Err(FetchError::UnsupportedScheme {
            url: url.to_owned(),
            scheme: scheme.to_owned(),
        }),
    }
}

/// Reads the body chunk by chunk, stopping as soon as it passes `limit`.
/// `Ok(None)` = over the limit (when `strict`); when not `strict` the first `limit`
/// bytes are returned instead.
async fn read_body(
    response: &mut reqwest::Response,
    limit: u64,
    strict: bool,
) -> Result<Option<Vec<u8>>, reqwest::Error> {
    let capacity = response
        .content_length()
        .unwrap_or(0)
        .min(limit)
        .min(1 << 20);
    let mut body = Vec::with_capacity(capacity as usize);
    while let Some(chunk) = response.chunk().await? {
        if body.len() as u64 + chunk.len() as u64 > limit {
            if strict {
                return Ok(None);
            }
            let room = (limit as usize).saturating_sub(body.len());
            body.extend_from_slice(&chunk[..room.min(chunk.len())]);
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

/// A one-line, tag-free start of an error page, to show with its status.
fn error_preview(body: Option<&[u8]>, content_type: Option<&str>) -> String {
    let Some(body) = body else {
        return String::new();
    };
    let text = String::from_utf8_lossy(body);
    let is_markup = content_type.is_none_or(|ct| mime_essence(ct).contains("html"));
    let text = if is_markup {
        strip_tags(&text)
    } else {
        text.into_owned()
    };
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match collapsed.char_indices().nth(ERROR_PREVIEW_CHARS) {
        Some((at, _)) => format!("{}…", &collapsed[..at]),
        None => collapsed,
    }
}

/// The media type's essence: `text/html` of `Text/HTML; charset=utf-8`.
pub fn mime_essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Drops tags, comments and `<script>`/`<style>` contents; good enough for a preview.
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        out.push(' ');
        let tag = &rest[lt..];
        let lower: String = tag.chars().take(8).flat_map(char::to_lowercase).collect();
        let end = if lower.starts_with("<!--") {
            tag.find("-->").map(|i| i + 3)
        } else if lower.starts_with("<script") || lower.starts_with("<style") {
            let close = if lower.starts_with("<script") {
                "</script"
            } else {
                "</style"
            };
            find_ci(tag, close).and_then(|i| tag[i..].find('>').map(|j| i + j + 1))
        } else {
            tag.find('>').map(|i| i + 1)
        };
        match end {
            Some(e) => rest = &tag[e..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

fn find_ci(haystack: &str, needle: &str) -> Option<usize> {
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// A MIME type for a body served without `Content-Type` (a small part of the WHATWG
/// MIME sniffing rules: markup, common images, PDF, text, else binary).
fn sniff_mime(body: &[u8]) -> &'static str {
    const SIGNATURES: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "image/png"),
        (b"\xff\xd8\xff", "image/jpeg"),
        (b"GIF87a", "image/gif"),
        (b"GIF89a", "image/gif"),
        (b"%PDF-", "application/pdf"),
    ];
    if let Some((_, mime)) = SIGNATURES.iter().find(|(sig, _)| body.starts_with(sig)) {
        return mime;
    }
    if body.len() >= 12 && &body[..4] == b"RIFF" && &body[8..12] == b"WEBP" {
        return "image/webp";
    }
    let start = body.strip_prefix(b"\xef\xbb\xbf").unwrap_or(body);
    let start = &start[start
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(start.len())..];
    let head = &start[..start.len().min(16)];
    const HTML: &[&[u8]] = &[
        b"<!doctype html",
        b"<html",
        b"<head",
        b"<body",
        b"<!--",
        b"<p",
        b"<div",
        b"<title",
    ];
    if HTML
        .iter()
        .any(|m| head.len() >= m.len() && head[..m.len()].eq_ignore_ascii_case(m))
    {
        return "text/html";
    }
    let sample = &body[..body.len().min(4096)];
    let binary = sample
        .iter()
        .any(|&b| matches!(b, 0..=8 | 0x0b | 0x0e..=0x1a | 0x1c..=0x1f));
    if binary {
        "application/octet-stream"
    } else {
        "text/plain"
    }
}

/// The error's causes, most specific last, without repeats or hyper's wrapper
/// layers: "tcp connect error: Connection refused (os error 111)". The outermost
/// reqwest message ("error sending request for url (…)") is dropped when there is
/// a cause, since our own message already names the URL.
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut current = e.source().or(Some(e));
    while let Some(err) = current {
        let msg = err.to_string();
        let wrapper = msg.starts_with("client error (") && err.source().is_some();
        if !msg.is_empty() && !wrapper && !parts.iter().any(|p| p.contains(&msg)) {
            parts.push(msg);
        }
        current = err.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_before_any_io() {
        let err = parse_url("ftp://example.com/x").unwrap_err();
        assert!(matches!(err, FetchError::UnsupportedScheme { .. }));
        assert_eq!(
            err.to_string(),
            "cannot fetch 'ftp://example.com/x': scheme 'ftp' is not supported; use an http:// or https:// URL"
        );
        assert!(matches!(
            parse_url("file:///etc/hosts"),
            Err(FetchError::UnsupportedScheme { .. })
        ));
        let err = parse_url("example.com/page").unwrap_err();
        assert!(err.to_string().contains("include the scheme"), "{err}");
        assert!(parse_url(" https://example.com/ ").is_ok());
    }

    #[test]
    fn error_messages_say_what_to_do() {
        let e = FetchError::TooLarge {
            url: "http://x/".into(),
            limit: DEFAULT_MAX_BYTES,
        };
        assert_eq!(
            e.to_string(),
            "response from http://x/ is larger than the 20 MB limit; pass --max-bytes to raise it"
        );
        let e = FetchError::Timeout {
            url: "http://x/".into(),
            after: Duration::from_millis(300),
        };
        assert!(e.to_string().contains("within 0.3 s"), "{e}");
        let e = FetchError::Status {
            url: "http://x/".into(),
            status: 404,
            content_type: None,
            preview: "Not Found".into(),
        };
        assert_eq!(e.to_string(), "HTTP 404 from http://x/: Not Found");
        assert_eq!(e.status(), Some(404));
        assert_eq!(Bytes(1536).to_string(), "1536 bytes");
        assert_eq!(Bytes(512 * 1024).to_string(), "512 KB");
        assert_eq!(Bytes(3 * 1024 * 1024 / 2).to_string(), "1.5 MB");
    }

    #[test]
    fn error_previews_are_short_text() {
        let body = b"<html><head><title>404 Not Found</title><style>body{color:red}</style>\
            <script>var x = '<b>';</script></head><body><h1>Not   Found</h1><!-- c --></body></html>";
        let p = error_preview(Some(body), Some("text/html"));
        assert_eq!(p, "404 Not Found Not Found");
        let long = "word ".repeat(100);
        let p = error_preview(Some(long.as_bytes()), Some("text/plain"));
        assert_eq!(p.chars().count(), ERROR_PREVIEW_CHARS + 1);
        assert!(p.ends_with('…'));
        assert_eq!(error_preview(None, None), "");
        let stripped = strip_tags("a <b>b</b> <!-- unclosed <p>c");
        assert_eq!(stripped.split_whitespace().collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn sniffs_bodies_without_content_type() {
        assert_eq!(
            sniff_mime(b"\xef\xbb\xbf  <!DOCTYPE html><p>x"),
            "text/html"
        );
        assert_eq!(sniff_mime(b"<HTML>"), "text/html");
        assert_eq!(sniff_mime(b"\x89PNG\r\n\x1a\n...."), "image/png");
        assert_eq!(sniff_mime(b"RIFF\0\0\0\0WEBPVP8 "), "image/webp");
        assert_eq!(sniff_mime(b"just text\n"), "text/plain");
        assert_eq!(sniff_mime(b"\x00\x01\x02"), "application/octet-stream");
        assert_eq!(sniff_mime(b""), "text/plain");
    }

    #[test]
    fn user_agent_names_the_version() {
        assert!(USER_AGENT.starts_with(concat!(
            "webfold/",
            env!("CARGO_PKG_VERSION"),
            " (+https://"
        )));
    }
}
