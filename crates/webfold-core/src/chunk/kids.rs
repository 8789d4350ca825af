//! An element's element children as folding reads them, gathered once per
//! chunk: every plan tried and every rendering reads this short list, so a
//! list of 100,000 items is walked in the page once, not once per try.

use std::cell::Cell;

use crate::page::{NodeData, NodeId, Page};

use super::fold::Sizes;

pub(super) struct Kid {
    pub id: NodeId,
    /// Bytes of its `outerHTML`.
    pub subtree: u64,
    /// Bytes of its own tags and attributes.
    pub own: u64,
    /// Only whitespace or comments lie between it and the kid before:
    /// folded, the two share a placeholder.
    pub joins_previous: bool,
    /// Estimated tokens of a placeholder among its own children, once a
    /// plan has asked (every plan tried weighs the same kids).
    pub unit: Cell<Option<f64>>,
}

pub(super) struct Kids {
    pub parent: NodeId,
    /// In document order: a kid's place here, plus one, is its place among
    /// the parent's element children (`:nth-child`).
    pub list: Vec<Kid>,
    /// Places in `list`, smallest subtree first, then in document order.
    pub by_size: Vec<u32>,
    /// Bytes of the parent's own text, shown whenever it is open.
    pub text_bytes: u64,
    /// Runs of kids its text keeps apart: the placeholders it shows with
    /// every kid folded.
    pub runs: usize,
}

/// Walks `parent`'s children, handing each kid to `kid` with whether it
/// joins the kid before (only whitespace or comments between); `kid` stops
/// the walk by answering false. Answers what the parent shows open with
/// every kid folded, besides its tags: the bytes of its text, and its runs
/// of kids that text keeps apart (one placeholder each); `None` if stopped.
fn walk(
    page: &Page,
    sizes: &Sizes,
    parent: NodeId,
    mut kid: impl FnMut(NodeId, bool) -> bool,
) -> Option<(u64, usize)> {
    let (mut text, mut runs, mut joins) = (0, 0, false);
    for c in page.children(parent) {
        match &page.node(c).data {
            NodeData::Element(_) => {
                if !kid(c, joins) {
                    return None;
                }
                runs += usize::from(!joins);
                joins = true;
            }
            NodeData::Comment(_) => {}
            NodeData::Text(t) if t.trim_ascii().is_empty() => {}
            _ => {
                text += sizes.subtree(page, c);
                joins = false;
            }
        }
    }
    Some((text, runs))
}

/// [`walk`]'s answer for an element weighed for opening; `None` past `most`
/// kids, for a list better gathered whole.
pub(super) fn held(
    page: &Page,
    sizes: &Sizes,
    parent: NodeId,
    most: usize,
) -> Option<(u64, usize)> {
    let mut kids = 0;
    walk(page, sizes, parent, |_, _| {
        kids += 1;
        kids <= most
    })
}

impl Kids {
    pub fn of(page: &Page, sizes: &Sizes, parent: NodeId) -> Kids {
        let mut list = Vec::new();
        let walked = walk(page, sizes, parent, |id, joins_previous| {
            list.push(Kid {
                id,
                subtree: sizes.subtree(page, id),
                own: sizes.own(id),
                joins_previous,
                unit: Cell::new(None),
            });
            true
        });
        let (text_bytes, runs) = walked.unwrap_or_default();
        let mut sized: Vec<(u64, u32)> = (list.iter().enumerate())
            .map(|(i, k)| (k.subtree, i as u32))
            .collect();
        sized.sort_unstable();
        let by_size = sized.into_iter().map(|(_, i)| i).collect();
        Kids {
            parent,
            list,
            by_size,
            text_bytes,
            runs,
        }
    }

    /// Whether the kid at `i` has a folded neighbour it would share a
    /// placeholder with: (before, after).
    pub fn folded_neighbours(&self, i: usize, shown: impl Fn(NodeId) -> bool) -> (bool, bool) {
        let before = self.list[i].joins_previous && !shown(self.list[i - 1].id);
        let after = self
            .list
            .get(i + 1)
            .is_some_and(|k| k.joins_previous && !shown(k.id));
        (before, after)
    }
}
