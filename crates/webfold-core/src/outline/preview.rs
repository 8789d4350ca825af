//! Text previews: the first characters of the text a line stands for.

use super::scope::Scope;
use crate::page::tags::is_inline;
use crate::page::{NodeData, NodeId};

/// Characters in a preview (seed 000).
pub const PREVIEW_CHARS: usize = 50;

/// The visible text of `root`'s subtree that no other line shows
/// (`is_shown(n)` marks elements with their own line), whitespace-collapsed
/// and cut to [`PREVIEW_CHARS`] characters plus "…". `None` when empty.
pub(super) fn preview(
    scope: &Scope<'_>,
    root: NodeId,
    is_shown: &dyn Fn(NodeId) -> bool,
) -> Option<String> {
    let page = scope.page;
    let end = page.node(root).subtree_end.get();
    let mut out = String::new();
    let mut chars = 0usize;
    let mut pending_space = false;
    // Block elements we are inside, to add a space when leaving one.
    let mut open_blocks: Vec<NodeId> = Vec::new();
    let mut i = root.get() + 1;
    while i < end && chars <= PREVIEW_CHARS {
        let n = NodeId::new(i);
        while open_blocks
            .last()
            .is_some_and(|&b| page.node(b).subtree_end.get() <= i)
        {
            open_blocks.pop();
            pending_space = true;
        }
        match &page.node(n).data {
            NodeData::Element(e) => {
                // Asked in order of cost: a long list's items, each with a
                // line of its own, are passed over on the cheapest test, and
                // their names are read only while a space is still open.
                if is_shown(n) || scope.is_hidden(n) {
                    pending_space = pending_space || !is_inline(e.local_name());
                    i = page.node(n).subtree_end.get();
                    continue;
                }
                if !is_inline(e.local_name()) {
                    pending_space = true;
                    open_blocks.push(n);
                }
            }
            NodeData::Text(t) if page.unseen(n).is_none() => {
                for word_part in split_keep_edges(t) {
                    match word_part {
                        Part::Space => pending_space = true,
                        Part::Word(w) => {
                            if pending_space && chars > 0 {
                                out.push(' ');
                                chars += 1;
                            }
                            pending_space = false;
                            out.push_str(w);
                            chars += w.chars().count();
                            if chars > PREVIEW_CHARS {
                                break;
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    if out.is_empty() {
        return None;
    }
    if chars > PREVIEW_CHARS {
        let cut: String = out.chars().take(PREVIEW_CHARS).collect();
        let mut cut = cut.trim_end().to_string();
        cut.push('…');
        return Some(cut);
    }
    Some(out)
}

enum Part<'a> {
    Space,
    Word(&'a str),
}

/// Words and the whitespace between them (runs of whitespace are one `Space`).
fn split_keep_edges(t: &str) -> impl Iterator<Item = Part<'_>> {
    let mut rest = t;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let ws = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_whitespace())
                .len();
        if ws > 0 {
            rest = &rest[ws..];
            return Some(Part::Space);
        }
        let word_len = rest
            .find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(rest.len());
        let (w, r) = rest.split_at(word_len);
        rest = r;
        Some(Part::Word(w))
    })
}
