//! Where a script's or a raw-text element's text ends, found without the
//! HTML tokenizer.
//!
//! Script and style bodies are about half of a typical page's bytes, and
//! their text is never markup. [`text_end`] finds where one ends by the
//! tokenizer's own rules (the HTML standard's script data states with their
//! `<!--` escapes, or the first matching end tag) in one pass over the bytes.

/// How the tokenizer reads an element's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RawText {
    /// `<script>`: the script data states.
    Script,
    /// `<style>`, `<xmp>`, `<iframe>`, `<noembed>`, `<noframes>`,
    /// `<noscript>`: RAWTEXT, ended by the first end tag of its own name.
    Rawtext,
}

/// The offset of the `<` of the end tag that closes an element named `name`
/// whose text starts `input`; `None` when the input ends first (then all of
/// it is text).
pub(super) fn text_end(input: &[u8], kind: RawText, name: &str) -> Option<usize> {
    match kind {
        RawText::Rawtext => rawtext_end(input, name.as_bytes()),
        RawText::Script => script_end(input),
    }
}

/// The text as the tokenizer emits it: CR LF and a lone CR become LF, NUL
/// becomes U+FFFD.
pub(super) fn normalize(raw: &str) -> String {
    if memchr::memchr2(b'\r', 0, raw.as_bytes()).is_none() {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                out.push('\n');
            }
            '\0' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Whitespace as the tokenizer sees it (a CR is read as LF).
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// The length of the run of ASCII letters at `at`.
fn letters(input: &[u8], at: usize) -> usize {
    input.get(at..).map_or(0, |s| {
        s.iter().take_while(|b| b.is_ascii_alphabetic()).count()
    })
}

/// Whether `<` at `lt` opens an end tag that closes `name`: `</` + the name
/// in any case, then whitespace, `/` or `>` (the tokenizer's "appropriate
/// end tag"; at the end of input it is text).
fn closes(input: &[u8], lt: usize, name: &[u8]) -> bool {
    let start = lt + 2;
    input.get(lt + 1) == Some(&b'/')
        && letters(input, start) == name.len()
        && input[start..start + name.len()].eq_ignore_ascii_case(name)
        && input
            .get(start + name.len())
            .is_some_and(|&b| is_space(b) || b == b'/' || b == b'>')
}

fn rawtext_end(input: &[u8], name: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        let lt = at + memchr::memchr(b'<', &input[at..])?;
        if closes(input, lt, name) {
            return Some(lt);
        }
        at = lt + 1;
    }
}

/// The script data states between `<script>` and its end.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Data,
    Escaped,
    EscapedDash,
    EscapedDashDash,
    DoubleEscaped,
    DoubleEscapedDash,
    DoubleEscapedDashDash,
}

/// A run of letters at `at` ended by whitespace, `/` or `>`: whether it
/// spells `script`, and the offset after that ending byte. Ended by anything
/// else, `Err` with that byte's offset: the tokenizer reads it again in the
/// state it came from.
fn tag_word(input: &[u8], at: usize) -> Result<(bool, usize), usize> {
    let n = letters(input, at);
    match input.get(at + n) {
        Some(&b) if is_space(b) || b == b'/' || b == b'>' => Ok((
            input[at..at + n].eq_ignore_ascii_case(b"script"),
            at + n + 1,
        )),
        _ => Err(at + n),
    }
}

fn script_end(input: &[u8]) -> Option<usize> {
    use State::*;
    let mut state = Data;
    let mut i = 0;
    loop {
        // Jump to the next byte that can change the state.
        i += match state {
            Data => memchr::memchr(b'<', input.get(i..)?)?,
            Escaped | DoubleEscaped => memchr::memchr2(b'-', b'<', input.get(i..)?)?,
            _ => 0,
        };
        let b = *input.get(i)?;
        match (state, b) {
            (Data, _) => {
                if closes(input, i, b"script") {
                    return Some(i);
                }
                if input[i + 1..].starts_with(b"!--") {
                    // `<!--`: escaped, as if two dashes had just been read.
                    state = EscapedDashDash;
                    i += 4;
                } else {
                    i += 1;
                }
            }
            (Escaped | EscapedDash | EscapedDashDash, b'<') => {
                if closes(input, i, b"script") {
                    return Some(i);
                }
                i += 1;
                state = Escaped;
                if input.get(i).is_some_and(u8::is_ascii_alphabetic) {
                    // `<script` inside the escape: double escaped.
                    match tag_word(input, i) {
                        Ok((true, next)) => (state, i) = (DoubleEscaped, next),
                        Ok((false, next)) => i = next,
                        Err(next) => i = next,
                    }
                }
            }
            (DoubleEscaped | DoubleEscapedDash | DoubleEscapedDashDash, b'<') => {
                i += 1;
                state = DoubleEscaped;
                if input.get(i) == Some(&b'/') {
                    i += 1;
                    match tag_word(input, i) {
                        Ok((true, next)) => (state, i) = (Escaped, next),
                        Ok((false, next)) => i = next,
                        Err(next) => i = next,
                    }
                }
            }
            (Escaped, b'-') => (state, i) = (EscapedDash, i + 1),
            (EscapedDash | EscapedDashDash, b'-') => (state, i) = (EscapedDashDash, i + 1),
            (DoubleEscaped, b'-') => (state, i) = (DoubleEscapedDash, i + 1),
            (DoubleEscapedDash | DoubleEscapedDashDash, b'-') => {
                (state, i) = (DoubleEscapedDashDash, i + 1)
            }
            (EscapedDashDash | DoubleEscapedDashDash, b'>') => (state, i) = (Data, i + 1),
            (EscapedDash | EscapedDashDash, _) => (state, i) = (Escaped, i + 1),
            (DoubleEscapedDash | DoubleEscapedDashDash, _) => (state, i) = (DoubleEscaped, i + 1),
            // memchr2 stopped on '-' or '<', both handled above.
            (Escaped | DoubleEscaped, _) => i += 1,
        }
    }
}
