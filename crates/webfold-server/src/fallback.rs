//! Error responses that no handler of ours writes, turned into the API's JSON
//! `{error, detail}`:
//!
//! - [`json_bodies`], a middleware: axum's bare `405`, rmcp's plain-text
//!   errors on `/mcp`, and any other error status that arrives without a JSON
//!   body.
//! - [`JsonErrorIo`], each connection's I/O: hyper answers a request it cannot parse (malformed line or
//!   header → 400, a request line over 64 KB → 414, headers over its buffer or
//!   more than 100 of them → 431) by itself, with an empty body, before any
//!   service runs. The connection replaces exactly that response
//!   with a JSON one, and let the client finish sending before closing so it
//!   reads the answer instead of a reset.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::error::ApiError;

/// Largest error body read back to be wrapped; error texts are a line or two.
const MAX_WRAPPED_BODY: usize = 64 * 1024;

/// Gives every error response without a JSON body one.
pub async fn json_bodies(req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let resp = next.run(req).await;
    let status = resp.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(&resp) {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let text = axum::body::to_bytes(body, MAX_WRAPPED_BODY)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
        .unwrap_or_default();
    let detail = if status == StatusCode::METHOD_NOT_ALLOWED {
        let allowed = parts
            .headers
            .get(header::ALLOW)
            .and_then(|v| v.to_str().ok())
            .filter(|v| !v.is_empty())
            .unwrap_or("other methods");
        format!("{method} is not allowed on {path}; it takes {allowed}")
    } else if text.is_empty() {
        generic_detail(status)
    } else {
        // rmcp's texts say what went wrong ("Not Acceptable: Client must
        // accept both application/json and text/event-stream").
        text
    };
    let json = ApiError::new(status, title(status))
        .detail(detail)
        .into_response();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, json.into_body())
}

fn is_json(resp: &Response) -> bool {
    resp.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let mime = v.split(';').next().unwrap_or("").trim();
            mime.eq_ignore_ascii_case("application/json")
        })
}

/// "Method not allowed": the status's reason phrase, in the API's sentence case.
fn title(status: StatusCode) -> String {
    let phrase = status.canonical_reason().unwrap_or("Error");
    let mut out = String::with_capacity(phrase.len());
    for (i, word) in phrase.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
            // Acronyms keep their case ("URI too long").
            if word.chars().all(|c| c.is_ascii_uppercase()) {
                out.push_str(word);
            } else {
                out.push_str(&word.to_lowercase());
            }
        } else {
            out.push_str(word);
        }
    }
    out
}

fn generic_detail(status: StatusCode) -> String {
    match status.as_u16() {
        400 => "the request is not valid HTTP/1.1 (a malformed request line or header); check the client that sent it".into(),
        404 => "unknown endpoint; see the Bridge API section of the README".into(),
        406 => "the Accept header rules out JSON; accept application/json".into(),
        408 => "the request took too long to arrive; send it again".into(),
        411 => "send a Content-Length header with the body".into(),
        413 => "the body is over the server's limit; send less or start the server with a larger --max-body-mb".into(),
        414 => "the request URL is longer than the 64 KB the server reads; shorten it (a selector or parameter is too long)".into(),
        415 => "send the body as JSON with Content-Type: application/json".into(),
        431 => "the request headers are too large (over about 400 KB, or more than 100 headers); send fewer or smaller headers".into(),
        500..=599 => format!("the server failed ({status}); try again, and report it if it persists"),
        _ => format!("the server answered {status}"),
    }
}

/// How long, and how much, a closing connection reads after an automatic
/// error so the client's unsent request does not turn the close into a reset.
const LINGER: Duration = Duration::from_secs(2);
const LINGER_BYTES: usize = 4 * 1024 * 1024;

/// A connection that rewrites hyper's automatic error response (see the
/// module docs). Everything else passes through untouched.
pub struct JsonErrorIo<S> {
    inner: S,
    /// The JSON response replacing hyper's, and how much of it is written.
    replacement: Option<(Vec<u8>, usize)>,
    linger: Linger,
}

enum Linger {
    /// No automatic error was sent.
    No,
    /// One was: on shutdown, half-close and drain.
    Pending,
    Draining {
        deadline: Pin<Box<tokio::time::Sleep>>,
        read: usize,
    },
    Done,
}

impl<S> JsonErrorIo<S> {
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            replacement: None,
            linger: Linger::No,
        }
    }
}

impl<S: AsyncWrite + Unpin> JsonErrorIo<S> {
    /// Writes what is left of the replacement.
    fn poll_replacement(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.replacement {
            if *written == bytes.len() {
                self.replacement = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for JsonErrorIo<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for JsonErrorIo<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_replacement(cx))?;
        if let Some(json) = automatic_error_as_json(buf) {
            this.replacement = Some((json, 0));
            this.linger = Linger::Pending;
            // hyper's bytes count as written; ours go out now or on flush.
            if let Poll::Ready(Err(e)) = this.poll_replacement(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let mut non_empty = bufs.iter().filter(|b| !b.is_empty());
        // The automatic response is a head alone, so one buffer.
        if let (Some(only), None) = (non_empty.next(), non_empty.next()) {
            return self.poll_write(cx, only);
        }
        let this = self.get_mut();
        ready!(this.poll_replacement(cx))?;
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_replacement(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_replacement(cx))?;
        loop {
            match &mut this.linger {
                Linger::No | Linger::Done => return Pin::new(&mut this.inner).poll_shutdown(cx),
                Linger::Pending => {
                    ready!(Pin::new(&mut this.inner).poll_shutdown(cx))?;
                    this.linger = Linger::Draining {
                        deadline: Box::pin(tokio::time::sleep(LINGER)),
                        read: 0,
                    };
                }
                Linger::Draining { deadline, read } => {
                    if deadline.as_mut().poll(cx).is_ready() || *read >= LINGER_BYTES {
                        this.linger = Linger::Done;
                        return Poll::Ready(Ok(()));
                    }
                    let mut scratch = [0u8; 8192];
                    let mut buf = ReadBuf::new(&mut scratch);
                    match ready!(Pin::new(&mut this.inner).poll_read(cx, &mut buf)) {
                        Ok(()) if !buf.filled().is_empty() => *read += buf.filled().len(),
                        // End of stream or a reset: the client is done.
                        _ => {
                            this.linger = Linger::Done;
                            return Poll::Ready(Ok(()));
                        }
                    }
                }
            }
        }
    }
}

/// hyper's automatic answer to a request it could not parse is a lone head,
/// `HTTP/1.1 400|414|431 …` with `content-length: 0`; every error response of
/// ours has a JSON body, so only hyper's can match. Returns the same head
/// with a JSON body, and the connection marked to close.
fn automatic_error_as_json(buf: &[u8]) -> Option<Vec<u8>> {
    if buf.len() > 1024 || !buf.ends_with(b"\r\n\r\n") {
        return None;
    }
    let head = std::str::from_utf8(buf).ok()?;
    let mut lines = head.trim_end_matches("\r\n").split("\r\n");
    let status_line = lines.next()?;
    let code = status_line.strip_prefix("HTTP/1.1 ")?.get(..3)?;
    let status = match code {
        "400" | "414" | "431" => StatusCode::from_bytes(code.as_bytes()).ok()?,
        _ => return None,
    };
    let mut empty_body = false;
    let mut kept = Vec::new();
    for line in lines {
        let (name, value) = line.split_once(':')?;
        let name = name.trim();
        if name.eq_ignore_ascii_case("content-length") {
            empty_body = value.trim() == "0";
        } else if !name.eq_ignore_ascii_case("connection")
            && !name.eq_ignore_ascii_case("content-type")
        {
            kept.push(line);
        }
    }
    if !empty_body {
        return None;
    }
    let body = ApiError::new(status, title(status))
        .detail(generic_detail(status))
        .body()
        .to_string();
    let mut out = format!(
        "{status_line}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for line in kept {
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    out.push_str(&body);
    Some(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hypers_empty_error_heads_are_rewritten() {
        let head = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: Sun, 23 Nov 2025 13:00:00 GMT\r\n\r\n";
        let out = String::from_utf8(automatic_error_as_json(head).unwrap()).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(head.contains("content-type: application/json"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        assert!(head.contains("date: Sun"));
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["error"], "Request header fields too large");

        // A response with a body, a success, another status: untouched.
        assert!(
            automatic_error_as_json(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n")
                .is_none()
        );
        assert!(automatic_error_as_json(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(
            automatic_error_as_json(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
                .is_none()
        );
        assert!(automatic_error_as_json(b"{\"error\": \"x\"}").is_none());
    }

    #[test]
    fn titles_read_as_sentences() {
        assert_eq!(title(StatusCode::METHOD_NOT_ALLOWED), "Method not allowed");
        assert_eq!(title(StatusCode::URI_TOO_LONG), "URI too long");
        assert_eq!(
            title(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE),
            "Request header fields too large"
        );
    }
}
