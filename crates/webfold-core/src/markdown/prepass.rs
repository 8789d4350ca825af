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
use crate::page::{NodeData, NodeId, Page};

use super::tags::{self, js_space};

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
        id.0.checked_sub(self.root)
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
}

#[derive(Default)]
struct Collapse {
    prev_text: Option<u32>,
    keep_leading_ws: bool,
}

pub(super) fn run(
    page: &Page,
    root: NodeId,
    preformatted_code: bool,
    skip: Option<&dyn Fn(NodeId) -> bool>,
) -> Prepass {
    let root_i = root.0;
    let end = page.node(root).subtree_end.0;
    let mut flags = vec![0u8; (end - root_i) as usize];
    let at = |id: u32| (id - root_i) as usize;
    let mut stack: Vec<Open> = Vec::new();
    let mut c = Collapse::default();
    let mut pre_depth = 0usize;

    let trim_prev = |c: &mut Collapse, flags: &mut [u8]| {
        if let Some(p) = c.prev_text.take() {
            let f = &mut flags[at(p)];
            if *f & ENDS_WS != 0 {
                *f |= TRIM_TRAIL;
                if page
                    .text(NodeId(p))
                    .is_some_and(|t| t.bytes().all(tags::collapsible))
                {
                    // " " kept so far, now trimmed to nothing.
                    *f |= REMOVED;
                }
            }
        }
    };

    let mut i = root_i;
    while i < end {
        while stack.last().is_some_and(|o| o.end <= i) {
            let o = stack.pop().unwrap_or_else(|| unreachable!());
            close(page, &mut flags, root_i, &mut stack, &o);
            if o.is_pre {
                pre_depth -= 1;
            } else if pre_depth == 0 {
                visit_element(&mut c, &mut flags, o.block, false, false, &trim_prev);
            }
        }
        let id = NodeId(i);
        let node = page.node(id);
        match &node.data {
            NodeData::Element(e) => {
                let tag = e.local_name();
                let sub_end = node.subtree_end.0;
                if !page.is_rendered(id) || tags::is_dropped(tag) || skip.is_some_and(|f| f(id)) {
                    flags[at(i)..at(sub_end)].fill(DROPPED);
                    i = sub_end;
                    continue;
                }
                let block = tags::is_block(tag);
                let void = is_turndown_void(tag);
                let is_pre = tag == "pre" || (preformatted_code && tag == "code");
                if pre_depth == 0 {
                    visit_element(
                        &mut c,
                        &mut flags,
                        block,
                        tag == "br",
                        void || is_pre,
                        &trim_prev,
                    );
                }
                let meaningful = void || tags::is_meaningful_when_blank(tag);
                if sub_end == i + 1 {
                    if !meaningful {
                        flags[at(i)] |= BLANK;
                    }
                    if meaningful && let Some(parent) = stack.last_mut() {
                        parent.has_content = true;
                    }
                } else {
                    if is_pre {
                        pre_depth += 1;
                    }
                    stack.push(Open {
                        id: i,
                        end: sub_end,
                        is_pre,
                        block,
                        has_content: false,
                    });
                }
            }
            NodeData::Text(t) => {
                if pre_depth > 0 {
                    flags[at(i)] |= IN_PRE;
                    if t.is_empty() {
                        flags[at(i)] |= REMOVED;
                    }
                } else {
                    let bytes = t.as_bytes();
                    let starts_ws = bytes.first().is_some_and(|&b| tags::collapsible(b));
                    let prev_ends_ws = c.prev_text.is_none_or(|p| flags[at(p)] & ENDS_WS != 0);
                    let trim_lead = prev_ends_ws && !c.keep_leading_ws && starts_ws;
                    let all_ws = bytes.iter().all(|&b| tags::collapsible(b));
                    if bytes.is_empty() || (all_ws && trim_lead) {
                        flags[at(i)] |= REMOVED;
                        i += 1;
                        continue;
                    }
                    let mut f = 0;
                    if trim_lead {
                        f |= TRIM_LEAD;
                    }
                    if bytes.last().is_some_and(|&b| tags::collapsible(b)) {
                        f |= ENDS_WS;
                    }
                    flags[at(i)] |= f;
                    c.prev_text = Some(i);
                }
                if t.chars().any(|ch| !js_space(ch))
                    && let Some(parent) = stack.last_mut()
                {
                    parent.has_content = true;
                }
            }
            NodeData::Document => {}
            _ => flags[at(i)] |= REMOVED,
        }
        i += 1;
    }
    while let Some(o) = stack.pop() {
        close(page, &mut flags, root_i, &mut stack, &o);
        if o.is_pre {
            pre_depth -= 1;
        } else if pre_depth == 0 {
            visit_element(&mut c, &mut flags, o.block, false, false, &trim_prev);
        }
    }
    trim_prev(&mut c, &mut flags);
    Prepass {
        root: root_i,
        flags,
    }
}

/// An element's exit: record blankness, pass content up.
fn close(page: &Page, flags: &mut [u8], root: u32, stack: &mut [Open], o: &Open) {
    let tag = page.tag(NodeId(o.id)).unwrap_or("");
    let meaningful = is_turndown_void(tag) || tags::is_meaningful_when_blank(tag);
    if !o.has_content && !meaningful && page.element(NodeId(o.id)).is_some() {
        flags[(o.id - root) as usize] |= BLANK;
    }
    if (o.has_content || meaningful)
        && let Some(parent) = stack.last_mut()
    {
        parent.has_content = true;
    }
}

/// collapse-whitespace's element step (run on entry and on exit).
fn visit_element(
    c: &mut Collapse,
    flags: &mut [u8],
    block: bool,
    br: bool,
    void_or_pre: bool,
    trim_prev: &dyn Fn(&mut Collapse, &mut [u8]),
) {
    if block || br {
        trim_prev(c, flags);
        c.keep_leading_ws = false;
    } else if void_or_pre {
        c.prev_text = None;
        c.keep_leading_ws = true;
    } else if c.prev_text.is_some() {
        c.keep_leading_ws = false;
    }
}
