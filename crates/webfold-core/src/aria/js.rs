//! JavaScript string semantics that Playwright's output depends on.
//!
//! Byte-identical output needs JS's idea of whitespace (`\s`, `trim`), of
//! `Number(str)` and of UTF-16 lengths, which differ from Rust's in small ways
//! (U+FEFF is JS whitespace, U+0085 is not; `Number("")` is 0).

/// A character matched by JS `\s` (and removed by `String.prototype.trim`).
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `s.trim()`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// Playwright's `normalizeWhiteSpace`: drop U+200B and U+00AD, trim, and
/// collapse every `\s+` run to one space.
pub fn normalize_white_space(s: &str) -> String {
    // The loop of `normalized_chars`, kept apart: this one runs on every
    // text of a snapshot, and the iterator's state costs a third more.
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for c in s.chars() {
        if c == '\u{200b}' || c == '\u{ad}' {
            continue;
        }
        if is_js_space(c) {
            pending_space = true;
            continue;
        }
        if pending_space && !out.is_empty() {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
    }
    out
}

/// [`normalize_white_space`] a character at a time: compared without
/// building the string.
pub fn normalized_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    let mut chars = s.chars().filter(|&c| c != '\u{200b}' && c != '\u{ad}');
    let mut started = false;
    let mut held = None;
    std::iter::from_fn(move || {
        if let Some(c) = held.take() {
            return Some(c);
        }
        let mut space = false;
        for c in chars.by_ref() {
            if is_js_space(c) {
                space = true;
                continue;
            }
            if space && started {
                held = Some(c);
                return Some(' ');
            }
            started = true;
            return Some(c);
        }
        None
    })
}

/// accname's `asFlatString`: like [`normalize_white_space`] but NBSP survives
/// inside the text (it only goes at the ends, through `trim`).
pub fn as_flat_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_space = false;
    for c in s.chars() {
        if c == '\u{200b}' || c == '\u{ad}' {
            continue;
        }
        if c != '\u{a0}' && is_js_space(c) {
            if !in_space {
                out.push(' ');
                in_space = true;
            }
            continue;
        }
        in_space = false;
        out.push(c);
    }
    js_trim(&out).to_string()
}

/// `Number(s)` for a string: `None` where JS gives `NaN`.
pub fn js_number(s: &str) -> Option<f64> {
    let t = js_trim(s);
    if t.is_empty() {
        return Some(0.0);
    }
    match t {
        "Infinity" | "+Infinity" => return Some(f64::INFINITY),
        "-Infinity" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    let radix = |prefix: &[&str], radix: u32| {
        prefix.iter().find_map(|p| t.strip_prefix(p)).map(|digits| {
            if digits.is_empty() {
                return None;
            }
            u64::from_str_radix(digits, radix).ok().map(|v| v as f64)
        })
    };
    if let Some(v) = radix(&["0x", "0X"], 16)
        .or_else(|| radix(&["0o", "0O"], 8))
        .or_else(|| radix(&["0b", "0B"], 2))
    {
        return v;
    }
    // Rust accepts words JS rejects ("inf", "nan", "infinity"): only digits,
    // signs, dots and exponents may reach the float parser.
    if !t
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    t.parse::<f64>().ok()
}

/// `str.length`: UTF-16 code units.
pub fn js_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_follows_js() {
        assert_eq!(js_number(""), Some(0.0));
        assert_eq!(js_number(" 42 "), Some(42.0));
        assert_eq!(js_number("0x1f"), Some(31.0));
        assert_eq!(js_number("1e3"), Some(1000.0));
        assert_eq!(js_number(".5"), Some(0.5));
        assert_eq!(js_number("inf"), None);
        assert_eq!(js_number("nan"), None);
        assert_eq!(js_number("1_0"), None);
        assert_eq!(js_number("Infinity"), Some(f64::INFINITY));
    }

    #[test]
    fn whitespace_follows_js() {
        assert_eq!(normalize_white_space(" a \u{a0} b\u{200b}c "), "a bc");
        assert_eq!(as_flat_string(" a\u{a0}b  c\u{ad} "), "a\u{a0}b c");
        assert_eq!(js_trim("\u{feff} x \u{85}"), "x \u{85}");
    }

    #[test]
    fn whitespace_normalized_alike_a_character_at_a_time() {
        for s in [
            "",
            "  ",
            " a \u{a0} b\u{200b}c ",
            "\u{200b} \u{ad}x\n\ty  ",
            "a\u{200b} \u{200b}b",
            "\u{ad}",
            " é  ß\u{3000}z",
        ] {
            let streamed: String = normalized_chars(s).collect();
            assert_eq!(streamed, normalize_white_space(s), "{s:?}");
        }
    }
}
