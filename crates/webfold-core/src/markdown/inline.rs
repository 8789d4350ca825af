//! Inline rules: flanking whitespace, emphasis, code spans, links, images.

use std::borrow::Cow;
use std::hash::{BuildHasher, Hash};

use foldhash::fast::FixedState;

use crate::page::{ElementData, NodeData, NodeId};

use super::escape::{self, TextContext};
use super::options::{Escaping, LinkReferenceStyle, LinkStyle};
use super::prepass::{DROPPED, IN_PRE, REMOVED, TRIM_LEAD, TRIM_TRAIL};
use super::tags::{self, js_space};
use super::urls;
use super::walk::{Frame, Kind, Writer};

/// How many nodes an edge scan looks at before giving up. Pages nest inline
/// elements thousands deep; an unbounded scan per element would be quadratic.
const EDGE_SCAN_NODES: usize = 64;

fn ascii_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Calls `f` on the characters of a text node as collapsed (first to last, or
/// last to first); stops when `f` returns false. Returns whether it ran to the end.
fn each_collapsed(raw: &str, flags: u8, reverse: bool, f: impl FnMut(char) -> bool) -> bool {
    if flags & IN_PRE != 0 {
        return if reverse {
            raw.chars().rev().all(f)
        } else {
            raw.chars().all(f)
        };
    }
    let (trim_first, trim_last) = if reverse {
        (flags & TRIM_TRAIL != 0, flags & TRIM_LEAD != 0)
    } else {
        (flags & TRIM_LEAD != 0, flags & TRIM_TRAIL != 0)
    };
    if reverse {
        collapse_chars(raw.chars().rev(), trim_first, trim_last, f)
    } else {
        collapse_chars(raw.chars(), trim_first, trim_last, f)
    }
}

fn collapse_chars(
    mut chars: impl Iterator<Item = char>,
    trim_first: bool,
    trim_last: bool,
    mut f: impl FnMut(char) -> bool,
) -> bool {
    let is_ws = |c: char| c.is_ascii() && tags::collapsible(c as u8);
    let mut first = true;
    let mut pending = chars.next();
    while let Some(c) = pending {
        if is_ws(c) {
            let mut next = chars.next();
            while next.is_some_and(is_ws) {
                next = chars.next();
            }
            let dropped = (first && trim_first) || (next.is_none() && trim_last);
            if !dropped && !f(' ') {
                return false;
            }
            pending = next;
        } else {
            if !f(c) {
                return false;
            }
            pending = chars.next();
        }
        first = false;
    }
    true
}

fn shorten_owned(url: Cow<'_, str>) -> Cow<'_, str> {
    match urls::shorten_data_uri(&url) {
        Cow::Owned(short) => Cow::Owned(short),
        Cow::Borrowed(_) => url,
    }
}

impl<'a> Writer<'a> {
    /// The topmost node of the dropped subtree `id` is in.
    fn dropped_root(&self, mut id: NodeId) -> NodeId {
        while let Some(p) = self.page.parent(id) {
            if !self.pre.has(p, DROPPED) {
                break;
            }
            id = p;
        }
        id
    }

    /// Visits the text nodes of `id`'s subtree (or `id` itself) in order or in
    /// reverse, with their flags, until `f` returns false or the scan limit is hit.
    /// Returns false if it stopped early.
    fn each_text(&self, id: NodeId, reverse: bool, mut f: impl FnMut(&str, u8) -> bool) -> bool {
        let page = self.page;
        if let Some(t) = page.text(id) {
            let fl = self.pre.get(id);
            return fl & (REMOVED | DROPPED) != 0 || f(t, fl);
        }
        let first = id.get() + 1;
        let end = page.node(id).subtree_end.get();
        let mut scanned = 0;
        let mut j = if reverse { end } else { first };
        loop {
            let n = if reverse {
                if j <= first {
                    return true;
                }
                j -= 1;
                NodeId::new(j)
            } else {
                if j >= end {
                    return true;
                }
                NodeId::new(j)
            };
            scanned += 1;
            if scanned > EDGE_SCAN_NODES {
                return false;
            }
            let fl = self.pre.get(n);
            if fl & DROPPED != 0 {
                j = if reverse {
                    self.dropped_root(n).get()
                } else {
                    page.node(n).subtree_end.get()
                };
                continue;
            }
            if !reverse {
                j += 1;
            }
            if fl & REMOVED == 0
                && let Some(t) = page.text(n)
                && !f(t, fl)
            {
                return false;
            }
        }
    }

    /// First (or last) character of a node's collapsed text content.
    fn edge_char(&self, id: NodeId, from_end: bool) -> Option<char> {
        let mut found = None;
        self.each_text(id, from_end, |t, fl| {
            each_collapsed(t, fl, from_end, |c| {
                found = Some(c);
                false
            });
            found.is_none()
        });
        found
    }

    /// turndown's `isFlankedByWhitespace`: the sibling on that side ends (or
    /// starts) with a space.
    fn flanked(&self, id: NodeId, left: bool) -> bool {
        let sib = if left {
            self.prev_kept_sibling(id)
        } else {
            self.next_kept_sibling(id)
        };
        let Some(sib) = sib else { return false };
        if let Some(e) = self.page.element(sib) {
            let tag = e.local_name();
            if (self.opts.preformatted_code && tag == "code") || tags::is_block(tag) {
                return false;
            }
        }
        self.edge_char(sib, left) == Some(' ')
    }

    /// The collapsed whitespace at one edge of `id`'s text (the end when
    /// `rev`, in reverse order), how many of its first characters are ASCII
    /// whitespace, whether text was reached, and whether the walk completed.
    fn edge_space(&self, id: NodeId, rev: bool) -> (Vec<char>, usize, bool, bool) {
        let mut chars = Vec::new();
        let mut ascii = 0;
        let mut ascii_run = true;
        let mut found = false;
        let complete = self.each_text(id, rev, |t, fl| {
            each_collapsed(t, fl, rev, |c| {
                if !js_space(c) {
                    found = true;
                    return false;
                }
                chars.push(c);
                if ascii_run && ascii_ws(c) {
                    ascii += 1;
                } else {
                    ascii_run = false;
                }
                true
            });
            !found
        });
        (chars, ascii, found, complete)
    }

    /// turndown's `flankingWhitespace`: the whitespace at the edges of an inline
    /// element's text, moved outside its delimiters. ASCII whitespace is dropped
    /// where the neighbour already has a space.
    pub(super) fn flanks(&self, id: NodeId) -> (String, String) {
        let (lead, lead_ascii, seen_text, complete) = self.edge_space(id, false);
        let mut lead: String = lead.into_iter().collect();
        let mut trail = String::new();
        let mut trail_ascii = 0;
        if seen_text || !complete {
            let (rev, ascii, _, _) = self.edge_space(id, true);
            trail_ascii = ascii;
            trail.extend(rev.iter().rev());
        }
        if lead_ascii > 0 && self.flanked(id, true) {
            lead.drain(..lead_ascii);
        }
        if trail_ascii > 0 && self.flanked(id, false) {
            trail.truncate(trail.len() - trail_ascii);
        }
        (lead, trail)
    }

    fn no_flanks(&self, id: NodeId, tag_is_code: bool) -> bool {
        id == self.root || (self.opts.preformatted_code && (tag_is_code || self.code_depth > 0))
    }

    /// Opens an inline element: leading flank, `delim`, then its content.
    pub(super) fn inline_open(&mut self, id: NodeId, kind: Kind<'a>, delim: &str) {
        let (lead, trail) = if self.no_flanks(id, matches!(kind, Kind::Code)) {
            (String::new(), String::new())
        } else {
            self.flanks(id)
        };
        self.join(0);
        let start = self.out.len();
        self.emit(&lead);
        let lead_end = self.out.len();
        self.emit(delim);
        let barrier = !matches!(kind, Kind::Inline);
        let trim = !lead.is_empty() || !trail.is_empty();
        let frame = self.push(id, kind, start, lead_end);
        frame.trail = trail;
        frame.trim = trim;
        if barrier {
            self.barrier(trim.then_some(true));
        } else if trim {
            self.strip_next_space();
        }
    }

    pub(super) fn link_open(&mut self, id: NodeId, e: &'a ElementData) {
        let href = e.attr("href").unwrap_or("");
        let compact = self.opts.compact;
        let script = href
            .trim_start()
            .get(..11)
            .is_some_and(|s| s.eq_ignore_ascii_case("javascript:"));
        if href.is_empty() || (compact && script) {
            self.inline_open(id, Kind::Inline, "");
            return;
        }
        let mut url = urls::resolve(href, self.base.as_ref());
        if !self.opts.keep_data_uris {
            url = shorten_owned(url);
        }
        let title = if compact { None } else { e.attr("title") };
        let (lead, trail) = if self.no_flanks(id, false) {
            (String::new(), String::new())
        } else {
            self.flanks(id)
        };
        self.join(0);
        let start = self.out.len();
        self.emit(&lead);
        let lead_end = self.out.len();
        if compact
            && self.opts.escaping == Escaping::Minimal
            && self.out.ends_with('!')
            && !self.out.ends_with("\\!")
        {
            // `!` + `[text](url)` would read as an image.
            self.out.pop();
            self.out.push_str("\\!");
        }
        self.link_has_text = compact && self.has_words(id);
        self.link_beside_twin = compact && !self.link_has_text && self.beside_twin(id, &url);
        self.emit("[");
        let trim = !lead.is_empty() || !trail.is_empty();
        let frame = self.push(id, Kind::Link { href: url, title }, start, lead_end);
        frame.trail = trail;
        frame.trim = trim;
        self.barrier(trim.then_some(true));
        self.bracket_depth += 1;
        if compact {
            // Link text must stay on one line: card links wrap headings and paragraphs.
            self.flat_depth += 1;
        }
    }

    /// Whether link `id` (to `url`, no words of its own) has a twin: a
    /// link to the same address with words, printed just before it or in
    /// the same small card (a picture beside its title). Called before the
    /// link's `[` is printed.
    fn beside_twin(&self, id: NodeId, url: &str) -> bool {
        let key = key_of(url);
        let after_named = self.last_named_link.is_some_and(|(k, end)| {
            k == key
                && self.out.get(end..).is_some_and(|gap| {
                    gap.chars()
                        .all(|c| c.is_whitespace() || "-*+|>#.0123456789".contains(c))
                })
        });
        after_named || self.twin_in_card(id, url)
    }

    /// A link with words to `url` near link `id`: under the widest of its
    /// closest ancestors that is still a card's size, not a page's (the
    /// narrower ones lie within it, so it alone is looked through).
    fn twin_in_card(&self, id: NodeId, url: &str) -> bool {
        let page = self.page;
        let card = std::iter::successors(page.parent(id), |&c| page.parent(c))
            .take(CARD_DEPTH)
            .take_while(|&c| {
                c != self.root
                    && page.is_element(c)
                    && page.node(c).subtree_end.get() - c.get() <= CARD_NODES
            })
            .last();
        let Some(card) = card else { return false };
        (card.get() + 1..page.node(card).subtree_end.get())
            .map(NodeId::new)
            .any(|n| {
                n != id
                    && page.element(n).is_some_and(|e| {
                        e.local_name() == "a"
                            && e.attr("href")
                                .is_some_and(|h| urls::resolve(h, self.base.as_ref()) == url)
                    })
                    && self.has_words(n)
            })
    }

    /// Whether text printed under `id` says something.
    fn has_words(&self, id: NodeId) -> bool {
        self.page
            .descendants(id)
            .any(|n| match &self.page.node(n).data {
                NodeData::Text(t) => {
                    self.pre.get(n) & (DROPPED | REMOVED) == 0 && !t.trim().is_empty()
                }
                _ => false,
            })
    }

    pub(super) fn inline_exit(&mut self, frame: Frame<'a>) {
        if self.opts.compact && !matches!(frame.kind, Kind::Code) {
            // A closing delimiter after a break or a space would not close.
            self.drop_final_break(frame.content);
            self.trim_end(frame.content);
        } else if frame.trim {
            self.trim_end(frame.content);
        }
        let content = frame.content.min(self.out.len());
        let blank = self.out[content..].trim_matches(js_space).is_empty();
        match &frame.kind {
            Kind::Emphasis { delim } => {
                if blank {
                    self.cut(frame.lead_end);
                } else {
                    self.out.push_str(delim);
                }
            }
            Kind::Code => {
                self.code_depth -= 1;
                if content == self.out.len() {
                    self.cut(frame.lead_end);
                } else {
                    self.code_span_exit(frame.lead_end, content);
                }
            }
            Kind::Link { href, title } => {
                self.bracket_depth -= 1;
                if self.opts.compact {
                    self.flat_depth -= 1;
                    self.flatten(content, false);
                }
                if self.opts.compact && blank {
                    self.cut(frame.lead_end);
                    if self.at_line_start() || self.out.ends_with(' ') {
                        // Nothing printed: the space after it is not needed.
                        self.strip_next_space();
                    }
                } else {
                    if self.printed_before(key_of((href, &self.out[content..]))) {
                        self.out.push(']');
                    } else {
                        self.link_exit(content, href, *title);
                    }
                    if self.link_has_text {
                        self.last_named_link = Some((key_of(href), self.out.len()));
                    }
                }
            }
            _ => {}
        }
        self.out.push_str(&frame.trail);
    }

    /// turndown's code rule: line breaks become spaces; the delimiter is a run of
    /// backticks the content does not contain, padded with a space when needed.
    fn code_span_exit(&mut self, lead_end: usize, content: usize) {
        let mut body = std::mem::take(&mut self.scratch);
        body.clear();
        let raw = &self.out[content..];
        let mut chars = raw.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' => {
                    if chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    body.push(' ');
                }
                '\n' => body.push(' '),
                _ => body.push(c),
            }
        }
        let mut runs = Vec::new();
        let mut run = 0;
        for b in body.bytes().chain(std::iter::once(0)) {
            if b == b'`' {
                run += 1;
            } else if run > 0 {
                runs.push(run);
                run = 0;
            }
        }
        let mut ticks = 1;
        while runs.contains(&ticks) {
            ticks += 1;
        }
        let b = body.as_bytes();
        let pad = body.starts_with('`')
            || body.ends_with('`')
            || (b.len() >= 2
                && b[0] == b' '
                && b[b.len() - 1] == b' '
                && body.bytes().any(|c| c != b' '));
        self.cut(lead_end);
        for _ in 0..ticks {
            self.out.push('`');
        }
        if pad {
            self.out.push(' ');
        }
        self.out.push_str(&body);
        if pad {
            self.out.push(' ');
        }
        for _ in 0..ticks {
            self.out.push('`');
        }
        self.scratch = body;
    }

    /// Whether an inline link with this text (`out[content..]`) and address
    /// was printed earlier (compact): menus repeat, in a page's header, its
    /// mobile copy and its footer, and an address is most of a link's tokens.
    /// The repeat keeps its text in brackets, as a shortcut reference to the
    /// first, and still reads as a link; an image shown again (a logo, an
    /// icon) keeps its alt the same way. Remembered as a hash ([`key_of`]),
    /// so a page of links holds eight bytes a link.
    fn printed_before(&mut self, key: u64) -> bool {
        self.opts.compact
            && self.opts.link_style == LinkStyle::Inlined
            && !self.links_printed.insert(key)
    }

    fn link_exit(&mut self, content: usize, href: &str, title: Option<&str>) {
        let mode = self.opts.escaping;
        match self.opts.link_style {
            LinkStyle::Inlined => {
                self.out.push_str("](");
                escape::push_destination(&mut self.out, href, mode);
                if let Some(t) = title {
                    escape::push_title(&mut self.out, t);
                }
                self.out.push(')');
            }
            LinkStyle::Referenced => {
                let mut def = String::new();
                match self.opts.link_reference_style {
                    LinkReferenceStyle::Full => {
                        let n = self.refs.len() + 1;
                        self.out.push_str(&format!("][{n}]"));
                        def.push_str(&format!("[{n}]: "));
                    }
                    LinkReferenceStyle::Collapsed | LinkReferenceStyle::Shortcut => {
                        def.push('[');
                        def.push_str(&self.out[content..]);
                        def.push_str("]: ");
                        let tail =
                            if self.opts.link_reference_style == LinkReferenceStyle::Collapsed {
                                "][]"
                            } else {
                                "]"
                            };
                        self.out.push_str(tail);
                    }
                }
                escape::push_destination(&mut def, href, mode);
                if let Some(t) = title {
                    escape::push_title(&mut def, t);
                }
                self.refs.push(def);
            }
        }
    }

    pub(super) fn image(&mut self, e: &ElementData) {
        let Some(src) = urls::image_source(e) else {
            return;
        };
        let alt = escape::clean_attribute(e.attr("alt").unwrap_or(""));
        let compact = self.opts.compact;
        if compact && self.bracket_depth > 0 && (self.link_has_text || self.link_beside_twin) {
            // A link with words is named by them, as a screen reader reads
            // it, and is what an agent acts on: its images' addresses were
            // a tenth of a page's Markdown. A card's picture beside its
            // title, both linking to one address, leaves the title alone.
            // Space on both sides of an image is one.
            if self.out.ends_with(['[', ' ']) {
                self.strip_next_space();
            }
            return;
        }
        let mut url = urls::resolve(src, self.base.as_ref());
        if !self.opts.keep_data_uris {
            url = shorten_owned(url);
        }
        self.emit("![");
        let ctx = TextContext {
            line_start: false,
            in_brackets: true,
        };
        escape::push_text(&mut self.out, &alt, self.opts.escaping, ctx);
        if !alt.trim().is_empty() && self.printed_before(key_of(("img", &url, &alt))) {
            // A logo or icon shown again: its alt, as a shortcut to the first.
            self.out.push(']');
            return;
        }
        self.out.push_str("](");
        escape::push_destination(&mut self.out, &url, self.opts.escaping);
        if !compact && let Some(t) = e.attr("title") {
            escape::push_title(&mut self.out, t);
        }
        self.out.push(')');
    }
}

/// How far up, and over how many nodes, [`Writer::twin_in_card`] looks
/// for a picture link's twin: a card is a few wrappers deep, and a product
/// tile with its stars and buttons runs to a hundred nodes; past that it
/// is a list of cards.
const CARD_DEPTH: usize = 3;
const CARD_NODES: u32 = 128;

/// What [`Writer::printed_before`] remembers of a link or image: the same
/// on every run, as the view must be.
fn key_of(what: impl Hash) -> u64 {
    FixedState::with_seed(0).hash_one(what)
}
