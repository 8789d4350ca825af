//! The first pass: what is dropped, how each text node's whitespace collapses,
//! and which elements are blank.
//!
//! turndown collapses whitespace on the DOM before converting (its
//! `collapse-whitespace` step): runs of `[ \t\r\n]` become one space, a space
//! after a space or at the start of a block is dropped, a space before a block
//! or `<br>` is dropped. The last rule looks back at an earlier text node, which
//! a one-pass writer cannot undo cheaply, so this pass records per node what
//! the writer must do. It walks the id range once with an explicit stack.

use crate::page::tags::is_turndown_void;
use crate::page::{ElementData, NodeData, NodeId, Page};

use super::MarkdownOptions;
use super::tags::{self, js_space};
use super::urls;

/// Node is not converted (hidden, dropped tag, filtered out, or inside one).
pub(super) const DROPPED: u8 = 1;
/// Text node collapses to nothing (or is a comment etc.).
pub(super) const REMOVED: u8 = 2;
/// Text node loses its leading space.
pub(super) const TRIM_LEAD: u8 = 4;
/// Text node loses its trailing space.
pub(super) const TRIM_TRAIL: u8 = 8;
/// Text node is inside `<pre>` (or `<code>` with `preformatted_code`): kept verbatim.
pub(super) const IN_PRE: u8 = 16;
/// Element holds no text, no void and no meaningful-when-blank element.
pub(super) const BLANK: u8 = 32;
/// Text node ends with collapsible whitespace (so its collapsed form ends with a space).
pub(super) const ENDS_WS: u8 = 64;

pub(super) struct Prepass {
    root: u32,
    flags: Vec<u8>,
}

impl Prepass {
    pub(super) fn get(&self, id: NodeId) -> u8 {
        id.get()
            .checked_sub(self.root)
            .and_then(|i| self.flags.get(i as usize))
            .copied()
            .unwrap_or(DROPPED)
    }

    pub(super) fn has(&self, id: NodeId, flag: u8) -> bool {
        self.get(id) & flag != 0
    }

    /// Not part of the output: dropped, or a removed text/comment.
    pub(super) fn gone(&self, id: NodeId) -> bool {
        self.get(id) & (DROPPED | REMOVED) != 0
    }
}

struct Open {
    id: u32,
    end: u32,
    is_pre: bool,
    block: bool,
    has_content: bool,
    /// An `<a href>`: an image in it may be all the link shows.
    link: bool,
}

#[derive(Default)]
struct Collapse {
    prev_text: Option<u32>,
    keep_leading_ws: bool,
}

pub(super) fn run(
    page: &Page,
    root: NodeId,
    opts: &MarkdownOptions,
    skip: Option<&dyn Fn(NodeId) -> bool>,
) -> Prepass {
    let preformatted_code = opts.preformatted_code;
    let root_i = root.get();
    let end = page.node(root).subtree_end.get();
    let mut w = Walker {
        page,
        root: root_i,
        flags: vec![0u8; (end - root_i) as usize],
        stack: Vec::new(),
        c: Collapse::default(),
        pre_depth: 0,
        links_open: 0,
    };
    let mut i = root_i;
    while i < end {
        while w.stack.last().is_some_and(|o| o.end <= i) {
            w.close_top();
        }
        let node = page.node(NodeId::new(i));
        i = match &node.data {
            NodeData::Element(e) => {
                // A frame a live capture took the document of shows it;
                // a parsed page's `<iframe>` holds only fallback text.
                let dropped = page.hides_subtree(NodeId::new(i))
                    || tags::is_dropped(e.local_name()) && !page.is_captured_frame(NodeId::new(i))
                    || skip.is_some_and(|f| f(NodeId::new(i)))
                    || opts.compact && (w.links_open == 0 && is_decoration(e) || is_spacer(e));
                if dropped {
                    let sub_end = node.subtree_end.get();
                    let range = w.at(i)..w.at(sub_end);
                    w.flags[range].fill(DROPPED);
                    sub_end
                } else {
                    let link =
                        e.local_name() == "a" && e.attr("href").is_some_and(|h| !h.is_empty());
                    w.element(
                        i,
                        e.local_name(),
                        link,
                        node.subtree_end.get(),
                        preformatted_code,
                    );
                    i + 1
                }
            }
            NodeData::Text(_) if page.unseen(NodeId::new(i)).is_some() => {
                let k = w.at(i);
                w.flags[k] |= REMOVED;
                i + 1
            }
            NodeData::Text(t) => {
                w.text(i, t);
                i + 1
            }
            NodeData::Document => i + 1,
            _ => {
                let k = w.at(i);
                w.flags[k] |= REMOVED;
                i + 1
            }
        };
    }
    while !w.stack.is_empty() {
        w.close_top();
    }
    w.trim_prev();
    Prepass {
        root: root_i,
        flags: w.flags,
    }
}

/// A spacer or tracking pixel: an image shown only from a `data:` URI,
/// whose alt says nothing. The compact rules drop it, in links too, with
/// its whitespace.
fn is_spacer(e: &ElementData) -> bool {
    e.local_name() == "img"
        && e.attr("alt").is_none_or(|a| a.trim().is_empty())
        && urls::image_source(e).is_some_and(urls::is_data_uri)
}

/// An image whose empty alt marks it as decoration (a screen reader skips
/// it too); the compact rules drop it outside links, whitespace and all.
fn is_decoration(e: &ElementData) -> bool {
    e.local_name() == "img" && e.attr("alt").is_some_and(|a| a.trim().is_empty())
}

/// The walk's state: the flags so far, the open elements, and where
/// whitespace collapsing stands.
struct Walker<'p> {
    page: &'p Page,
    root: u32,
    flags: Vec<u8>,
    stack: Vec<Open>,
    c: Collapse,
    /// How many `<pre>` (or preformatted `<code>`) are open.
    pre_depth: usize,
    /// How many `<a href>` are open.
    links_open: usize,
}

impl Walker<'_> {
    fn at(&self, id: u32) -> usize {
        (id - self.root) as usize
    }

    /// Close the innermost open element.
    fn close_top(&mut self) {
        let Some(o) = self.stack.pop() else { return };
        if o.link {
            self.links_open -= 1;
        }
        close(self.page, &mut self.flags, self.root, &mut self.stack, &o);
        if o.is_pre {
            self.pre_depth -= 1;
        } else if self.pre_depth == 0 {
            self.visit_element(o.block, false, false);
        }
    }

    /// Enter the rendered element `i` (`tag`, subtree up to `sub_end`).
    fn element(&mut self, i: u32, tag: &str, link: bool, sub_end: u32, preformatted_code: bool) {
        let block = tags::is_block(tag);
        let void = is_turndown_void(tag);
        let is_pre = tag == "pre" || (preformatted_code && tag == "code");
        if self.pre_depth == 0 {
            self.visit_element(block, tag == "br", void || is_pre);
        }
        let meaningful = void || tags::is_meaningful_when_blank(tag);
        if sub_end == i + 1 {
            if !meaningful {
                let k = self.at(i);
                self.flags[k] |= BLANK;
            }
            if meaningful && let Some(parent) = self.stack.last_mut() {
                parent.has_content = true;
            }
        } else {
            if is_pre {
                self.pre_depth += 1;
            }
            if link {
                self.links_open += 1;
            }
            self.stack.push(Open {
                id: i,
                end: sub_end,
                is_pre,
                block,
                has_content: false,
                link,
            });
        }
    }

    /// A text node: kept verbatim in `<pre>`, else how its whitespace collapses.
    fn text(&mut self, i: u32, t: &str) {
        let k = self.at(i);
        if self.pre_depth > 0 {
            self.flags[k] |= IN_PRE;
            if t.is_empty() {
                self.flags[k] |= REMOVED;
            }
        } else {
            let bytes = t.as_bytes();
            let starts_ws = bytes.first().is_some_and(|&b| tags::collapsible(b));
            let prev_ends_ws = self
                .c
                .prev_text
                .is_none_or(|p| self.flags[self.at(p)] & ENDS_WS != 0);
            let trim_lead = prev_ends_ws && !self.c.keep_leading_ws && starts_ws;
            let all_ws = bytes.iter().all(|&b| tags::collapsible(b));
            if bytes.is_empty() || (all_ws && trim_lead) {
                self.flags[k] |= REMOVED;
                return;
            }
            let mut f = 0;
            if trim_lead {
                f |= TRIM_LEAD;
            }
            if bytes.last().is_some_and(|&b| tags::collapsible(b)) {
                f |= ENDS_WS;
            }
            self.flags[k] |= f;
            self.c.prev_text = Some(i);
        }
        if t.chars().any(|ch| !js_space(ch))
            && let Some(parent) = self.stack.last_mut()
        {
            parent.has_content = true;
        }
    }

    /// Trim the trailing space of the last text node, now that a block or
    /// `<br>` (or the end) follows it.
    fn trim_prev(&mut self) {
        if let Some(p) = self.c.prev_text.take() {
            let k = self.at(p);
            let f = &mut self.flags[k];
            if *f & ENDS_WS != 0 {
                *f |= TRIM_TRAIL;
                if self
                    .page
                    .text(NodeId::new(p))
                    .is_some_and(|t| t.bytes().all(tags::collapsible))
                {
                    // " " kept so far, now trimmed to nothing.
                    *f |= REMOVED;
                }
            }
        }
    }

    /// collapse-whitespace's element step (run on entry and on exit).
    fn visit_element(&mut self, block: bool, br: bool, void_or_pre: bool) {
        if block || br {
            self.trim_prev();
            self.c.keep_leading_ws = false;
        } else if void_or_pre {
            self.c.prev_text = None;
            self.c.keep_leading_ws = true;
        } else if self.c.prev_text.is_some() {
            self.c.keep_leading_ws = false;
        }
    }
}

/// An element's exit: record blankness, pass content up.
fn close(page: &Page, flags: &mut [u8], root: u32, stack: &mut [Open], o: &Open) {
    let tag = page.tag(NodeId::new(o.id)).unwrap_or("");
    let meaningful = is_turndown_void(tag) || tags::is_meaningful_when_blank(tag);
    if !o.has_content && !meaningful && page.element(NodeId::new(o.id)).is_some() {
        flags[(o.id - root) as usize] |= BLANK;
    }
    if (o.has_content || meaningful)
        && let Some(parent) = stack.last_mut()
    {
        parent.has_content = true;
    }
}
