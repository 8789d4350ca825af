//! What is in front of the page: the budgeted view leads with an open modal
//! dialog and ranks open popups high (see [`crate::layers`]).
//!
//! Every line is tagged [`Front::Modal`], [`Front::Popup`] or
//! [`Front::None`] from the DOM node behind it. [`lead_with_modal`] moves the
//! modal dialog's lines to the top of the tree, re-indented to the top
//! level, and the rest follows after one line ([`behind_note`]) saying it
//! is inert until the dialog closes. The budget ranks the dialog's elements
//! over everything else and a popup's over every element behind it
//! ([`priority::front_priority`](super::priority::front_priority)). The full
//! view is never reordered: it stays Playwright's.

use super::parse::SnapTree;
use super::{Prepared, lines_under};
pub use crate::layers::Front;
use crate::layers::{Layers, behind_note, dialog_name};
use crate::page::Page;

/// Per line of `p`'s tree: in the modal dialog, in a popup, or neither; and
/// the modal dialog's name when one is open and printed.
pub(crate) fn tag_lines(
    p: &Prepared,
    page: &Page,
    layers: &Layers,
) -> (Vec<Front>, Option<String>) {
    let mut front = vec![Front::None; p.tree.lines.len()];
    let mut mark = |roots: &[usize], f: Front| {
        for &r in roots {
            front[r..p.tree.lines[r].subtree_end()].fill(f);
        }
    };
    for &popup in &layers.popups {
        mark(&lines_under(p, page, popup), Front::Popup);
    }
    let mut name = None;
    if let Some(m) = layers.modal {
        let roots = lines_under(p, page, m);
        if let Some(&first) = roots.first() {
            let line = &p.tree.lines[first];
            // The dialog's own line has its name; a dialog printed only
            // through its children is named from the DOM.
            name = Some(match &line.name {
                Some(n) if p.nodes[first] == Some(m) && !n.is_empty() => n.to_string(),
                _ => dialog_name(page, m),
            });
        }
        mark(&roots, Front::Modal);
    }
    (front, name)
}

/// The tree reordered to lead with the modal dialog.
pub(crate) struct Led {
    pub tree: SnapTree,
    pub front: Vec<Front>,
    pub in_viewport: Vec<bool>,
    pub forced: Vec<usize>,
    /// The first line behind the dialog, and the line printed before it.
    pub behind: Option<(usize, String)>,
}

/// The modal dialog's lines first, at the top level, then the rest of the
/// page in document order. Without a modal dialog the tree is unchanged.
pub(crate) fn lead_with_modal(
    tree: SnapTree,
    front: Vec<Front>,
    in_viewport: Vec<bool>,
    forced: Vec<usize>,
    modal_name: Option<&str>,
) -> Led {
    let n = tree.lines.len();
    let is_modal = |i: usize| front.get(i) == Some(&Front::Modal);
    let (Some(name), true) = (modal_name, (0..n).any(is_modal)) else {
        return Led {
            tree,
            front,
            in_viewport,
            forced,
            behind: None,
        };
    };
    // Old line index per new position: the dialog's subtrees, then the rest.
    let mut order: Vec<usize> = (0..n).filter(|&i| is_modal(i)).collect();
    let first_behind = order.len();
    order.extend((0..n).filter(|&i| !is_modal(i)));
    let mut new_of = vec![0; n];
    for (new, &old) in order.iter().enumerate() {
        new_of[old] = new;
    }
    let mut lines = Vec::with_capacity(n);
    // Each subtree of the dialog is lifted by the depth of its root.
    let mut lift = 0;
    for (k, &old) in order.iter().enumerate() {
        let mut l = tree.lines[old].clone();
        if k < first_behind {
            let root = l.parent().is_none_or(|p| !is_modal(p));
            if root {
                lift = l.depth();
            }
            l.set_depth(l.depth() - lift.min(l.depth()));
        }
        lines.push(l);
    }
    Led {
        tree: SnapTree::from_lines(tree.header, lines, tree.footer),
        front: order.iter().map(|&o| front[o]).collect(),
        in_viewport: order
            .iter()
            .map(|&o| in_viewport.get(o).copied().unwrap_or(false))
            .collect(),
        forced: forced.iter().map(|&f| new_of[f]).collect(),
        behind: (first_behind < n).then(|| (first_behind, behind_note(name))),
    }
}
