//! Bytes → text, the way a browser picks a page's encoding.
//!
//! Pages in the wild still ship as windows-1252, GBK, Shift_JIS and friends, and the
//! declaration that says so lives in three places of decreasing authority. We follow
//! the WHATWG "encoding sniffing algorithm" so that webfold reads a page the way the
//! browser its agent drives would:
//!
//! 1. a byte order mark (UTF-8, UTF-16LE, UTF-16BE) wins over everything;
//! 2. then the `charset` parameter of the HTTP `Content-Type` header;
//! 3. then (HTML only) a `<meta charset>` / `<meta http-equiv=Content-Type>` found by
//!    the WHATWG prescan of the first 1024 bytes, or an `<?xml encoding=…?>` declaration;
//! 4. then a guess: bytes that are valid UTF-8 are UTF-8; otherwise (HTML only) a
//!    declaration later in the head, as Chromium honours it; otherwise `chardetng`
//!    (Firefox's detector), steered by the URL's top-level domain when known;
//! 5. pure ASCII (or empty) input is decoded as UTF-8 by default.
//!
//! Departures from browsers, all because an agent wants the text rather than a
//! security boundary or compatibility with old quirks:
//! - labels that map to encoding_rs's `replacement` encoding (ISO-2022-KR,
//!   HZ-GB-2312, …) are ignored instead of turning the page into a single U+FFFD;
//! - a `<meta>` naming a legacy charset loses to bytes that are entirely valid,
//!   non-ASCII UTF-8 (saved and scraped pages are re-encoded and keep a stale meta;
//!   legacy text is practically never valid UTF-8 by accident). A header still wins;
//! - the guess may pick UTF-8 (browsers refuse to for `http:` pages).
//!
//! Invalid byte sequences become U+FFFD; nothing here panics on any input.
//! The module is pure: no I/O, so the fetch crate, the CLI and tests share it.

use std::borrow::Cow;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, REPLACEMENT, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};

/// How many leading bytes the `<meta>` prescan looks at (WHATWG: 1024).
pub const PRESCAN_BYTES: usize = 1024;

/// How far the second, "late" `<meta>` scan looks (it also stops at `<body`). It only
/// runs for bytes that are not valid UTF-8 and had no declaration in the first 1024.
const LATE_META_BYTES: usize = 64 * 1024;

/// Where the encoding used for decoding came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EncodingSource {
    /// A byte order mark at the start of the input.
    Bom,
    /// The `charset` parameter of the `Content-Type` header.
    Header,
    /// A `<meta>` (or XML) declaration found by the prescan.
    Meta,
    /// Guessed from the bytes: valid UTF-8, or chardetng's guess.
    Sniffed,
    /// Nothing to go on (ASCII-only or empty input): UTF-8.
    Default,
}

impl EncodingSource {
    /// A short lowercase name, stable for `--json` output.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Bom => "bom",
            Self::Header => "header",
            Self::Meta => "meta",
            Self::Sniffed => "sniffed",
            Self::Default => "default",
        }
    }
}

/// Decoded text plus how its encoding was chosen.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The text, without any byte order mark.
    pub text: String,
    /// The encoding the bytes were decoded with.
    pub encoding: &'static Encoding,
    /// Where that encoding came from.
    pub source: EncodingSource,
    /// Whether malformed sequences were replaced with U+FFFD.
    pub had_errors: bool,
}

/// Decodes an HTML document's bytes. `content_type` is the raw `Content-Type`
/// header value, if the bytes came over HTTP.
pub fn decode_html(bytes: &[u8], content_type: Option<&str>) -> Decoded {
    decode(Cow::Borrowed(bytes), content_type, None, true)
}

/// Like [`decode_html`], but takes ownership so valid UTF-8 is not copied at all, and
/// uses the page's `url` (if known) to give the encoding guess its top-level domain.
pub fn decode_html_owned(bytes: Vec<u8>, content_type: Option<&str>, url: Option<&str>) -> Decoded {
    let tld = url.and_then(tld_of);
    decode(Cow::Owned(bytes), content_type, tld.as_deref(), true)
}

/// Decodes a non-HTML text body (`text/plain`, CSS, JSON, …): BOM, then the header
/// charset, then a guess. No `<meta>` prescan. Takes ownership and uses the
/// `url` as [`decode_html_owned`] does.
pub fn decode_text_owned(bytes: Vec<u8>, content_type: Option<&str>, url: Option<&str>) -> Decoded {
    let tld = url.and_then(tld_of);
    decode(Cow::Owned(bytes), content_type, tld.as_deref(), false)
}

/// Decodes a response body as what its media type says it is: an HTML
/// document with the full sniffing, any other text without the `<meta>`
/// prescan. `mime` is the media type's essence (`text/html`), sniffed when
/// the response had no `Content-Type`.
pub fn decode_body(
    bytes: Vec<u8>,
    content_type: Option<&str>,
    mime: &str,
    url: Option<&str>,
) -> Decoded {
    if mime == "text/html" || mime == "application/xhtml+xml" {
        decode_html_owned(bytes, content_type, url)
    } else {
        decode_text_owned(bytes, content_type, url)
    }
}

/// The encoding named by the `charset` parameter of a `Content-Type` value, e.g.
/// `text/html; charset="ISO-8859-1"` → windows-1252 (WHATWG label rules).
/// Unknown labels, and labels for the `replacement` encoding, give `None`.
pub fn charset_from_content_type(ct: &str) -> Option<&'static Encoding> {
    let mut rest = ct.split_once(';')?.1;
    loop {
        let (name, after_name) = match rest.find(['=', ';']) {
            Some(i) if rest.as_bytes()[i] == b'=' => (&rest[..i], &rest[i + 1..]),
            Some(i) => {
                rest = &rest[i + 1..];
                continue;
            }
            None => return None,
        };
        let (value, next) = parameter_value(after_name);
        if name.trim().eq_ignore_ascii_case("charset") {
            return usable(Encoding::for_label(value.trim().as_bytes()));
        }
        rest = next?;
    }
}

/// Splits a MIME parameter value (quoted-string or token) off `s`; returns the value
/// and the text after the next `;`, if any.
fn parameter_value(s: &str) -> (Cow<'_, str>, Option<&str>) {
    let trimmed = s.trim_start();
    if let Some(quoted) = trimmed.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        let mut end = quoted.len();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => {
                    end = i + 1;
                    break;
                }
                _ => value.push(c),
            }
        }
        let after = &quoted[end..];
        (Cow::Owned(value), after.split_once(';').map(|(_, r)| r))
    } else {
        match trimmed.split_once(';') {
            Some((v, r)) => (Cow::Borrowed(v), Some(r)),
            None => (Cow::Borrowed(trimmed), None),
        }
    }
}

/// Runs the WHATWG prescan over (at most) the first [`PRESCAN_BYTES`] of `bytes` and
/// returns the declared encoding. A declared UTF-16 means UTF-8 (the bytes we are
/// reading are ASCII-compatible, so the declaration cannot be true) and
/// x-user-defined means windows-1252, as the spec says.
pub fn prescan_meta_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(PRESCAN_BYTES)];
    prescan(head, false).map(declared_to_actual)
}

fn declared_to_actual(enc: &'static Encoding) -> &'static Encoding {
    if enc == UTF_16LE || enc == UTF_16BE {
        UTF_8
    } else if enc == X_USER_DEFINED {
        WINDOWS_1252
    } else {
        enc
    }
}

fn usable(enc: Option<&'static Encoding>) -> Option<&'static Encoding> {
    enc.filter(|e| *e != REPLACEMENT)
}

fn decode(
    bytes: Cow<'_, [u8]>,
    content_type: Option<&str>,
    tld: Option<&[u8]>,
    html: bool,
) -> Decoded {
    if let Some((enc, bom_len)) = Encoding::for_bom(&bytes) {
        return finish(bytes, bom_len, enc, EncodingSource::Bom);
    }
    if let Some(enc) = content_type.and_then(charset_from_content_type) {
        return finish(bytes, 0, enc, EncodingSource::Header);
    }
    let ascii_up_to = Encoding::ascii_valid_up_to(&bytes);
    let is_ascii = ascii_up_to == bytes.len();
    let is_utf8 =
        is_ascii || ascii_up_to + Encoding::utf8_valid_up_to(&bytes[ascii_up_to..]) == bytes.len();
    if html && let Some(enc) = usable(prescan_meta_charset(&bytes)) {
        // A file that is entirely valid, non-ASCII UTF-8 but declares a legacy
        // charset was re-encoded after the fact (saved pages, scrapers): legacy
        // text is practically never valid UTF-8 by accident, so trust the bytes.
        if enc != UTF_8 && is_utf8 && !is_ascii {
            return finish(bytes, 0, UTF_8, EncodingSource::Sniffed);
        }
        return finish(bytes, 0, enc, EncodingSource::Meta);
    }
    if is_ascii {
        return finish(bytes, 0, UTF_8, EncodingSource::Default);
    }
    if is_utf8 {
        return finish(bytes, 0, UTF_8, EncodingSource::Sniffed);
    }
    if html {
        // Like Chromium, honour a declaration that comes later in the head (after
        // long inline scripts, or cut by the 1024-byte window) before guessing.
        let window = &bytes[..bytes.len().min(LATE_META_BYTES)];
        if let Some(enc) = usable(prescan(window, true).map(declared_to_actual)) {
            return finish(bytes, 0, enc, EncodingSource::Meta);
        }
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(&bytes, true);
    let enc = detector.guess(tld, Utf8Detection::Allow);
    finish(bytes, 0, enc, EncodingSource::Sniffed)
}

/// Decodes `bytes[skip..]` with `enc`. UTF-8 input that is valid becomes the
/// `String` without a copy when owned, and with exactly one copy when borrowed.
fn finish(
    bytes: Cow<'_, [u8]>,
    skip: usize,
    enc: &'static Encoding,
    source: EncodingSource,
) -> Decoded {
    if enc == UTF_8
        && let Cow::Owned(mut vec) = bytes
    {
        vec.drain(..skip);
        return match String::from_utf8(vec) {
            Ok(text) => Decoded {
                text,
                encoding: enc,
                source,
                had_errors: false,
            },
            Err(err) => {
                let (text, _) = UTF_8.decode_without_bom_handling(err.as_bytes());
                Decoded {
                    text: text.into_owned(),
                    encoding: enc,
                    source,
                    had_errors: true,
                }
            }
        };
    }
    let (text, had_errors) = enc.decode_without_bom_handling(&bytes[skip..]);
    Decoded {
        text: text.into_owned(),
        encoding: enc,
        source,
        had_errors,
    }
}

/// The rightmost DNS label of `url`'s host, lowercase ASCII, as chardetng wants it.
fn tld_of(url: &str) -> Option<Vec<u8>> {
    let parsed = url::Url::parse(url).ok()?;
    let domain = parsed.domain()?;
    let label = domain.trim_end_matches('.').rsplit('.').next()?;
    let label = label.to_ascii_lowercase();
    let ok = !label.is_empty()
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-');
    ok.then(|| label.into_bytes())
}

// ---------------------------------------------------------------------------
// The WHATWG prescan ("prescan a byte stream to determine its encoding").

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

fn starts_with_ci(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.len() >= needle.len() && haystack[..needle.len()].eq_ignore_ascii_case(needle)
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

/// Returns `None` both when nothing is declared and when the bytes run out mid-tag
/// (the spec's "abort the prescan"). With `stop_at_body`, a `<body` start tag ends
/// the scan: declarations in the body are not honoured by any browser.
fn prescan(b: &[u8], stop_at_body: bool) -> Option<&'static Encoding> {
    if b.starts_with(b"<?xml") {
        return xml_declaration_encoding(b);
    }
    let mut pos = 0;
    while pos < b.len() {
        let rest = &b[pos..];
        if rest.starts_with(b"<!--") {
            // The '>' of the first "-->" whose dashes come after the '<'.
            pos = find(b, b"-->", pos + 2)? + 3;
            continue;
        }
        if starts_with_ci(rest, b"<meta") && rest.get(5).is_some_and(|&c| is_space(c) || c == b'/')
        {
            pos += 5;
            if let Some(enc) = meta_tag(b, &mut pos)? {
                return Some(enc);
            }
            continue;
        }
        let letter_at = |i: usize| rest.get(i).is_some_and(u8::is_ascii_alphabetic);
        if rest.starts_with(b"<") && (letter_at(1) || (rest.get(1) == Some(&b'/') && letter_at(2)))
        {
            // Some other tag: skip its name, then its attributes.
            let name_start = pos + 1;
            pos += 1;
            while pos < b.len() && !is_space(b[pos]) && b[pos] != b'>' {
                pos += 1;
            }
            if stop_at_body && b[name_start..pos].eq_ignore_ascii_case(b"body") {
                return None;
            }
            while get_attribute(b, &mut pos)?.is_some() {}
            pos += 1;
            continue;
        }
        if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            pos = b[pos..].iter().position(|&c| c == b'>')? + pos + 1;
            continue;
        }
        pos += 1;
    }
    None
}

/// Processes the attributes of a `<meta` tag whose name ends at `*pos`.
/// Outer `None` = ran out of bytes; `Some(None)` = this meta declares nothing usable.
fn meta_tag(b: &[u8], pos: &mut usize) -> Option<Option<&'static Encoding>> {
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut got_pragma = false;
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<&'static Encoding> = None;
    while let Some((name, value)) = get_attribute(b, pos)? {
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" => got_pragma |= value == b"content-type",
            b"content" if charset.is_none() => {
                if let Some(enc) = charset_from_meta_content(&value).and_then(Encoding::for_label) {
                    charset = Some(enc);
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = Encoding::for_label(&value);
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    *pos += 1;
    let declared = match need_pragma {
        Some(false) => charset,
        Some(true) if got_pragma => charset,
        _ => None,
    };
    Some(declared)
}

/// WHATWG "get an attribute": reads one attribute starting at `*pos`.
/// Outer `None` = ran out of bytes; `Some(None)` = no more attributes (at `>`).
/// Names and unquoted/quoted values are ASCII-lowercased, as the spec does.
#[allow(clippy::type_complexity)]
fn get_attribute(b: &[u8], pos: &mut usize) -> Option<Option<(Vec<u8>, Vec<u8>)>> {
    let at = |p: usize| b.get(p).copied();
    while at(*pos).is_some_and(|c| is_space(c) || c == b'/') {
        *pos += 1;
    }
    let mut c = at(*pos)?;
    if c == b'>' {
        return Some(None);
    }
    let mut name = Vec::new();
    let mut value = Vec::new();
    // Name.
    loop {
        if c == b'=' && !name.is_empty() {
            *pos += 1;
            break;
        }
        if is_space(c) {
            while at(*pos).is_some_and(is_space) {
                *pos += 1;
            }
            if at(*pos)? != b'=' {
                return Some(Some((name, value)));
            }
            *pos += 1;
            break;
        }
        if c == b'/' || c == b'>' {
            return Some(Some((name, value)));
        }
        name.push(c.to_ascii_lowercase());
        *pos += 1;
        c = at(*pos)?;
    }
    // Value.
    while at(*pos).is_some_and(is_space) {
        *pos += 1;
    }
    let c = at(*pos)?;
    if c == b'"' || c == b'\'' {
        loop {
            *pos += 1;
            let d = at(*pos)?;
            if d == c {
                *pos += 1;
                return Some(Some((name, value)));
            }
            value.push(d.to_ascii_lowercase());
        }
    }
    if c == b'>' {
        return Some(Some((name, value)));
    }
    loop {
        let d = at(*pos)?;
        if is_space(d) || d == b'>' {
            return Some(Some((name, value)));
        }
        value.push(d.to_ascii_lowercase());
        *pos += 1;
    }
}

/// WHATWG "extract a character encoding from a meta element": the label after
/// `charset=` in a `content` attribute such as `text/html; charset=iso-8859-1`.
fn charset_from_meta_content(s: &[u8]) -> Option<&[u8]> {
    let mut pos = 0;
    loop {
        let i = s
            .get(pos..)?
            .windows(7)
            .position(|w| w.eq_ignore_ascii_case(b"charset"))?;
        pos += i + 7;
        while s.get(pos).copied().is_some_and(is_space) {
            pos += 1;
        }
        if s.get(pos) != Some(&b'=') {
            continue;
        }
        pos += 1;
        while s.get(pos).copied().is_some_and(is_space) {
            pos += 1;
        }
        let c = *s.get(pos)?;
        if c == b'"' || c == b'\'' {
            let len = s[pos + 1..].iter().position(|&d| d == c)?;
            return Some(&s[pos + 1..pos + 1 + len]);
        }
        let len = s[pos..]
            .iter()
            .position(|&d| is_space(d) || d == b';')
            .unwrap_or(s.len() - pos);
        return Some(&s[pos..pos + len]);
    }
}

/// WHATWG "get an XML encoding" for input starting with `<?xml`.
fn xml_declaration_encoding(b: &[u8]) -> Option<&'static Encoding> {
    let end = b.iter().position(|&c| c == b'>')?;
    let decl = &b[..end];
    let mut pos = find(decl, b"encoding", 0)? + 8;
    while decl.get(pos).copied().is_some_and(|c| c <= b' ') {
        pos += 1;
    }
    if decl.get(pos) != Some(&b'=') {
        return None;
    }
    pos += 1;
    while decl.get(pos).copied().is_some_and(|c| c <= b' ') {
        pos += 1;
    }
    let quote = *decl.get(pos)?;
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    let len = decl[pos + 1..].iter().position(|&c| c == quote)?;
    Encoding::for_label(&decl[pos + 1..pos + 1 + len])
}

/// Formats whose first bytes say they are not text, with what to call them.
const BINARY_MAGIC: &[(&[u8], &str)] = &[
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"\x1f\x8b", "gzip-compressed data"),
    (b"PK\x03\x04", "a zip archive"),
    (b"BZh", "bzip2-compressed data"),
    (b"\xfd7zXZ\x00", "xz-compressed data"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x7fELF", "an executable"),
    (b"\x00asm", "a WebAssembly module"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"wOFF", "a web font"),
    (b"wOF2", "a web font"),
];

/// How much of the text the control-character count looks at.
const SNIFF_CHARS: usize = 64 * 1024;

/// Checks that `bytes`, decoded as `text`, can be a web page before a view is
/// made of it: something other than white space, and not a binary file. Every
/// surface that takes a page from a user (a file, standard input, a request
/// body, a tool argument) asks this once, so "not a page" reads the same
/// everywhere instead of becoming an empty `body` view.
///
/// Binary means a known binary format by its first bytes (images, PDF,
/// archives, compressed data, executables, fonts), or text of which more than
/// 1 character in 50 is a control character other than tab, line feed,
/// carriage return and form feed (read in the first 64 K characters). Real
/// pages, in any encoding, have practically none; any other bytes decoded as
/// text have about one in nine.
pub fn check_page(bytes: &[u8], text: &str) -> Result<(), crate::Error> {
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    if let Some((_, what)) = BINARY_MAGIC.iter().find(|(m, _)| body.starts_with(m)) {
        return Err(crate::Error::NotHtml((*what).to_string()));
    }
    if text.trim().is_empty() {
        return Err(crate::Error::EmptyInput);
    }
    let (seen, control) = control_chars(text);
    if control * 50 > seen {
        return Err(crate::Error::NotHtml(format!(
            "binary data: {}% of the first characters are control characters",
            control * 100 / seen
        )));
    }
    Ok(())
}

/// Characters read and control characters among them (other than tab, line
/// feed, carriage return and form feed) in the first [`SNIFF_CHARS`] of
/// `text`, counted over bytes in blocks the compiler vectorises: a
/// per-character Unicode lookup took a tenth of the parse's own time.
/// Control characters are U+0000–U+001F and U+007F–U+009F; the last 32 are
/// two bytes in UTF-8, `C2 80`–`C2 9F`.
fn control_chars(text: &str) -> (usize, usize) {
    const BLOCK: usize = 4096;
    let bytes = text.as_bytes();
    // A continuation byte is no new character.
    let starts = |b: &[u8]| count_bytes(b, |b| b & 0xc0 != 0x80);
    let (mut seen, mut end) = (0, 0);
    while end < bytes.len() {
        let block = &bytes[end..bytes.len().min(end + BLOCK)];
        let n = starts(block);
        if seen + n > SNIFF_CHARS {
            break;
        }
        seen += n;
        end += block.len();
    }
    // The block that passes the limit, character by character.
    while let Some(&b) = bytes.get(end) {
        let start = b & 0xc0 != 0x80;
        if start && seen == SNIFF_CHARS {
            break;
        }
        seen += usize::from(start);
        end += 1;
    }
    let read = &bytes[..end];
    let c0 = count_bytes(read, |b| {
        (b < 0x20) & (b != b'\t') & (b != b'\n') & (b != b'\r') & (b != b'\x0c') | (b == 0x7f)
    });
    let c1 = memchr::memchr_iter(0xc2, read)
        .filter(|&i| read.get(i + 1).is_some_and(|n| (0x80..0xa0).contains(n)))
        .count();
    (seen, c0 + c1)
}

/// How many of `bytes` are `is`, counted in byte-wide lanes.
fn count_bytes(bytes: &[u8], is: impl Fn(u8) -> bool) -> usize {
    bytes
        .chunks(255)
        .map(|c| usize::from(c.iter().fold(0u8, |n, &b| n + u8::from(is(b)))))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{GBK, SHIFT_JIS, WINDOWS_1251};

    fn dec(bytes: &[u8], ct: Option<&str>) -> Decoded {
        decode_html(bytes, ct)
    }

    #[test]
    fn pages_are_text_and_not_empty() {
        let check = |b: &[u8]| check_page(b, &dec(b, None).text);
        assert_eq!(check(b""), Err(crate::Error::EmptyInput));
        assert_eq!(check(b"\xef\xbb\xbf \r\n\t"), Err(crate::Error::EmptyInput));
        assert_eq!(
            check(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
            Err(crate::Error::NotHtml("a PNG image".into()))
        );
        assert_eq!(
            check(b"PK\x03\x04\x14\x00"),
            Err(crate::Error::NotHtml("a zip archive".into()))
        );
        let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
        elf.extend([0u8; 64]);
        assert!(matches!(check(&elf), Err(crate::Error::NotHtml(_))));
        // Text with NULs all through it (UTF-16 without its byte order mark).
        let utf16: Vec<u8> = "<p>hello</p>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert!(
            matches!(check(&utf16), Err(crate::Error::NotHtml(w)) if w.starts_with("binary data")),
        );
        // Pages, whatever their encoding; a stray control character is no reason.
        let mut bom16 = vec![0xff, 0xfe];
        bom16.extend(utf16);
        for page in [
            &bom16[..],
            b"<p>caf\xe9</p>",
            b"<meta charset=gbk><p>\xc4\xe3\xba\xc3</p>",
            b"plain text is a page too",
            b"<p>a form feed \x0c and a stray \x01 in a long enough paragraph of text</p>",
        ] {
            assert_eq!(check(page), Ok(()), "{:?}", String::from_utf8_lossy(page));
        }
    }

    #[test]
    fn boms_win_and_are_stripped() {
        let d = dec(
            b"\xEF\xBB\xBFcaf\xC3\xA9",
            Some("text/html; charset=windows-1252"),
        );
        assert_eq!(
            (d.text.as_str(), d.encoding, d.source),
            ("café", UTF_8, EncodingSource::Bom)
        );

        let le = [0xFF, 0xFE, b'h', 0, b'i', 0, 0xE9, 0];
        let d = dec(&le, None);
        assert_eq!(
            (d.text.as_str(), d.encoding, d.source),
            ("hié", UTF_16LE, EncodingSource::Bom)
        );

        let be = [0xFE, 0xFF, 0, b'h', 0, b'i'];
        let d = decode_html_owned(be.to_vec(), None, None);
        assert_eq!((d.text.as_str(), d.encoding), ("hi", UTF_16BE));

        let d = decode_html_owned(b"\xEF\xBB\xBFok".to_vec(), None, None);
        assert_eq!((d.text.as_str(), d.source), ("ok", EncodingSource::Bom));
    }

    #[test]
    fn header_wins_over_meta() {
        let html = b"<meta charset=utf-8><p>\xE9t\xE9";
        let d = dec(html, Some("text/html; charset=ISO-8859-1"));
        assert_eq!(d.encoding, WINDOWS_1252);
        assert_eq!(d.source, EncodingSource::Header);
        assert!(d.text.ends_with("été"));
    }

    #[test]
    fn content_type_parameters() {
        let cs = charset_from_content_type;
        assert_eq!(cs("text/html; charset=utf-8"), Some(UTF_8));
        assert_eq!(cs("text/html;charset=\"Shift_JIS\""), Some(SHIFT_JIS));
        assert_eq!(cs("text/html; foo=\"a;b\"; CHARSET = gbk"), Some(GBK));
        assert_eq!(cs("text/html; charset=latin1"), Some(WINDOWS_1252));
        assert_eq!(cs("text/html"), None);
        assert_eq!(cs("text/html; charset="), None);
        assert_eq!(cs("text/html; charset=no-such-thing"), None);
        assert_eq!(
            cs("text/html; charset=iso-2022-kr"),
            None,
            "replacement is ignored"
        );
        assert_eq!(cs(";;;=;charset"), None);
    }

    #[test]
    fn meta_prescan_forms() {
        let p = |s: &[u8]| prescan_meta_charset(s);
        assert_eq!(
            p(b"<!doctype html><html><head><meta charset=\"windows-1251\">"),
            Some(WINDOWS_1251)
        );
        assert_eq!(p(b"<META CHARSET='Shift_JIS'/>"), Some(SHIFT_JIS));
        assert_eq!(
            p(b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=gb2312\">"),
            Some(GBK)
        );
        // content= without the http-equiv pragma is not a declaration.
        assert_eq!(p(b"<meta content=\"text/html; charset=gb2312\">"), None);
        // Attribute order does not matter.
        assert_eq!(
            p(b"<meta content='text/html;charset=iso-8859-1' http-equiv=content-type>"),
            Some(WINDOWS_1252)
        );
        // Declarations inside comments and attribute values of other tags are skipped.
        assert_eq!(
            p(b"<!-- <meta charset=gbk> --><meta charset=utf-8>"),
            Some(UTF_8)
        );
        assert_eq!(
            p(b"<div title='<meta charset=gbk>'><meta charset=koi8-r>"),
            Some(encoding_rs::KOI8_R)
        );
        // UTF-16 declared in ASCII bytes means UTF-8; x-user-defined means windows-1252.
        assert_eq!(p(b"<meta charset=utf-16le>"), Some(UTF_8));
        assert_eq!(p(b"<meta charset=x-user-defined>"), Some(WINDOWS_1252));
        // XML declaration.
        assert_eq!(
            p(b"<?xml version='1.0' encoding='Shift_JIS'?><html>"),
            Some(SHIFT_JIS)
        );
        // Beyond 1024 bytes is not looked at.
        let mut late = vec![b' '; PRESCAN_BYTES];
        late.extend_from_slice(b"<meta charset=gbk>");
        assert_eq!(p(&late), None);
        // Truncated tags abort quietly.
        assert_eq!(p(b"<meta charset=\"gb"), None);
        assert_eq!(p(b"<!-- never closed <meta charset=gbk>"), None);
    }

    #[test]
    fn late_meta_is_honoured_for_legacy_bytes_only() {
        let mut page = b"<html><head><script>".to_vec();
        page.extend(std::iter::repeat_n(b'x', 2000));
        page.extend_from_slice(b"</script><meta charset=windows-1251></head><body>\xcf\xf0\xe8");
        let d = dec(&page, None);
        assert_eq!((d.encoding, d.source), (WINDOWS_1251, EncodingSource::Meta));
        assert!(d.text.ends_with("При"));
        // After <body> it no longer counts.
        let mut body = b"<html><body>".to_vec();
        body.extend(std::iter::repeat_n(b'x', 2000));
        body.extend_from_slice(b"<meta charset=windows-1251>\xfc\xdf");
        assert_eq!(dec(&body, None).source, EncodingSource::Sniffed);
    }

    #[test]
    fn valid_utf8_beats_a_stale_legacy_meta() {
        let d = dec("<meta charset=gbk><p>ä — ü</p>".as_bytes(), None);
        assert_eq!((d.encoding, d.source), (UTF_8, EncodingSource::Sniffed));
        assert_eq!(d.text, "<meta charset=gbk><p>ä — ü</p>");
        // ASCII-only bytes: the declaration stands (it decodes identically anyway).
        assert_eq!(
            dec(b"<meta charset=gbk>", None).source,
            EncodingSource::Meta
        );
        // The header is authoritative, as in browsers.
        let d = dec("ä".as_bytes(), Some("text/html; charset=windows-1252"));
        assert_eq!(d.text, "Ã¤");
    }

    #[test]
    fn meta_is_used_when_no_header() {
        let d = dec(
            b"<meta charset=windows-1251><p>\xcf\xf0\xe8\xe2\xe5\xf2",
            None,
        );
        assert_eq!((d.encoding, d.source), (WINDOWS_1251, EncodingSource::Meta));
        assert!(d.text.ends_with("Привет"));
        // A header without charset does not block the meta.
        let d = dec(b"<meta charset=windows-1251>", Some("text/html"));
        assert_eq!(d.source, EncodingSource::Meta);
        // Text bodies are not prescanned.
        let d = decode_text_owned(
            b"<meta charset=windows-1251>".to_vec(),
            Some("text/plain"),
            None,
        );
        assert_eq!((d.encoding, d.source), (UTF_8, EncodingSource::Default));
    }

    #[test]
    fn sniffing() {
        let d = dec(b"<p>plain ascii</p>", None);
        assert_eq!((d.encoding, d.source), (UTF_8, EncodingSource::Default));

        let d = dec("<p>naïve café — ok</p>".as_bytes(), None);
        assert_eq!((d.encoding, d.source), (UTF_8, EncodingSource::Sniffed));
        assert!(!d.had_errors);

        let latin = b"<p>Gr\xfc\xdfe aus M\xfcnchen, sch\xf6ne Gr\xfc\xdfe und \xe4hnliche W\xf6rter f\xfcr \xdcbungen.</p>";
        let d = dec(latin, None);
        assert_eq!(
            (d.encoding, d.source),
            (WINDOWS_1252, EncodingSource::Sniffed)
        );
        assert!(d.text.contains("Grüße aus München"));
        assert!(!d.had_errors);

        // The TLD steers the guess.
        let cyr = b"\xcf\xf0\xe8\xe2\xe5\xf2, \xea\xe0\xea \xe4\xe5\xeb\xe0? \xdd\xf2\xee \xf2\xe5\xf1\xf2.";
        let d = decode_html_owned(cyr.to_vec(), None, Some("http://example.ru/x"));
        assert_eq!(d.encoding, WINDOWS_1251);
        assert!(d.text.starts_with("Привет"));
    }

    #[test]
    fn invalid_utf8_under_utf8_declaration_is_replaced() {
        let d = dec(b"<meta charset=utf-8>a\xffb", None);
        assert_eq!(d.text, "<meta charset=utf-8>a\u{FFFD}b");
        assert!(d.had_errors);
        let d = decode_html_owned(b"a\xffb".to_vec(), Some("text/html;charset=utf-8"), None);
        assert_eq!((d.text.as_str(), d.had_errors), ("a\u{FFFD}b", true));
    }

    #[test]
    fn tld_extraction() {
        assert_eq!(
            tld_of("https://www.Example.DE/x").as_deref(),
            Some(&b"de"[..])
        );
        assert_eq!(
            tld_of("http://bücher.example.xn--p1ai./").as_deref(),
            Some(&b"xn--p1ai"[..])
        );
        assert_eq!(tld_of("http://127.0.0.1:8080/"), None);
        assert_eq!(tld_of("not a url"), None);
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet: &[u8] =
            b"<>!-/?='\" \tmetacharsetMETA;content=http-equiv\xef\xbb\xbf\xff\xfe\x80\xc3";
        for round in 0..3000 {
            let len = (next() % 300) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    let r = next();
                    if round % 2 == 0 {
                        r as u8
                    } else {
                        alphabet[(r % alphabet.len() as u64) as usize]
                    }
                })
                .collect();
            let prefix = if round % 3 == 0 {
                &b"<meta charset="[..]
            } else {
                &b""[..]
            };
            let input = [prefix, &bytes].concat();
            let d = decode_html(&input, Some("text/html; charset=\"x"));
            let _ = decode_html_owned(input.clone(), None, Some("http://x.jp/"));
            let o = decode_html_owned(input.clone(), None, None);
            let _ = decode_text_owned(input.clone(), None, None);
            // Same decision for borrowed and owned input.
            let b = decode_html(&input, None);
            assert_eq!((b.encoding, b.text.as_str()), (o.encoding, o.text.as_str()));
            assert!(d.text.len() <= input.len() * 3 + 3);
        }
    }

    #[test]
    fn control_characters_are_counted_as_unicode_counts_them() {
        let by_chars = |t: &str| {
            let read = t.chars().take(SNIFF_CHARS);
            let control = read
                .clone()
                .filter(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c'))
                .count();
            (read.count(), control)
        };
        let mut texts: Vec<String> = [
            "",
            "<p>plain</p>\r\n\t\x0c",
            "\u{0}\u{1}\u{1f}\u{7f}\u{80}\u{9f}\u{a0}\u{85}é€😀",
            "Â\u{9f}\u{c2}\u{2028}",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        // Past the sniffed length, mid-way through multibyte characters.
        texts.push("é\u{1}😀\u{85}".repeat(SNIFF_CHARS / 3));
        texts.push((0..=0x2ffu32).filter_map(char::from_u32).collect());
        for t in &texts {
            assert_eq!(control_chars(t), by_chars(t), "{t:?}");
        }
    }
}
