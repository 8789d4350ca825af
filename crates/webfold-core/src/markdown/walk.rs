//! The writer: one iterative pass over the preorder arena into one `String`.
//!
//! turndown converts recursively: each element's Markdown is a function of its
//! children's, and siblings are glued by `join`, which merges the line breaks at
//! the seam (at most one blank line). Here every element opens a [`Frame`] on
//! entry, its children write straight into the output, and the frame's rule
//! finishes its slice of the output on exit (usually by appending; rarely by
//! rewriting the slice, e.g. indenting a list item's lines). Rules whose
//! leading text is known on entry (`[`, `- `, `> `) write it then, so the common
//! case never moves bytes. A "barrier" frame (list item, quote, link, emphasis,
//! table cell) makes joins inside it see only its own content, as turndown's
//! per-element `process` does.

use foldhash::HashSet;
use std::borrow::Cow;

use url::Url;

use crate::page::tags::is_heading;
use crate::page::{ElementData, NodeData, NodeId, Page};

use super::escape::{self, TextContext};
use super::options::MarkdownOptions;
use super::prepass::{self, DROPPED, IN_PRE, Prepass, REMOVED, TRIM_LEAD, TRIM_TRAIL};
use super::table::Grid;
use super::tags::{self, js_space};

pub(super) const NONE: usize = usize::MAX;

#[derive(Clone, Copy)]
pub(super) struct Saved {
    region: usize,
    strip_at: usize,
    strip_ws: bool,
    line_start_at: usize,
}

pub(super) enum Kind<'a> {
    /// An inline element without a rule: its content, flanking whitespace outside.
    Inline,
    /// A block without a rule (and `<p>`): its content between blank lines.
    Block,
    /// Writes nothing of its own (`<tbody>` in a GFM table).
    Plain,
    Heading(usize),
    Blockquote,
    List {
        nested_last: bool,
    },
    ListItem {
        indent: usize,
    },
    Emphasis {
        delim: &'a str,
    },
    Code,
    Link {
        href: Cow<'a, str>,
        title: Option<&'a str>,
    },
    Table,
    Row,
    Cell {
        colspan: usize,
        rowspan: usize,
    },
    /// A frame's captured document: a block under a label line naming
    /// the frame; `outer` is the base URL to restore on exit.
    Frame {
        outer: Option<Url>,
    },
}

pub(super) struct Frame<'a> {
    pub end: u32,
    pub node: NodeId,
    pub kind: Kind<'a>,
    /// Where this element's output begins (before its leading flank whitespace).
    pub start: usize,
    /// Where the rule's own output begins (after the leading flank whitespace).
    pub lead_end: usize,
    /// Where the content (the children's output) begins.
    pub content: usize,
    /// Trailing flank whitespace, written after the rule's output.
    pub trail: String,
    /// turndown trims the content when the element has flanking whitespace.
    pub trim: bool,
    pub saved: Saved,
    /// Element children seen so far (list item numbering).
    pub children: u32,
}

pub(super) struct Writer<'a> {
    pub page: &'a Page,
    pub opts: &'a MarkdownOptions,
    pub pre: Prepass,
    pub base: Option<Url>,
    pub root: NodeId,
    pub out: String,
    pub stack: Vec<Frame<'a>>,
    pub tables: Vec<Grid>,
    pub refs: Vec<String>,
    pub scratch: String,
    /// Start of the innermost barrier's content: joins look no further back.
    pub region: usize,
    /// While the output is exactly this long, leading whitespace of new output is dropped.
    pub strip_at: usize,
    /// Strip all whitespace (turndown's `content.trim()`) or only line breaks.
    pub strip_ws: bool,
    /// An output length that counts as the start of a line (after `- ` or `> `).
    pub line_start_at: usize,
    pub code_depth: u32,
    pub bracket_depth: u32,
    /// The open link has words of its own, so its images go unprinted.
    pub link_has_text: bool,
    /// The open link is only a picture, beside a link with words to the
    /// same address: it goes unprinted.
    pub link_beside_twin: bool,
    /// The address (hashed) of the last link printed with
    /// words, and where the output stood after it.
    pub last_named_link: Option<(u64, usize)>,
    /// Inside a GFM table cell or a compact heading: everything goes on one line.
    pub flat_depth: u32,
    /// Output range of the last `<br>`, to drop it at a block's end (compact).
    pub last_br: (usize, usize),
    /// Every inline link printed so far, by its text and address (compact):
    /// a repeat prints its text alone, in brackets.
    pub links_printed: HashSet<u64>,
}

pub(super) fn convert(
    page: &Page,
    root: NodeId,
    opts: &MarkdownOptions,
    skip: Option<&dyn Fn(NodeId) -> bool>,
) -> String {
    if page.get(root).is_none() {
        return String::new();
    }
    let pre = prepass::run(page, root, opts, skip);
    let base = super::urls::effective_base(page, opts.base_url.as_ref());
    let mut w = Writer {
        page,
        opts,
        pre,
        base,
        root,
        out: String::with_capacity(page.len() * 8),
        stack: Vec::new(),
        tables: Vec::new(),
        refs: Vec::new(),
        scratch: String::new(),
        region: 0,
        strip_at: NONE,
        strip_ws: false,
        line_start_at: NONE,
        code_depth: 0,
        bracket_depth: 0,
        link_has_text: false,
        link_beside_twin: false,
        last_named_link: None,
        flat_depth: 0,
        last_br: (NONE, NONE),
        links_printed: HashSet::default(),
    };
    w.enter_frames();
    w.walk();
    w.finish()
}

impl<'a> Writer<'a> {
    fn walk(&mut self) {
        let page = self.page;
        let end = page.node(self.root).subtree_end.get();
        let mut i = self.root.get();
        while i < end {
            self.close_until(i);
            let id = NodeId::new(i);
            let node = page.node(id);
            let flags = self.pre.get(id);
            if flags & DROPPED != 0 {
                if !self.opts.compact
                    && node
                        .parent
                        .is_some_and(|p| page.is_element(id) && self.is_top(p))
                {
                    // turndown numbers list items among all element children.
                    self.list_index(id);
                }
                i = node.subtree_end.get();
                continue;
            }
            match &node.data {
                NodeData::Text(t) => {
                    if flags & REMOVED == 0 {
                        self.text(t, flags);
                    }
                    i += 1;
                }
                NodeData::Element(e) => i = self.element(id, e),
                _ => i += 1,
            }
        }
        self.close_until(u32::MAX);
    }

    fn is_top(&self, id: NodeId) -> bool {
        self.stack.last().is_some_and(|f| f.node == id)
    }

    fn close_until(&mut self, i: u32) {
        while self.stack.last().is_some_and(|f| f.end <= i) {
            if let Some(frame) = self.stack.pop() {
                self.restore(frame.saved);
                self.exit(frame);
            }
        }
    }

    pub(super) fn saved(&self) -> Saved {
        Saved {
            region: self.region,
            strip_at: self.strip_at,
            strip_ws: self.strip_ws,
            line_start_at: self.line_start_at,
        }
    }

    fn restore(&mut self, s: Saved) {
        self.region = s.region;
        self.strip_at = s.strip_at;
        self.strip_ws = s.strip_ws;
        self.line_start_at = s.line_start_at;
    }

    /// turndown's `join` at the seam where new output starts: the line breaks
    /// already at the end and the `lead` ones the new output starts with merge
    /// into at most two.
    pub(super) fn join(&mut self, lead: usize) {
        let from = self.region.min(self.out.len());
        let a = self.out.as_bytes()[from..]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\n')
            .count();
        let n = a.max(lead).min(2);
        if n == a {
            return;
        }
        self.cut(self.out.len() - a);
        if self.opts.compact && a == 0 {
            // Spaces before a line break show nothing.
            let kept = self.out[from..].trim_end_matches([' ', '\t']).len();
            self.cut(from + kept);
        }
        if self.out.is_empty() || self.out.len() == self.strip_at {
            return;
        }
        for _ in 0..n {
            self.out.push('\n');
        }
    }

    /// Appends `s`, dropping its leading whitespace where a trim is pending.
    pub(super) fn emit(&mut self, s: &str) {
        let s = if self.out.len() == self.strip_at {
            if self.strip_ws {
                tags::trim_js_start(s)
            } else {
                s.trim_start_matches('\n')
            }
        } else {
            s
        };
        self.out.push_str(s);
    }

    pub(super) fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.out.len() == self.line_start_at || self.out.ends_with('\n')
    }

    fn text(&mut self, raw: &str, flags: u8) {
        let mut s = std::mem::take(&mut self.scratch);
        s.clear();
        if flags & IN_PRE != 0 {
            s.push_str(raw);
        } else {
            collapse_into(&mut s, raw, flags & TRIM_LEAD != 0, flags & TRIM_TRAIL != 0);
        }
        // Soft hyphens (U+00AD) are invisible break hints that split words.
        s.retain(|c| c != '\u{ad}');
        let lead = s.bytes().take_while(|&b| b == b'\n').count();
        self.join(lead);
        let mut t = &s[lead..];
        if self.out.len() == self.strip_at {
            t = if self.strip_ws {
                tags::trim_js_start(t)
            } else {
                t.trim_start_matches('\n')
            };
        }
        if !t.is_empty() {
            if self.code_depth > 0 {
                self.out.push_str(t);
            } else {
                let ctx = TextContext {
                    line_start: self.at_line_start(),
                    in_brackets: self.bracket_depth > 0,
                };
                if self.ends_in_bracket() && t.starts_with(['(', '[', ':']) {
                    // `[Home](2)` or `[Home]: x` would read as a link or its definition.
                    self.out.push('\\');
                }
                escape::push_text(&mut self.out, t, self.opts.escaping, ctx);
            }
        }
        self.scratch = s;
    }

    /// Whether the output ends in an unescaped `]`, which some next
    /// characters would make part of a link: a repeated link's (`[Home]`,
    /// see `printed_before`), or one of the page's own text.
    fn ends_in_bracket(&self) -> bool {
        self.opts.compact && self.out.ends_with(']') && !self.out.ends_with("\\]")
    }

    /// Counts `id` among its list's children; its 0-based index.
    fn list_index(&mut self, id: NodeId) -> Option<u32> {
        let parent = self.page.parent(id)?;
        let top = self.stack.last_mut()?;
        if top.node != parent || !matches!(top.kind, Kind::List { .. }) {
            return None;
        }
        top.children += 1;
        Some(top.children - 1)
    }

    /// Pushes a frame for element `id` whose content starts now.
    pub(super) fn push(
        &mut self,
        id: NodeId,
        kind: Kind<'a>,
        start: usize,
        lead_end: usize,
    ) -> &mut Frame<'a> {
        let saved = self.saved();
        let frame = Frame {
            end: self.page.node(id).subtree_end.get(),
            node: id,
            kind,
            start,
            lead_end,
            content: self.out.len(),
            trail: String::new(),
            trim: false,
            saved,
            children: 0,
        };
        self.stack.push(frame);
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    /// Makes the top frame a barrier; `strip` drops the content's leading
    /// whitespace (`Some(true)`) or line breaks (`Some(false)`).
    /// Whitespace that starts the next output is dropped: what stood
    /// between it and the text before printed nothing, or a space.
    pub(super) fn strip_next_space(&mut self) {
        self.strip_at = self.out.len();
        self.strip_ws = true;
    }

    pub(super) fn barrier(&mut self, strip: Option<bool>) {
        let at = self.out.len();
        self.region = at;
        if let Some(ws) = strip {
            self.strip_at = at;
            self.strip_ws = ws;
        }
    }

    /// Handles an element on entry; returns the next id to visit.
    fn element(&mut self, id: NodeId, e: &'a ElementData) -> u32 {
        let page = self.page;
        let next_sibling_id = page.node(id).subtree_end.get();
        let children = id.get() + 1;
        let index = self.list_index(id);
        let tag = if e.is_html() { e.local_name() } else { "" };
        let block = tags::is_block(tag);

        if let Some(next) = self.table_element(id, e, tag) {
            return next;
        }
        if self.pre.has(id, prepass::BLANK) {
            if block {
                self.join(2);
            } else {
                let (lead, trail) = self.flanks(id);
                self.join(0);
                self.emit(&lead);
                self.emit(&trail);
            }
            return next_sibling_id;
        }
        if self.code_depth > 0 && tag != "br" {
            // Inside inline code only the text counts: no nested delimiters.
            let start = self.out.len();
            self.push(id, Kind::Plain, start, start);
            return children;
        }
        if self.leaf(id, e, tag) {
            return next_sibling_id;
        }
        self.open(id, e, tag, block, index);
        children
    }

    /// Elements written whole on entry, their children not visited: line
    /// breaks, rules, images, code blocks. Returns whether `tag` is one.
    fn leaf(&mut self, id: NodeId, e: &'a ElementData, tag: &str) -> bool {
        match tag {
            "br" => self.line_break(),
            "hr" => {
                self.join(2);
                let hr = self.opts.hr.as_str();
                self.emit(hr);
                self.emit("\n\n");
            }
            "img" => {
                self.join(0);
                self.image(e);
            }
            "pre" if self.is_code_block(id) => {
                self.join(2);
                self.code_block(id);
                self.emit("\n\n");
            }
            _ => return false,
        }
        true
    }

    /// Opens element `id` whose children are visited next: what it writes
    /// before them, and the frame that closes it.
    fn open(&mut self, id: NodeId, e: &'a ElementData, tag: &str, block: bool, index: Option<u32>) {
        match tag {
            "p" => {
                self.join(2);
                let start = self.out.len();
                self.push(id, Kind::Block, start, start);
            }
            t if is_heading(t) => self.heading(id, tag),
            "blockquote" => {
                self.join(2);
                let start = self.out.len();
                self.emit(">");
                self.out.push(' ');
                self.push(id, Kind::Blockquote, start, start);
                self.barrier(Some(false));
                self.line_start_at = self.out.len();
            }
            "ul" | "ol" => {
                let nested_last = self.is_last_child_of_li(id);
                self.join(if nested_last { 1 } else { 2 });
                let start = self.out.len();
                self.push(id, Kind::List { nested_last }, start, start);
            }
            "li" => self.list_item(id, index),
            "code" => {
                self.inline_open(id, Kind::Code, "`");
                self.code_depth += 1;
            }
            "em" | "i" => {
                let delim = self.opts.em_delimiter.as_str();
                self.inline_open(id, Kind::Emphasis { delim }, delim);
            }
            "strong" | "b" => {
                let delim = self.opts.strong_delimiter.as_str();
                self.inline_open(id, Kind::Emphasis { delim }, delim);
            }
            "s" | "del" | "strike" if self.opts.compact => {
                self.inline_open(id, Kind::Emphasis { delim: "~~" }, "~~");
            }
            "a" => self.link_open(id, e),
            // Only a frame with a captured document gets here (`prepass`).
            "iframe" | "frame" => self.frame_open(id, e, tag),
            _ if block => {
                self.join(2);
                let start = self.out.len();
                self.push(id, Kind::Block, start, start);
            }
            _ => self.inline_open(id, Kind::Inline, ""),
        }
    }

    fn exit(&mut self, frame: Frame<'a>) {
        match frame.kind {
            Kind::Inline => {
                if frame.trim {
                    self.trim_end(frame.content);
                }
                self.out.push_str(&frame.trail);
            }
            Kind::Plain => {}
            Kind::Frame { outer } => {
                self.base = outer;
                self.frame_exit(frame.start, frame.content);
            }
            Kind::Block => self.block_exit(frame.content),
            Kind::Heading(level) => self.heading_exit(&frame, level),
            Kind::Blockquote => self.blockquote_exit(&frame),
            Kind::List { nested_last } => {
                if !nested_last {
                    self.emit("\n\n");
                }
            }
            Kind::ListItem { indent } => self.list_item_exit(&frame, indent),
            Kind::Emphasis { .. } | Kind::Code | Kind::Link { .. } => self.inline_exit(frame),
            Kind::Table => {
                self.tables.pop();
                self.emit("\n\n");
            }
            Kind::Row => self.row_exit(&frame),
            Kind::Cell { colspan, rowspan } => self.cell_exit(&frame, colspan, rowspan),
        }
    }

    /// A block's end: its last `<br>` and (compact) trailing spaces go, a
    /// blank line follows.
    pub(super) fn block_exit(&mut self, content: usize) {
        self.drop_final_break(content);
        if self.opts.compact {
            // Trailing spaces and blocks of only `&nbsp;` show nothing.
            self.trim_end(content);
        }
        self.emit("\n\n");
    }

    /// Shortens the output to `len` bytes. Every shortening goes through
    /// here: a join can drop line breaks that an open element's output began
    /// after, and each open frame's offsets must stay inside the output (so on
    /// a character boundary once more is written) for its exit to slice it.
    /// Frames further down the stack began no later, so the walk stops at the
    /// first frame still inside.
    pub(super) fn cut(&mut self, len: usize) {
        self.out.truncate(len);
        for f in self.stack.iter_mut().rev() {
            if f.content <= len {
                break;
            }
            f.start = f.start.min(len);
            f.lead_end = f.lead_end.min(len);
            f.content = len;
            clamp(&mut f.saved.region, len);
            clamp(&mut f.saved.strip_at, len);
            clamp(&mut f.saved.line_start_at, len);
        }
        clamp(&mut self.region, len);
        clamp(&mut self.strip_at, len);
        clamp(&mut self.line_start_at, len);
        // A break always ends past its start: cutting into it forgets it.
        if self.last_br.1 != NONE && self.last_br.1 > len {
            self.last_br = (NONE, NONE);
        }
    }

    /// Drops trailing JS whitespace back to `from`.
    pub(super) fn trim_end(&mut self, from: usize) {
        let from = from.min(self.out.len());
        let kept = self.out[from..].trim_end_matches(js_space).len();
        self.cut(from + kept);
    }

    /// A `<br>` that ends a block shows nothing, so compact output drops it.
    pub(super) fn drop_final_break(&mut self, content: usize) {
        if !self.opts.compact {
            return;
        }
        let (start, end) = self.last_br;
        if start != NONE && start >= content && end == self.out.len() {
            self.cut(start);
        }
    }

    fn line_break(&mut self) {
        if self.flat_depth > 0 {
            self.emit(" ");
            return;
        }
        if self.opts.compact && self.last_br.1 == self.out.len() && self.last_br.0 != NONE {
            // `<br><br>` is a paragraph break.
            self.cut(self.last_br.0);
            self.join(2);
            return;
        }
        if self.opts.compact && self.at_line_start() {
            // A break before any text on the line shows nothing worth reading.
            return;
        }
        self.join(0);
        let start = self.out.len();
        let br = self.opts.br.as_str();
        self.emit(br);
        self.out.push('\n');
        self.last_br = (start, self.out.len());
    }

    fn finish(mut self) -> String {
        if !self.refs.is_empty() {
            self.region = 0;
            self.strip_at = NONE;
            self.join(2);
            let refs = std::mem::take(&mut self.refs);
            self.out.push_str(&refs.join("\n"));
        }
        // turndown's postProcess: leading [\t\r\n]+, trailing whitespace.
        let kept = self.out.trim_end_matches(js_space).len();
        self.cut(kept);
        let lead = self.out.len() - self.out.trim_start_matches(['\t', '\r', '\n']).len();
        if lead > 0 {
            self.out.drain(..lead);
        }
        self.out
    }

    /// The next sibling of `id` that is part of the output.
    pub(super) fn next_kept_sibling(&self, id: NodeId) -> Option<NodeId> {
        let mut n = self.page.node(id).next_sibling;
        while let Some(s) = n {
            let f = self.pre.get(s);
            let gone = f & REMOVED != 0 || (f & DROPPED != 0 && self.opts.compact);
            if !gone {
                return Some(s);
            }
            n = self.page.node(s).next_sibling;
        }
        None
    }

    /// The previous sibling of `id` that is part of the output.
    pub(super) fn prev_kept_sibling(&self, id: NodeId) -> Option<NodeId> {
        let mut n = self.page.node(id).prev_sibling;
        while let Some(s) = n {
            if !self.pre.gone(s) {
                return Some(s);
            }
            n = self.page.node(s).prev_sibling;
        }
        None
    }

    fn is_last_child_of_li(&self, id: NodeId) -> bool {
        let page = self.page;
        let Some(parent) = page.parent(id) else {
            return false;
        };
        if page.tag(parent) != Some("li") {
            return false;
        }
        let mut n = page.last_child(parent);
        while let Some(c) = n {
            let skip = !page.is_element(c) || (self.opts.compact && self.pre.gone(c));
            if !skip {
                return c == id;
            }
            n = page.node(c).prev_sibling;
        }
        false
    }
}

/// turndown's whitespace collapse of one text node (see [`prepass`]).
pub(super) fn collapse_into(out: &mut String, raw: &str, trim_lead: bool, trim_trail: bool) {
    let b = raw.as_bytes();
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if !tags::collapsible(b[i]) {
            i += 1;
            continue;
        }
        let run_start = i;
        while i < b.len() && tags::collapsible(b[i]) {
            i += 1;
        }
        let at_start = run_start == 0 && trim_lead;
        let at_end = i == b.len() && trim_trail;
        let kept = !at_start && !at_end;
        // A lone space between words is already what the run becomes: it
        // stays in the stretch copied whole.
        if kept && i == run_start + 1 && b[run_start] == b' ' {
            continue;
        }
        out.push_str(&raw[last..run_start]);
        last = i;
        if kept {
            out.push(' ');
        }
    }
    out.push_str(&raw[last..]);
}

/// An output offset past `len` moves to `len`; `NONE` stays unset.
fn clamp(offset: &mut usize, len: usize) {
    if *offset != NONE && *offset > len {
        *offset = len;
    }
}

#[cfg(test)]
mod tests {
    use super::collapse_into;

    #[test]
    fn whitespace_runs_collapse_to_one_space() {
        let collapse = |raw: &str, lead: bool, trail: bool| {
            let mut out = String::new();
            collapse_into(&mut out, raw, lead, trail);
            out
        };
        assert_eq!(collapse("a b  c\n d\t", false, false), "a b c d ");
        assert_eq!(collapse(" a b ", true, true), "a b");
        assert_eq!(collapse(" a\r\nb ", false, true), " a b");
        assert_eq!(collapse(" ", true, false), "");
        assert_eq!(collapse(" ", false, false), " ");
        assert_eq!(collapse("", false, false), "");
    }
}
