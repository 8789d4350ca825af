//! Backslash escapes for page text, link destinations and titles.

use std::borrow::Cow;

use super::options::Escaping;

/// Where a piece of text lands, as far as escaping cares.
#[derive(Clone, Copy)]
pub(super) struct TextContext {
    /// The text starts a line of the output (block syntax like `# ` or `1. ` would apply).
    pub line_start: bool,
    /// Inside `[...]` of a link or image: brackets must be escaped to stay balanced.
    pub in_brackets: bool,
}

/// Appends `text` to `out` with the escapes `mode` asks for.
pub(super) fn push_text(out: &mut String, text: &str, mode: Escaping, ctx: TextContext) {
    match mode {
        Escaping::Turndown => push_turndown(out, text),
        Escaping::Minimal => push_minimal(out, text, ctx),
    }
}

/// turndown's `escape`: its regexes applied in order. The `^` ones look at the
/// start of the text node only (no `m` flag); the others are global.
fn push_turndown(out: &mut String, text: &str) {
    let b = text.as_bytes();
    let mut start_escape_at = None;
    match b.first() {
        Some(b'-') => start_escape_at = Some(0),
        Some(b'+') if b.get(1) == Some(&b' ') => start_escape_at = Some(0),
        Some(b'=') => start_escape_at = Some(0),
        Some(b'#') => {
            let n = b.iter().take_while(|&&c| c == b'#').count();
            if n <= 6 && b.get(n) == Some(&b' ') {
                start_escape_at = Some(0);
            }
        }
        Some(b'~') if b.starts_with(b"~~~") => start_escape_at = Some(0),
        Some(b'>') => start_escape_at = Some(0),
        Some(c) if c.is_ascii_digit() => {
            let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
            if b.get(n) == Some(&b'.') && b.get(n + 1) == Some(&b' ') {
                start_escape_at = Some(n);
            }
        }
        _ => {}
    }
    let mut last = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc =
            matches!(c, b'\\' | b'*' | b'`' | b'[' | b']' | b'_') || start_escape_at == Some(i);
        if esc {
            out.push_str(&text[last..i]);
            out.push('\\');
            last = i;
        }
    }
    out.push_str(&text[last..]);
}

fn is_space(c: Option<u8>) -> bool {
    matches!(c, Some(b' ' | b'\t' | b'\n' | b'\r'))
}

fn is_alnum(c: Option<u8>) -> bool {
    // Non-ASCII letters count as word characters too.
    c.is_some_and(|c| c.is_ascii_alphanumeric() || c >= 0x80)
}

/// The bytes that can be read as inline Markdown; every other byte of a
/// text is copied as it is, without looking at its neighbours.
const INLINE_MARKUP: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b"\\*~_`[]<&";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// Escapes only what would be read as Markdown where it stands.
fn push_minimal(out: &mut String, text: &str, ctx: TextContext) {
    let b = text.as_bytes();
    let mut last = 0;
    // A block marker comes after digits at most, none of them inline markup.
    if let Some(m) = ctx.line_start.then(|| line_start_escape(b)).flatten() {
        out.push_str(&text[..m]);
        out.push('\\');
        last = m;
    }
    let mut from = last;
    while let Some(k) = b[from..]
        .iter()
        .position(|&c| INLINE_MARKUP[usize::from(c)])
    {
        let i = from + k;
        if inline_escape(b, i, ctx) {
            out.push_str(&text[last..i]);
            out.push('\\');
            last = i;
        }
        from = i + 1;
    }
    out.push_str(&text[last..]);
}

/// Whether the inline markup byte at `i` would be read as Markdown.
fn inline_escape(b: &[u8], i: usize, ctx: TextContext) -> bool {
    let prev = i.checked_sub(1).map(|p| b[p]);
    let next = b.get(i + 1).copied();
    match b[i] {
        b'\\' => next.is_none_or(|n| n.is_ascii_punctuation()),
        // Delimiter runs need a non-space neighbour; a lone ` * ` is literal.
        b'*' | b'~' => !(is_space(prev) && is_space(next)),
        // `_` does not open or close inside a word (snake_case).
        b'_' => !(is_alnum(prev) && is_alnum(next)),
        b'`' | b']' => true,
        b'[' => ctx.in_brackets,
        b'<' => next.is_none_or(|n| n.is_ascii_alphabetic() || matches!(n, b'/' | b'!' | b'?')),
        b'&' => looks_like_entity(&b[i + 1..]),
        _ => false,
    }
}

/// The index of the character to escape so that a line starting with `b` is not
/// read as block syntax: headings, quotes, list items, thematic breaks, setext
/// underlines, fences.
fn line_start_escape(b: &[u8]) -> Option<usize> {
    let first = *b.first()?;
    let next = b.get(1).copied();
    match first {
        b'#' => {
            let n = b.iter().take_while(|&&c| c == b'#').count();
            (n <= 6 && (b.len() == n || is_space(b.get(n).copied()))).then_some(0)
        }
        b'>' | b'=' => Some(0),
        b'-' | b'+' => (next.is_none() || is_space(next) || next == Some(first)).then_some(0),
        b'0'..=b'9' => {
            let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
            let after = b.get(n + 1).copied();
            (n <= 9
                && matches!(b.get(n), Some(b'.' | b')'))
                && (after.is_none() || is_space(after)))
            .then_some(n)
        }
        _ => None,
    }
}

/// `&name;` or `&#123;` would be decoded as a character reference.
fn looks_like_entity(rest: &[u8]) -> bool {
    let body = rest.strip_prefix(b"#").unwrap_or(rest);
    let n = body
        .iter()
        .take(32)
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    n > 0 && body.get(n) == Some(&b';')
}

/// turndown's `cleanAttribute`: runs of line breaks (and the whitespace after
/// them) become one line break.
pub(super) fn clean_attribute(s: &str) -> Cow<'_, str> {
    if !s.contains('\n') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            while chars.peek().is_some_and(|&c| super::tags::js_space(c)) {
                chars.next();
            }
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A link title in double quotes, with ` "` before it; nothing for an empty title.
pub(super) fn push_title(out: &mut String, title: &str) {
    let title = clean_attribute(title);
    if title.is_empty() {
        return;
    }
    out.push_str(" \"");
    let mut last = 0;
    for (i, c) in title.char_indices() {
        if c == '"' {
            out.push_str(&title[last..i]);
            out.push('\\');
            last = i;
        }
    }
    out.push_str(&title[last..]);
    out.push('"');
}

/// A link destination: `<...>` when it holds whitespace, else parentheses
/// escaped (all of them for turndown; only unbalanced ones for minimal).
pub(super) fn push_destination(out: &mut String, url: &str, mode: Escaping) {
    if url.is_empty() {
        out.push_str("<>");
        return;
    }
    // ASCII white space and controls, in one pass without early exit,
    // which the compiler vectorizes.
    if url
        .bytes()
        .fold(false, |any, b| any | (b <= b' ' || b == 0x7f))
    {
        out.push('<');
        for c in url.chars() {
            match c {
                '<' | '>' => {
                    out.push('\\');
                    out.push(c);
                }
                '\n' | '\r' => {}
                _ => out.push(c),
            }
        }
        out.push('>');
        return;
    }
    let escape_all = mode == Escaping::Turndown
        || memchr::memchr2(b'(', b')', url.as_bytes()).is_some() && !balanced_parens(url);
    if !escape_all && !url.starts_with('<') {
        out.push_str(url);
        return;
    }
    let mut last = 0;
    for (i, c) in url.char_indices() {
        if matches!(c, '(' | ')') || (i == 0 && c == '<') {
            out.push_str(&url[last..i]);
            out.push('\\');
            last = i;
        }
    }
    out.push_str(&url[last..]);
}

fn balanced_parens(s: &str) -> bool {
    let mut depth = 0i32;
    for b in s.bytes() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minimal(s: &str, line_start: bool) -> String {
        let mut out = String::new();
        push_text(
            &mut out,
            s,
            Escaping::Minimal,
            TextContext {
                line_start,
                in_brackets: false,
            },
        );
        out
    }

    fn turndown(s: &str) -> String {
        let mut out = String::new();
        push_turndown(&mut out, s);
        out
    }

    #[test]
    fn turndown_escapes_like_turndown() {
        assert_eq!(turndown("1984. by"), "1984\\. by");
        assert_eq!(turndown("1984.George"), "1984.George");
        assert_eq!(turndown("- a - b"), "\\- a - b");
        assert_eq!(turndown("+ a"), "\\+ a");
        assert_eq!(turndown("+1"), "+1");
        assert_eq!(turndown("### x"), "\\### x");
        assert_eq!(turndown("#x"), "#x");
        assert_eq!(turndown("a_b*c`d[e]f\\"), "a\\_b\\*c\\`d\\[e\\]f\\\\");
        assert_eq!(turndown("~~~ x"), "\\~~~ x");
        assert_eq!(turndown(">x"), "\\>x");
        assert_eq!(turndown("==="), "\\===");
    }

    #[test]
    fn minimal_escapes_only_syntax() {
        assert_eq!(
            minimal("snake_case and a * b", false),
            "snake_case and a * b"
        );
        assert_eq!(minimal("_emph_ *x*", false), "\\_emph\\_ \\*x\\*");
        assert_eq!(minimal("C:\\dir and \\*", false), "C:\\dir and \\\\\\*");
        assert_eq!(minimal("# not a heading", true), "\\# not a heading");
        assert_eq!(minimal("# inline", false), "# inline");
        assert_eq!(minimal("1. item", true), "1\\. item");
        assert_eq!(minimal("1984 was", true), "1984 was");
        assert_eq!(minimal("- item", true), "\\- item");
        assert_eq!(minimal("-1 degrees", true), "-1 degrees");
        assert_eq!(minimal("--- rule", true), "\\--- rule");
        assert_eq!(minimal("> quote", true), "\\> quote");
        assert_eq!(
            minimal("a <b> tag & &amp; x", false),
            "a \\<b> tag & \\&amp; x"
        );
        assert_eq!(minimal("[1] note", false), "[1\\] note");
        assert_eq!(minimal("`code`", false), "\\`code\\`");
        let mut out = String::new();
        push_text(
            &mut out,
            "[x]",
            Escaping::Minimal,
            TextContext {
                line_start: false,
                in_brackets: true,
            },
        );
        assert_eq!(out, "\\[x\\]");
    }

    #[test]
    fn destinations_and_titles() {
        let dest = |u: &str, m| {
            let mut o = String::new();
            push_destination(&mut o, u, m);
            o
        };
        assert_eq!(
            dest("http://x/foo bar", Escaping::Turndown),
            "<http://x/foo bar>"
        );
        assert_eq!(dest("http://x?(q)", Escaping::Turndown), "http://x?\\(q\\)");
        assert_eq!(
            dest("https://w/Rust_(lang)", Escaping::Minimal),
            "https://w/Rust_(lang)"
        );
        assert_eq!(dest("https://w/a)b", Escaping::Minimal), "https://w/a\\)b");
        assert_eq!(
            dest("http://x/\x0cy", Escaping::Minimal),
            "<http://x/\x0cy>"
        );
        assert_eq!(
            dest("http://x/\x7fy", Escaping::Minimal),
            "<http://x/\x7fy>"
        );
        assert_eq!(dest("<http://x>", Escaping::Minimal), "\\<http://x>");
        let mut t = String::new();
        push_title(&mut t, "say \"hi\"\n   \n  now");
        assert_eq!(t, " \"say \\\"hi\\\"\nnow\"");
    }
}
