//! Block rules: headings, quotes, lists, code blocks, and one-line flattening.

use crate::page::tags::heading_level;
use crate::page::{ElementData, NodeData, NodeId};

use super::options::{CodeBlockStyle, HeadingStyle};
use super::prepass::{DROPPED, REMOVED};
use super::tags::js_space;
use super::walk::{Frame, Kind, Writer};

impl<'a> Writer<'a> {
    pub(super) fn heading(&mut self, id: NodeId, tag: &str) {
        let level = usize::from(heading_level(tag).unwrap_or(1));
        self.join(2);
        let start = self.out.len();
        if self.flat_depth > 0 {
            // In link text or a table cell a heading is just text.
            self.push(id, Kind::Block, start, start);
            return;
        }
        if self.opts.heading_style == HeadingStyle::Atx || level > 2 {
            for _ in 0..level {
                self.out.push('#');
            }
            self.out.push(' ');
        }
        self.push(id, Kind::Heading(level), start, start);
        self.barrier(None);
        if self.opts.compact {
            self.flat_depth += 1;
        }
    }

    pub(super) fn heading_exit(&mut self, frame: &Frame<'a>, level: usize) {
        let content = frame.content.min(self.out.len());
        if self.opts.compact {
            self.flat_depth -= 1;
            self.flatten(content, false);
            if self.out.len() == content {
                self.cut(frame.start);
                return;
            }
        }
        if self.opts.heading_style == HeadingStyle::Setext && level <= 2 {
            // turndown underlines as many characters as JavaScript's `length`.
            let width = self.out[content..].encode_utf16().count();
            let mark = if level == 1 { '=' } else { '-' };
            self.out.push('\n');
            for _ in 0..width {
                self.out.push(mark);
            }
        }
        self.out.push_str("\n\n");
    }

    /// A frame showing its captured document: a label line naming the
    /// frame and its address (`[iframe https://…]`, as the other views
    /// name it `iframe`), then the document as blocks, its links resolved
    /// against the frame's address.
    pub(super) fn frame_open(&mut self, id: NodeId, e: &ElementData, tag: &str) {
        self.join(2);
        let start = self.out.len();
        let address = self.frame_address(e);
        self.frame_label(tag, address.as_ref());
        // In a table cell or a heading all goes on one line.
        self.out
            .push_str(if self.flat_depth > 0 { " " } else { "\n\n" });
        // A frame without an address of its own (`srcdoc`, `about:blank`)
        // resolves against its parent's, as browsers do.
        let outer = match address {
            Some(u) => self.base.replace(u),
            None => self.base.clone(),
        };
        self.push(id, Kind::Frame { outer }, start, start);
    }

    /// Where frame element `e` loads from, resolved against the current
    /// base; `None` when it loads nothing from the web.
    fn frame_address(&self, e: &ElementData) -> Option<url::Url> {
        let src = e.attr("src").map(str::trim).filter(|s| !s.is_empty())?;
        match &self.base {
            Some(base) => base.join(src).ok(),
            None => url::Url::parse(src).ok(),
        }
        .filter(|u| matches!(u.scheme(), "http" | "https"))
    }

    fn frame_label(&mut self, tag: &str, address: Option<&url::Url>) {
        self.out.push('[');
        self.out.push_str(tag);
        if let Some(u) = address {
            self.out.push(' ');
            self.out.push_str(u.as_str());
        }
        self.out.push(']');
    }

    /// A subtree inside frames (the main content of a page can be a
    /// frame's article) starts under its frame's label, its links resolved
    /// against that frame's address: each frame's against the one holding it.
    pub(super) fn enter_frames(&mut self) {
        let page = self.page;
        let frames: Vec<NodeId> = page
            .ancestors(self.root)
            .filter(|&a| page.is_captured_frame(a))
            .collect();
        let Some(&inner) = frames.first() else {
            return;
        };
        // Outermost first, so the innermost frame's address is the last.
        let mut address = None;
        for &f in frames.iter().rev() {
            address = page.element(f).and_then(|e| self.frame_address(e));
            if let Some(u) = &address {
                self.base = Some(u.clone());
            }
        }
        let tag = page.tag(inner).unwrap_or("iframe");
        self.frame_label(tag, address.as_ref());
        self.out.push_str("\n\n");
    }

    /// A frame's end: its label goes too when nothing of it was written.
    pub(super) fn frame_exit(&mut self, start: usize, content: usize) {
        let content = content.min(self.out.len());
        if self.out[content..].trim().is_empty() {
            self.cut(start);
            return;
        }
        self.block_exit(content);
    }

    /// Puts the output from `from` on one line: whitespace runs holding a line
    /// break become one space, the ends are trimmed, and `|` is escaped for
    /// table cells.
    pub(super) fn flatten(&mut self, from: usize, escape_pipes: bool) {
        let mut s = std::mem::take(&mut self.scratch);
        s.clear();
        s.push_str(self.out[from..].trim_matches(js_space));
        self.cut(from);
        let b = s.as_bytes();
        let mut i = 0;
        let mut last = 0;
        while i < b.len() {
            let c = b[i];
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                let run = i;
                let mut newline = false;
                while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
                    newline |= matches!(b[i], b'\n' | b'\r');
                    i += 1;
                }
                if newline {
                    self.out.push_str(&s[last..run]);
                    self.out.push(' ');
                    last = i;
                }
            } else if c == b'|' && escape_pipes {
                self.out.push_str(&s[last..i]);
                self.out.push('\\');
                last = i;
                i += 1;
            } else {
                i += 1;
            }
        }
        self.out.push_str(&s[last..]);
        self.scratch = s;
    }

    pub(super) fn blockquote_exit(&mut self, frame: &Frame<'a>) {
        let content = frame.content.min(self.out.len());
        let kept = self.out[content..].trim_end_matches('\n').len();
        self.cut(content + kept);
        self.drop_final_break(content);
        let compact = self.opts.compact;
        if compact && self.out[content..].trim_matches(js_space).is_empty() {
            self.cut(frame.start);
            return;
        }
        if compact {
            // The first line's `> ` was written on entry; drop its space if empty.
            if self.out.len() == content || self.out[content..].starts_with('\n') {
                self.out.replace_range(content - 1..content, "");
            }
        }
        let from = self.out.len().min(content);
        self.prefix_lines(from, "> ", compact);
        self.out.push_str("\n\n");
    }

    /// Writes `prefix` after every line break from `from` on; `bare_empty`
    /// writes only its non-space part on empty lines.
    fn prefix_lines(&mut self, from: usize, prefix: &str, bare_empty: bool) {
        if !self.out[from..].contains('\n') {
            return;
        }
        let mut s = std::mem::take(&mut self.scratch);
        s.clear();
        s.push_str(&self.out[from..]);
        self.cut(from);
        let bare = prefix.trim_end();
        let mut lines = s.split('\n');
        if let Some(first) = lines.next() {
            self.out.push_str(first);
        }
        for line in lines {
            self.out.push('\n');
            if bare_empty && line.is_empty() {
                self.out.push_str(bare);
            } else {
                self.out.push_str(prefix);
            }
            self.out.push_str(line);
        }
        self.scratch = s;
    }

    pub(super) fn list_item(&mut self, id: NodeId, index: Option<u32>) {
        let page = self.page;
        let compact = self.opts.compact;
        let parent = page.parent(id);
        let ordered = parent.is_some_and(|p| page.tag(p) == Some("ol"));
        let prefix = if ordered {
            let index = i64::from(index.unwrap_or(0));
            let start = parent
                .and_then(|p| page.element(p)?.attr("start"))
                .and_then(|s| s.trim().parse::<i64>().ok());
            let mut n = start.map_or(index + 1, |s| s.saturating_add(index));
            if compact && !(0..=999_999_999).contains(&n) {
                n = index + 1;
            }
            if compact {
                format!("{n}. ")
            } else {
                format!("{n}.  ")
            }
        } else {
            let pad = if compact { " " } else { "   " };
            format!("{}{pad}", self.opts.bullet_list_marker)
        };
        self.join(0);
        let start = self.out.len();
        self.emit(&prefix);
        self.push(
            id,
            Kind::ListItem {
                indent: prefix.len(),
            },
            start,
            start,
        );
        self.barrier(Some(false));
        self.line_start_at = self.out.len();
    }

    pub(super) fn list_item_exit(&mut self, frame: &Frame<'a>, indent: usize) {
        let content = frame.content.min(self.out.len());
        self.drop_final_break(content);
        let compact = self.opts.compact;
        if compact {
            self.trim_end_spaces(content);
        }
        let newlines = self.out[content..]
            .bytes()
            .rev()
            .take_while(|&b| b == b'\n')
            .count();
        if newlines > 1 {
            self.cut(self.out.len() - (newlines - 1));
        }
        let body = &self.out[content..];
        let inner = body.strip_suffix('\n').unwrap_or(body);
        if inner.contains('\n') || (!compact && body.ends_with('\n')) {
            let mut s = std::mem::take(&mut self.scratch);
            s.clear();
            s.push_str(body);
            self.cut(content);
            let n = s.len();
            for (i, c) in s.char_indices() {
                self.out.push(c);
                if c == '\n' {
                    let next = s.as_bytes().get(i + 1);
                    let empty_next = i + 1 == n || next == Some(&b'\n');
                    if !(compact && empty_next) {
                        for _ in 0..indent {
                            self.out.push(' ');
                        }
                    }
                }
            }
            self.scratch = s;
        }
        if self.next_kept_sibling(frame.node).is_some() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
    }

    /// Drops spaces and tabs (not line breaks) at the end of the output.
    fn trim_end_spaces(&mut self, from: usize) {
        let kept = self.out[from..].trim_end_matches([' ', '\t']).len();
        self.cut(from + kept);
    }

    /// turndown writes a code block for `<pre>` whose first child is `<code>`;
    /// compact output does for every `<pre>` (its text is preformatted either way).
    pub(super) fn is_code_block(&self, pre: NodeId) -> bool {
        if self.opts.compact {
            return true;
        }
        self.page
            .node(pre)
            .first_child
            .is_some_and(|c| self.page.tag(c) == Some("code"))
    }

    /// The `<code>` of a `<pre>`: its first child (turndown), or in compact
    /// output its only element child when that is a `<code>`.
    fn code_element(&self, pre: NodeId) -> Option<NodeId> {
        let page = self.page;
        if !self.opts.compact {
            return page
                .node(pre)
                .first_child
                .filter(|&c| page.tag(c) == Some("code"));
        }
        let mut found = None;
        for c in page.children(pre) {
            if self.pre.gone(c) {
                continue;
            }
            match &page.node(c).data {
                NodeData::Element(e) if e.local_name() == "code" && found.is_none() => {
                    found = Some(c)
                }
                NodeData::Text(t) if t.trim().is_empty() => {}
                _ => return None,
            }
        }
        found
    }

    fn code_language(&self, pre: NodeId, code: Option<NodeId>) -> Option<&'a str> {
        let page = self.page;
        let from_class = |id: NodeId, prefixes: &[&str]| -> Option<&'a str> {
            let class = page.element(id)?.attr("class")?;
            class.split_ascii_whitespace().find_map(|c| {
                prefixes
                    .iter()
                    .find_map(|p| c.strip_prefix(p))
                    .filter(|l| !l.is_empty())
            })
        };
        if !self.opts.compact {
            return code.and_then(|c| from_class(c, &["language-"]));
        }
        let candidates = code.into_iter().chain(std::iter::once(pre));
        for id in candidates {
            if let Some(l) = from_class(id, &["language-", "lang-"]) {
                return Some(l);
            }
            if let Some(l) = page
                .element(id)
                .and_then(|e| e.attr("data-lang").or_else(|| e.attr("data-language")))
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.contains(char::is_whitespace))
            {
                return Some(l);
            }
        }
        None
    }

    /// The code's text pieces in order: text nodes, and `<br>` as a line break
    /// in compact output.
    fn each_code_piece(&self, src: NodeId, mut f: impl FnMut(&str)) {
        let page = self.page;
        let end = page.node(src).subtree_end.get();
        let mut j = src.get() + 1;
        while j < end {
            let n = NodeId::new(j);
            let fl = self.pre.get(n);
            if fl & DROPPED != 0 {
                j = page.node(n).subtree_end.get();
                continue;
            }
            match &page.node(n).data {
                NodeData::Text(t) if fl & REMOVED == 0 => f(t),
                NodeData::Element(e) if self.opts.compact && e.local_name() == "br" => f("\n"),
                _ => {}
            }
            j += 1;
        }
    }

    pub(super) fn code_block(&mut self, pre: NodeId) {
        let code = self.code_element(pre);
        let src = if self.opts.compact {
            pre
        } else {
            code.unwrap_or(pre)
        };
        match self.opts.code_block_style {
            CodeBlockStyle::Indented => {
                let mut out = std::mem::take(&mut self.out);
                out.push_str("    ");
                self.each_code_piece(src, |t| {
                    let mut last = 0;
                    for (i, c) in t.char_indices() {
                        if c == '\n' {
                            out.push_str(&t[last..=i]);
                            out.push_str("    ");
                            last = i + 1;
                        }
                    }
                    out.push_str(&t[last..]);
                });
                self.out = out;
            }
            CodeBlockStyle::Fenced => {
                let fence_char = self.opts.fence.chars().next().unwrap_or('`');
                let mut size = 3;
                let mut line_start = true;
                let mut run = 0usize;
                let mut in_run = false;
                self.each_code_piece(src, |t| {
                    for c in t.chars() {
                        if c == fence_char && (line_start || in_run) {
                            run += 1;
                            in_run = true;
                        } else {
                            if in_run && run >= size {
                                size = run + 1;
                            }
                            in_run = false;
                            run = 0;
                        }
                        line_start = c == '\n';
                    }
                });
                if in_run && run >= size {
                    size = run + 1;
                }
                let lang = self
                    .code_language(pre, code)
                    .filter(|l| !l.contains(['`', '~']));
                let mut out = std::mem::take(&mut self.out);
                for _ in 0..size {
                    out.push(fence_char);
                }
                out.push_str(lang.unwrap_or(""));
                out.push('\n');
                let code_start = out.len();
                self.each_code_piece(src, |t| out.push_str(t));
                if out.len() > code_start && out.ends_with('\n') {
                    out.pop();
                }
                out.push('\n');
                for _ in 0..size {
                    out.push(fence_char);
                }
                self.out = out;
            }
        }
    }
}
