//! The HTML tokenizer: the standard's tokenization states, read over the
//! whole page at once, feeding html5ever's tree builder.
//!
//! html5ever's own tokenizer takes its input in pieces and can stop for a
//! script at any character, so it reads one character at a time from a queue
//! of buffers and copies every name and value a character at a time. Here the
//! page is always whole and scripts never run: each step jumps to the next
//! byte that matters, names and text are taken from the input as slices, and
//! a script's or style's text is found by [`raw_text`] in one pass. The tree
//! builder gets what html5ever's tokenizer would give it, but for text in
//! longer runs and no parse-error tokens (no one reads them): the tests and
//! the page fuzzer hold the two to the same trees.
//!
//! Input has no CR: [`tokenize`] reads CR LF and a lone CR as LF first, as the
//! standard's input stream preprocessing does.

use std::borrow::Cow;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Doctype, Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::{Attribute, LocalName, QualName, ns};

use super::Attr;
use markup5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};

use super::raw_text::{self, RawText, is_space};

/// A tree builder the tokenizer feeds: html5ever's `TokenSink`, which
/// may take text as a slice of the page rather than as a tendril, a copy
/// made only to be copied again into the page.
pub(super) trait Tokens: TokenSink {
    fn text(&self, text: &str) {
        let _ = self.process_token(Token::CharacterTokens(StrTendril::from_slice(text)), 1);
    }

    /// A tag, with its attributes' values as the page keeps them.
    fn tag(&self, tag: RawTag) -> TokenSinkResult<Self::Handle> {
        let attrs = tag.attrs.into_iter();
        let tag = Tag {
            kind: tag.kind,
            name: tag.name,
            self_closing: tag.self_closing,
            attrs: attrs
                .map(|a| Attribute {
                    name: a.name,
                    value: StrTendril::from_slice(&a.value),
                })
                .collect(),
            had_duplicate_attributes: false,
        };
        self.process_token(Token::TagToken(tag), 1)
    }
}

/// A tag as read: html5ever's `Tag`, its attributes in the page's own
/// form (a value made once, not a tendril copied again), each name once.
pub(super) struct RawTag {
    pub kind: TagKind,
    pub name: LocalName,
    pub self_closing: bool,
    pub attrs: Vec<Attr>,
}

/// Tokenize `html` into `sink`, then tell it the input ended.
pub(super) fn tokenize<S: Tokens>(html: &str, sink: &S) {
    let html = without_cr(html);
    let mut t = Tokenizer {
        input: &html,
        pos: 0,
        sink,
        text: Text::None,
        mode: Mode::Data,
        names: Names::new(),
    };
    // A byte order mark is not part of the page.
    if t.input.starts_with('\u{feff}') {
        t.pos = '\u{feff}'.len_utf8();
    }
    t.run();
    t.flush_text();
    let _ = t.emit(Token::EOFToken);
    sink.end();
}

/// CR LF and a lone CR read as LF.
fn without_cr(html: &str) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    let Some(first) = memchr::memchr(b'\r', bytes) else {
        return Cow::Borrowed(html);
    };
    // One pass from CR to CR (two `replace` calls searched for "\r\n" with
    // a general substring search: 3% of a parse on pages written with CRs).
    let mut out = String::with_capacity(html.len());
    let (mut at, mut cr) = (0, Some(first));
    while let Some(i) = cr {
        out.push_str(&html[at..i]);
        out.push('\n');
        at = i + 1 + usize::from(bytes.get(i + 1) == Some(&b'\n'));
        cr = memchr::memchr(b'\r', &bytes[at..]).map(|k| at + k);
    }
    out.push_str(&html[at..]);
    Cow::Owned(out)
}

/// What the tree builder asked the tokenizer to read after the last tag.
enum Mode {
    Data,
    /// Raw text, up to the end tag of the start tag named here.
    Raw(RawKind, LocalName),
    Plaintext,
}

/// Characters read but not yet emitted: a slice of the input while they
/// are one, copied once a character reference or a gap breaks the run.
enum Text {
    None,
    Slice(usize, usize),
    Owned(String),
}

struct Tokenizer<'a, S> {
    input: &'a str,
    pos: usize,
    sink: &'a S,
    text: Text,
    mode: Mode,
    names: Names,
}

/// The names last read, by a hash of their bytes. A page repeats a few dozen
/// tag and attribute names thousands of times, and interning one (a keyed
/// hash into the static table, else a lock on the dynamic one) costs
/// several times what finding it here does.
struct Names(Box<[Option<LocalName>; NAME_SLOTS]>);

const NAME_SLOTS: usize = 256;

impl Names {
    fn new() -> Names {
        Names(Box::new([const { None }; NAME_SLOTS]))
    }

    /// `raw` interned; `raw` is already lowercase and free of NUL.
    fn get(&mut self, raw: &str) -> LocalName {
        let slot = &mut self.0[Self::slot(raw.as_bytes())];
        match slot {
            Some(name) if &**name == raw => name.clone(),
            _ => slot.insert(LocalName::from(raw)).clone(),
        }
    }

    /// Length and the two bytes at each end: names that differ elsewhere
    /// only share a slot (and take turns in it).
    fn slot(b: &[u8]) -> usize {
        let (Some(&first), Some(&last)) = (b.first(), b.last()) else {
            return 0;
        };
        let second = b.get(1).copied().unwrap_or(0);
        let h = u32::from(first)
            ^ (u32::from(second) << 8)
            ^ (u32::from(last) << 16)
            ^ ((b.len() as u32) << 24);
        (h.wrapping_mul(0x9e37_79b1) >> 24) as usize
    }
}

impl<S: Tokens> Tokenizer<'_, S> {
    fn bytes(&self) -> &[u8] {
        self.input.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    fn emit(&self, token: Token) -> TokenSinkResult<S::Handle> {
        self.sink.process_token(token, 1)
    }

    fn run(&mut self) {
        loop {
            match std::mem::replace(&mut self.mode, Mode::Data) {
                Mode::Data => {
                    if !self.data() {
                        return;
                    }
                }
                Mode::Raw(kind, name) => self.raw(kind, &name),
                Mode::Plaintext => {
                    let rest = &self.input[self.pos..];
                    self.push_owned(&raw_text::normalize(rest));
                    self.pos = self.input.len();
                    return;
                }
            }
        }
    }

    // ---- text ------------------------------------------------------------

    fn push_slice(&mut self, start: usize, end: usize) {
        if start == end {
            return;
        }
        match &mut self.text {
            Text::None => self.text = Text::Slice(start, end),
            Text::Slice(_, e) if *e == start => *e = end,
            Text::Slice(s, e) => {
                let mut owned = String::with_capacity(*e - *s + end - start);
                owned.push_str(&self.input[*s..*e]);
                owned.push_str(&self.input[start..end]);
                self.text = Text::Owned(owned);
            }
            Text::Owned(o) => o.push_str(&self.input[start..end]),
        }
    }

    fn push_owned(&mut self, s: &str) {
        match &mut self.text {
            Text::None => self.text = Text::Owned(s.to_owned()),
            Text::Slice(a, b) => {
                let mut owned = String::with_capacity(*b - *a + s.len());
                owned.push_str(&self.input[*a..*b]);
                owned.push_str(s);
                self.text = Text::Owned(owned);
            }
            Text::Owned(o) => o.push_str(s),
        }
    }

    fn flush_text(&mut self) {
        match std::mem::replace(&mut self.text, Text::None) {
            Text::None => {}
            Text::Slice(s, e) => self.sink.text(&self.input[s..e]),
            Text::Owned(o) if o.is_empty() => {}
            Text::Owned(o) => self.sink.text(&o),
        }
    }

    /// The data state, up to and including the next tag or other markup.
    /// False at the end of the input.
    fn data(&mut self) -> bool {
        loop {
            let rest = &self.bytes()[self.pos..];
            let Some(i) = memchr::memchr3(b'<', b'&', 0, rest) else {
                self.push_slice(self.pos, self.input.len());
                self.pos = self.input.len();
                return false;
            };
            let at = self.pos + i;
            self.push_slice(self.pos, at);
            self.pos = at + 1;
            match self.bytes()[at] {
                b'<' => {
                    self.markup();
                    return true;
                }
                b'&' => self.char_ref_in_text(),
                _ => {
                    self.flush_text();
                    let _ = self.emit(Token::NullCharacterToken);
                }
            }
        }
    }

    /// After `&` in text: the character it stands for, or the `&` itself.
    fn char_ref_in_text(&mut self) {
        match char_ref(self.input, self.pos, false) {
            Some((chars, end)) => {
                self.push_owned(chars.as_str(&mut [0; 8]));
                self.pos = end;
            }
            None => self.push_slice(self.pos - 1, self.pos),
        }
    }

    /// After `<` in the data state.
    fn markup(&mut self) {
        match self.peek() {
            Some(b'!') => {
                self.pos += 1;
                self.markup_declaration();
            }
            Some(b'/') => {
                self.pos += 1;
                match self.peek() {
                    Some(b) if b.is_ascii_alphabetic() => self.tag(TagKind::EndTag),
                    // `</>` is nothing at all.
                    Some(b'>') => self.pos += 1,
                    Some(_) => self.bogus_comment(),
                    None => self.push_slice(self.pos - 2, self.pos),
                }
            }
            Some(b) if b.is_ascii_alphabetic() => self.tag(TagKind::StartTag),
            Some(b'?') => self.bogus_comment(),
            // Anything else: the `<` was text.
            _ => self.push_slice(self.pos - 1, self.pos),
        }
    }

    // ---- tags ------------------------------------------------------------

    /// A name from `start` to `end`: ASCII lowercased, NUL replaced.
    fn name(&mut self, start: usize, end: usize) -> LocalName {
        let raw = &self.input[start..end];
        if raw.bytes().any(|b| b.is_ascii_uppercase() || b == 0) {
            LocalName::from(raw.to_ascii_lowercase().replace('\0', "\u{fffd}"))
        } else {
            self.names.get(raw)
        }
    }

    /// The end of a run of bytes none of which is in `stop`, from `from`.
    fn run_until(&self, from: usize, stop: impl Fn(u8) -> bool) -> usize {
        let rest = &self.bytes()[from..];
        from + rest.iter().position(|&b| stop(b)).unwrap_or(rest.len())
    }

    fn skip_spaces(&mut self) {
        self.pos = self.run_until(self.pos, |b| !is_space(b));
    }

    /// A tag whose name starts at the cursor. A tag the input ends inside
    /// is dropped, as the standard says.
    fn tag(&mut self, kind: TagKind) {
        let end = self.run_until(self.pos, |b| is_space(b) || b == b'/' || b == b'>');
        if end == self.input.len() {
            self.pos = end;
            return;
        }
        let mut tag = RawTag {
            kind,
            name: self.name(self.pos, end),
            self_closing: false,
            attrs: Vec::new(),
        };
        self.pos = end;
        loop {
            self.skip_spaces();
            match self.peek() {
                None => return,
                Some(b'>') => {
                    self.pos += 1;
                    break;
                }
                Some(b'/') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(b'>') => {
                            self.pos += 1;
                            tag.self_closing = true;
                            break;
                        }
                        None => return,
                        // A stray `/`: read on as if it were a space.
                        Some(_) => {}
                    }
                }
                Some(_) => {
                    if !self.attribute(&mut tag) {
                        self.pos = self.input.len();
                        return;
                    }
                }
            }
        }
        self.emit_tag(tag);
    }

    /// An attribute whose name starts at the cursor; false if the input
    /// ends inside it.
    fn attribute(&mut self, tag: &mut RawTag) -> bool {
        // The first character is the name's whatever it is (even `=`).
        let first = self.input[self.pos..]
            .chars()
            .next()
            .map_or(1, char::len_utf8);
        let end = self.run_until(self.pos + first, |b| {
            is_space(b) || b == b'/' || b == b'>' || b == b'='
        });
        if end == self.input.len() {
            self.pos = end;
            return false;
        }
        let name = self.name(self.pos, end);
        self.pos = end;
        self.skip_spaces();
        let value = if self.peek() == Some(b'=') {
            self.pos += 1;
            match self.attribute_value() {
                Some(v) => v,
                None => return false,
            }
        } else {
            Box::default()
        };
        // A name again: the first one stands.
        if !tag.attrs.iter().any(|a| a.name.local == name) {
            tag.attrs.push(Attr {
                name: QualName::new(None, ns!(), name),
                value,
            });
        }
        true
    }

    /// After `=`: the value, quoted or not; `None` if the input ends first.
    fn attribute_value(&mut self) -> Option<Box<str>> {
        self.skip_spaces();
        match self.peek()? {
            q @ (b'"' | b'\'') => {
                self.pos += 1;
                let start = self.pos;
                let end = start + memchr::memchr(q, &self.bytes()[start..])?;
                self.pos = end + 1;
                Some(self.value(start, end))
            }
            // `a=>`: an empty value; the `>` ends the tag.
            b'>' => Some(Box::default()),
            _ => {
                let start = self.pos;
                let end = self.run_until(start, |b| is_space(b) || b == b'>');
                if end == self.input.len() {
                    return None;
                }
                self.pos = end;
                Some(self.value(start, end))
            }
        }
    }

    /// An attribute value's text from `start` to `end`, with character
    /// references read and NUL replaced.
    fn value(&self, start: usize, end: usize) -> Box<str> {
        let raw = &self.input[start..end];
        if memchr::memchr2(b'&', 0, raw.as_bytes()).is_none() {
            return raw.into();
        }
        decode(self.input, start, end, true).into_boxed_str()
    }

    fn emit_tag(&mut self, tag: RawTag) {
        self.flush_text();
        // Raw text follows start tags only; it ends at the end tag of this name.
        let name = (tag.kind == TagKind::StartTag).then(|| tag.name.clone());
        self.mode = match (self.sink.tag(tag), name) {
            (TokenSinkResult::RawData(kind), Some(name)) => Mode::Raw(kind, name),
            (TokenSinkResult::Plaintext, _) => Mode::Plaintext,
            _ => Mode::Data,
        };
    }

    /// The text of a script, a style, a title…, up to the end tag that
    /// closes it, which is then read as a tag.
    fn raw(&mut self, kind: RawKind, name: &str) {
        let rest = &self.input[self.pos..];
        let how = match kind {
            RawKind::ScriptData | RawKind::ScriptDataEscaped(_) => RawText::Script,
            RawKind::Rawtext | RawKind::Rcdata => RawText::Rawtext,
        };
        let len = raw_text::text_end(rest.as_bytes(), how, name).unwrap_or(rest.len());
        match kind {
            RawKind::Rcdata => {
                let text = decode(self.input, self.pos, self.pos + len, false);
                self.push_owned(&text);
            }
            // A script or style as it is, unless a NUL must be replaced.
            _ if memchr::memchr(0, &rest.as_bytes()[..len]).is_none() => {
                self.push_slice(self.pos, self.pos + len);
            }
            _ => self.push_owned(&raw_text::normalize(&rest[..len])),
        }
        self.pos += len;
        if self.pos < self.input.len() {
            // At `</` and the name.
            self.pos += 2;
            self.tag(TagKind::EndTag);
        }
    }

    // ---- comments, doctypes, CDATA -----------------------------------------

    /// After `<!`.
    fn markup_declaration(&mut self) {
        // What is open decides whether CDATA is read: let the text before
        // reach the tree builder first, as it would have.
        self.flush_text();
        let rest = &self.bytes()[self.pos..];
        if rest.starts_with(b"--") {
            self.pos += 2;
            self.comment();
        } else if rest.len() >= 7 && rest[..7].eq_ignore_ascii_case(b"doctype") {
            self.pos += 7;
            self.doctype();
        } else if rest.starts_with(b"[CDATA[")
            && self
                .sink
                .adjusted_current_node_present_but_not_in_html_namespace()
        {
            self.pos += 7;
            self.cdata();
        } else {
            self.bogus_comment();
        }
    }

    fn emit_comment(&mut self, text: &str) {
        self.flush_text();
        let _ = self.emit(Token::CommentToken(StrTendril::from_slice(text)));
    }

    /// `<?…>`, `<!…>`, `</…>` that are not markup: a comment up to `>`.
    fn bogus_comment(&mut self) {
        let start = self.pos;
        let end =
            memchr::memchr(b'>', &self.bytes()[start..]).map_or(self.input.len(), |i| start + i);
        self.pos = (end + 1).min(self.input.len());
        let text = self.input[start..end].replace('\0', "\u{fffd}");
        self.emit_comment(&text);
    }

    /// After `<!--`: the comment states, ended by `-->`, `--!>`, a `>` right
    /// after the opening, or the end of the input.
    fn comment(&mut self) {
        #[derive(Clone, Copy)]
        enum State {
            Start,
            StartDash,
            Body,
            EndDash,
            End,
            EndBang,
        }
        let mut data = String::new();
        let mut state = State::Start;
        let bytes = self.input.as_bytes();
        let mut i = self.pos;
        loop {
            if let State::Body = state {
                let run = memchr::memchr2(b'-', 0, &bytes[i..]).unwrap_or(bytes.len() - i);
                data.push_str(&self.input[i..i + run]);
                i += run;
            }
            let Some(c) = self.input[i..].chars().next() else {
                break;
            };
            // Each arm consumes `c` or leaves it to the state it moves to.
            let mut consumed = true;
            state = match (state, c) {
                (State::Start | State::StartDash | State::End | State::EndBang, '>') => {
                    i += 1;
                    break;
                }
                (State::Start, '-') => State::StartDash,
                (State::StartDash, '-') | (State::EndDash, '-') => State::End,
                (State::Start, _) => {
                    consumed = false;
                    State::Body
                }
                (State::StartDash | State::EndDash, _) => {
                    data.push('-');
                    consumed = false;
                    State::Body
                }
                (State::Body, '-') => State::EndDash,
                (State::Body, _) => {
                    // NUL: the run above stops only at `-` and NUL.
                    data.push('\u{fffd}');
                    State::Body
                }
                (State::End, '!') => State::EndBang,
                (State::End, '-') => {
                    data.push('-');
                    State::End
                }
                (State::End, _) => {
                    data.push_str("--");
                    consumed = false;
                    State::Body
                }
                (State::EndBang, '-') => {
                    data.push_str("--!");
                    State::EndDash
                }
                (State::EndBang, _) => {
                    data.push_str("--!");
                    consumed = false;
                    State::Body
                }
            };
            if consumed {
                i += c.len_utf8();
            }
        }
        self.pos = i;
        self.emit_comment(&data);
    }

    /// After `<!DOCTYPE`.
    fn doctype(&mut self) {
        let (doctype, end) = doctype(self.input, self.pos);
        self.pos = end;
        self.flush_text();
        let _ = self.emit(Token::DoctypeToken(doctype));
    }

    /// After `<![CDATA[` in foreign content: text up to `]]>`.
    fn cdata(&mut self) {
        let rest = &self.input[self.pos..];
        let len = memchr::memmem::find(rest.as_bytes(), b"]]>").unwrap_or(rest.len());
        self.pos = (self.pos + len + 3).min(self.input.len());
        for (k, piece) in rest[..len].split('\0').enumerate() {
            if k > 0 {
                self.flush_text();
                let _ = self.emit(Token::NullCharacterToken);
            }
            self.push_owned(piece);
        }
    }
}

// ---- character references ------------------------------------------------

/// One or two characters a reference stands for.
struct RefChars(char, Option<char>);

impl RefChars {
    fn as_str<'b>(&self, buf: &'b mut [u8; 8]) -> &'b str {
        let n = self.0.encode_utf8(&mut buf[..4]).len();
        let m = self
            .1
            .map_or(0, |c| c.encode_utf8(&mut buf[n..n + 4]).len());
        std::str::from_utf8(&buf[..n + m]).unwrap_or_default()
    }
}

/// The character reference whose `&` is just before `at`: what it stands
/// for and where it ends, or `None` when the `&` is only an ampersand.
fn char_ref(input: &str, at: usize, in_attribute: bool) -> Option<(RefChars, usize)> {
    let bytes = input.as_bytes();
    match *bytes.get(at)? {
        b'#' => numeric_ref(bytes, at + 1),
        b if b.is_ascii_alphanumeric() => named_ref(input, at, in_attribute),
        _ => None,
    }
}

fn numeric_ref(bytes: &[u8], at: usize) -> Option<(RefChars, usize)> {
    let (base, start) = match bytes.get(at) {
        Some(b'x' | b'X') => (16, at + 1),
        _ => (10, at),
    };
    let mut value: u32 = 0;
    let mut too_big = false;
    let mut end = start;
    while let Some(d) = bytes.get(end).and_then(|&b| (b as char).to_digit(base)) {
        value = value.wrapping_mul(base);
        too_big |= value > 0x10FFFF;
        value = value.wrapping_add(d);
        end += 1;
    }
    if end == start {
        return None;
    }
    if bytes.get(end) == Some(&b';') {
        end += 1;
    }
    let c = match value {
        _ if too_big || value > 0x10FFFF => '\u{fffd}',
        0 | 0xD800..=0xDFFF => '\u{fffd}',
        0x80..=0x9F => C1_REPLACEMENTS[(value - 0x80) as usize]
            .unwrap_or_else(|| char::from_u32(value).unwrap_or('\u{fffd}')),
        n => char::from_u32(n).unwrap_or('\u{fffd}'),
    };
    Some((RefChars(c, None), end))
}

/// The longest entity name at `at`. Without its `;`, in an attribute value
/// and followed by `=` or a letter or digit, it is not read (`?a=1&b=2`).
fn named_ref(input: &str, at: usize, in_attribute: bool) -> Option<(RefChars, usize)> {
    let mut best = None;
    let mut end = at;
    // The table holds every prefix of every name, so the walk stops at
    // the first character no name continues with.
    for c in input[at..].chars() {
        let next = end + c.len_utf8();
        match NAMED_ENTITIES.get(&input[at..next]) {
            Some(&(c1, c2)) => {
                if c1 != 0 {
                    best = Some((c1, c2, next));
                }
                end = next;
            }
            None => break,
        }
    }
    let (c1, c2, end) = best?;
    let bytes = input.as_bytes();
    if bytes[end - 1] != b';'
        && in_attribute
        && bytes
            .get(end)
            .is_some_and(|&b| b == b'=' || b.is_ascii_alphanumeric())
    {
        return None;
    }
    let first = char::from_u32(c1)?;
    let second = (c2 != 0).then(|| char::from_u32(c2)).flatten();
    Some((RefChars(first, second), end))
}

/// `input[start..end]` with its character references read and NUL
/// replaced: an attribute value's or RCDATA's text.
fn decode(input: &str, start: usize, end: usize, in_attribute: bool) -> String {
    let mut out = String::with_capacity(end - start);
    let mut at = start;
    let slice = &input.as_bytes()[..end];
    while let Some(i) = memchr::memchr2(b'&', 0, &slice[at..]) {
        out.push_str(&input[at..at + i]);
        at += i + 1;
        if slice[at - 1] == 0 {
            out.push('\u{fffd}');
            continue;
        }
        // A reference never runs past the end of its text: the text ends
        // at a quote, a space, `>` or `<`, none of which a name holds.
        match char_ref(&input[..end], at, in_attribute) {
            Some((chars, after)) => {
                out.push_str(chars.as_str(&mut [0; 8]));
                at = after;
            }
            None => out.push('&'),
        }
    }
    out.push_str(&input[at..end]);
    out
}

// ---- doctype --------------------------------------------------------------

/// The DOCTYPE states from after `<!DOCTYPE`: the token, and where it ends.
fn doctype(input: &str, at: usize) -> (Doctype, usize) {
    #[derive(Clone, Copy, PartialEq)]
    enum Id {
        Public,
        System,
    }
    #[derive(Clone, Copy)]
    enum State {
        Start,
        BeforeName,
        Name,
        AfterName,
        AfterKeyword(Id),
        BeforeId(Id),
        Quoted(Id, char),
        AfterId(Id),
        Between,
        Bogus,
    }
    let mut d = Doctype::default();
    let mut state = State::Start;
    let mut i = at;
    fn id(d: &mut Doctype, which: Id) -> &mut Option<StrTendril> {
        match which {
            Id::Public => &mut d.public_id,
            Id::System => &mut d.system_id,
        }
    }
    loop {
        if let State::AfterName = state {
            let rest = &input.as_bytes()[i..];
            for (word, which) in [(b"public", Id::Public), (b"system", Id::System)] {
                if rest.len() >= 6 && rest[..6].eq_ignore_ascii_case(word) {
                    i += 6;
                    state = State::AfterKeyword(which);
                    break;
                }
            }
        }
        let Some(c) = input[i..].chars().next() else {
            // The input ended inside the DOCTYPE.
            if !matches!(state, State::Bogus) {
                d.force_quirks = true;
            }
            return (d, i);
        };
        let space = matches!(c, '\t' | '\n' | '\x0c' | ' ');
        let c_or_fffd = if c == '\0' { '\u{fffd}' } else { c };
        let mut consumed = true;
        state = match (state, c) {
            (State::Start, _) if space => State::BeforeName,
            (State::Start, _) => {
                consumed = false;
                State::BeforeName
            }
            (State::BeforeName | State::AfterName | State::BeforeId(_), _) if space => state,
            (State::AfterId(Id::System) | State::Between, _) if space => state,
            (State::BeforeName, '>') => {
                d.force_quirks = true;
                return (d, i + 1);
            }
            (State::BeforeName, _) => {
                d.name = Some(StrTendril::from_char(c_or_fffd.to_ascii_lowercase()));
                State::Name
            }
            (State::Name, _) if space => State::AfterName,
            (State::Name | State::AfterName | State::Between | State::Bogus, '>') => {
                return (d, i + 1);
            }
            (State::AfterId(_), '>') => return (d, i + 1),
            (State::Name, _) => {
                if let Some(name) = d.name.as_mut() {
                    name.push_char(c_or_fffd.to_ascii_lowercase());
                }
                State::Name
            }
            (State::AfterKeyword(which), _) if space => State::BeforeId(which),
            (State::AfterKeyword(which) | State::BeforeId(which), q @ ('"' | '\'')) => {
                *id(&mut d, which) = Some(StrTendril::new());
                State::Quoted(which, q)
            }
            (State::AfterId(Id::Public), _) if space => State::Between,
            (State::AfterId(Id::Public) | State::Between, q @ ('"' | '\'')) => {
                d.system_id = Some(StrTendril::new());
                State::Quoted(Id::System, q)
            }
            (State::AfterKeyword(_) | State::BeforeId(_) | State::Quoted(..), '>') => {
                d.force_quirks = true;
                return (d, i + 1);
            }
            (State::Quoted(which, q), _) if c == q => State::AfterId(which),
            (State::Quoted(which, q), _) => {
                if let Some(s) = id(&mut d, which) {
                    s.push_char(c_or_fffd);
                }
                State::Quoted(which, q)
            }
            (State::AfterId(Id::System), _) | (State::Bogus, _) => State::Bogus,
            (
                State::AfterName
                | State::AfterKeyword(_)
                | State::BeforeId(_)
                | State::AfterId(_)
                | State::Between,
                _,
            ) => {
                d.force_quirks = true;
                consumed = false;
                State::Bogus
            }
        };
        if consumed {
            i += c.len_utf8();
        }
    }
}

#[cfg(test)]
mod tests;
