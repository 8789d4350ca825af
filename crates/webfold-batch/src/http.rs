//! The HTTP response a WARC `response` record holds: status, headers, body.

use std::io::Read;

/// Largest body after undoing a `Content-Encoding`.
const MAX_BODY: u64 = 64 * 1024 * 1024;

/// A parsed HTTP response.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// The first value of header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Parses `block` as an HTTP/1.x response; the body has its transfer and
/// content encodings (chunked, gzip, deflate) undone.
pub fn parse(block: &[u8]) -> Result<Response, String> {
    let (head, body) = split_head(block).ok_or("its HTTP header has no end")?;
    let head = String::from_utf8_lossy(head);
    let mut lines = head.lines();
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .strip_prefix("HTTP/")
        .and_then(|rest| rest.split_whitespace().nth(1))
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or_else(|| format!("'{}' is not an HTTP status line", status_line.trim()))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let mut response = Response {
        status,
        headers,
        body: Vec::new(),
    };
    let chunked = response
        .header("Transfer-Encoding")
        .is_some_and(|te| te.to_ascii_lowercase().contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_vec()
    };
    response.body = decompress(body, response.header("Content-Encoding"))?;
    Ok(response)
}

/// The header and the body after the blank line (CRLF or bare LF).
fn split_head(block: &[u8]) -> Option<(&[u8], &[u8])> {
    let crlf = find(block, b"\r\n\r\n").map(|i| (i, 4));
    let lf = find(block, b"\n\n").map(|i| (i, 2));
    let (i, n) = match (crlf, lf) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    Some((&block[..i], &block[i + n..]))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A chunked body joined; a malformed or cut chunk ends it (what arrived).
fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = find(rest, b"\n") {
        let size = String::from_utf8_lossy(&rest[..eol]);
        let size = size.trim().split(';').next().unwrap_or_default();
        let Ok(n) = usize::from_str_radix(size, 16) else {
            break;
        };
        rest = &rest[eol + 1..];
        if n == 0 {
            break;
        }
        let take = n.min(rest.len());
        out.extend_from_slice(&rest[..take]);
        rest = &rest[take..];
        rest = rest.strip_prefix(b"\r\n").unwrap_or(rest);
    }
    out
}

/// `body` with its `Content-Encoding` undone.
fn decompress(body: Vec<u8>, encoding: Option<&str>) -> Result<Vec<u8>, String> {
    let encoding = encoding.unwrap_or("identity").trim().to_ascii_lowercase();
    let mut out = Vec::new();
    let r = match encoding.as_str() {
        "" | "identity" => return Ok(body),
        "gzip" | "x-gzip" => flate2::read::MultiGzDecoder::new(&body[..])
            .take(MAX_BODY)
            .read_to_end(&mut out),
        "deflate" => flate2::read::ZlibDecoder::new(&body[..])
            .take(MAX_BODY)
            .read_to_end(&mut out),
        other => {
            return Err(format!(
                "its body is compressed with '{other}', which this reader does not undo"
            ));
        }
    };
    match r {
        Ok(_) => Ok(out),
        // Crawlers often record a body cut short: keep what decompressed.
        Err(_) if !out.is_empty() => Ok(out),
        Err(e) => Err(format!("its {encoding} body cannot be decompressed ({e})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_bodies_are_joined() {
        let r = parse(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHello\r\n6\r\n world\r\n0\r\n\r\n").unwrap();
        assert_eq!((r.status, &r.body[..]), (200, &b"Hello world"[..]));
    }

    #[test]
    fn a_status_line_is_required() {
        assert!(parse(b"GET / HTTP/1.1\r\n\r\n").is_err());
    }
}
