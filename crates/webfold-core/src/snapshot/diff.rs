//! What changed between two snapshots of the same page (seed 001's differ).
//!
//! Elements are matched by ref (the session keeps refs stable while role and
//! name are unchanged); elements without a ref by their place: parent, role,
//! name and rank among like siblings. An element whose own line, props or text
//! changed is `changed`; a new one `added` (with its whole subtree); a gone
//! one `removed` (its top line only). Each is printed under its ancestor path,
//! and every printed line is an ordinary snapshot line, the mark being a YAML
//! comment after it (`- button "Buy" [ref=e9] # added`), so ref parsers and
//! YAML readers both take the diff as they take a snapshot. playwright-mcp
//! dropped its diffs because their format broke ref parsers; this one cannot.

use std::collections::HashMap;

use super::parse::{Line, SnapTree};

/// How many elements changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DiffStats {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
}

impl DiffStats {
    pub fn is_empty(&self) -> bool {
        self.added + self.removed + self.changed == 0
    }
}

/// The marks diffs put after a line.
pub const ADDED: &str = " added";
pub const REMOVED: &str = " removed";
pub const CHANGED: &str = " changed";

/// The changes from `old` to `new` as a tree of marked lines plus context.
pub fn diff(old: &SnapTree, new: &SnapTree) -> (SnapTree, DiffStats) {
    let old = Side::new(old);
    let new = Side::new(new);
    let mut stats = DiffStats::default();
    let mut marks = mark_added_and_changed(&old, &new, &mut stats);
    let removed = place_removed(&old, &new, &mut marks.show, &mut stats);
    let out = emit(old.tree, new.tree, &marks, &removed);
    (
        SnapTree::from_lines(Vec::new(), split_inline_values(out), Vec::new()),
        stats,
    )
}

/// One of the two snapshots, with each element's identity and content hash.
struct Side<'t> {
    tree: &'t SnapTree,
    ids: Vec<Option<u64>>,
    content: Vec<u64>,
    by_id: HashMap<u64, usize>,
}

impl<'t> Side<'t> {
    fn new(tree: &'t SnapTree) -> Side<'t> {
        let ids = identities(tree);
        let by_id = ids
            .iter()
            .enumerate()
            .filter_map(|(i, id)| id.map(|id| (id, i)))
            .collect();
        Side {
            tree,
            content: content_hashes(tree),
            ids,
            by_id,
        }
    }
}

/// Per line of the new tree: whether it is printed, and its mark.
struct Marks {
    show: Vec<bool>,
    mark: Vec<Option<&'static str>>,
}

/// Mark the new elements (the top of each added subtree, printed whole) and
/// the changed ones (printed with their text), with their ancestor paths.
fn mark_added_and_changed(old: &Side<'_>, new: &Side<'_>, stats: &mut DiffStats) -> Marks {
    let tree = new.tree;
    let n = tree.lines.len();
    let mut show = vec![false; n];
    let mut mark: Vec<Option<&'static str>> = vec![None; n];
    let mut added = vec![false; n];
    for i in 0..n {
        let Some(id) = new.ids[i] else { continue };
        let parent_added = tree.lines[i].parent().is_some_and(|p| added[p]);
        match old.by_id.get(&id) {
            None => {
                added[i] = true;
                if !parent_added {
                    stats.added += 1;
                    mark[i] = Some(ADDED);
                    show[i..tree.lines[i].subtree_end()].fill(true);
                    show_ancestors(tree, i, &mut show);
                }
            }
            Some(&o) if !parent_added && old.content[o] != new.content[i] => {
                stats.changed += 1;
                mark[i] = Some(CHANGED);
                show[i] = true;
                for k in tree.children(i).filter(|&k| !tree.lines[k].is_element()) {
                    show[k] = true;
                }
                show_ancestors(tree, i, &mut show);
            }
            Some(_) => {}
        }
    }
    Marks { show, mark }
}

/// Where removed old lines go in the new tree.
#[derive(Default)]
struct Removed {
    /// First under a new parent (`None`: the top level).
    first: HashMap<Option<usize>, Vec<usize>>,
    /// After the subtree of a new line, their nearest surviving old sibling.
    after: HashMap<usize, Vec<usize>>,
}

/// Removed: top-most old elements whose id is gone, placed under the new
/// counterpart of their old parent, after their nearest surviving old sibling.
fn place_removed(
    old: &Side<'_>,
    new: &Side<'_>,
    show: &mut [bool],
    stats: &mut DiffStats,
) -> Removed {
    let lines = &old.tree.lines;
    let mut removed = Removed::default();
    let mut old_removed = vec![false; lines.len()];
    // Per old parent (index + 1; 0 for the top level): the new counterpart of
    // the last surviving child seen so far. Preorder visits siblings in order.
    let mut last_survivor: Vec<Option<usize>> = vec![None; lines.len() + 1];
    for o in 0..lines.len() {
        let Some(id) = old.ids[o] else { continue };
        let slot = lines[o].parent().map_or(0, |p| p + 1);
        if let Some(&ni) = new.by_id.get(&id) {
            last_survivor[slot] = Some(ni);
            continue;
        }
        old_removed[o] = true;
        if lines[o].parent().is_some_and(|p| old_removed[p]) {
            continue;
        }
        // The old parent must survive for the line to have a place.
        let new_parent = match lines[o].parent() {
            None => None,
            Some(p) => match old.ids[p].and_then(|id| new.by_id.get(&id).copied()) {
                Some(np) => Some(np),
                None => continue,
            },
        };
        stats.removed += 1;
        match last_survivor[slot] {
            Some(ns) if new.tree.lines[ns].parent() == new_parent => {
                removed.after.entry(ns).or_default().push(o)
            }
            _ => removed.first.entry(new_parent).or_default().push(o),
        }
        if let Some(np) = new_parent {
            show[np] = true;
            show_ancestors(new.tree, np, show);
        }
    }
    removed
}

/// The diff's lines in new-tree order, with the removed lines slotted in.
fn emit(old: &SnapTree, new: &SnapTree, marks: &Marks, removed: &Removed) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    let removed_line = |o: usize, depth: usize| {
        let mut l = old.lines[o].clone();
        l.set_depth(depth);
        l.set_comment(Some(REMOVED));
        l
    };
    if let Some(list) = removed.first.get(&None) {
        out.extend(list.iter().map(|&o| removed_line(o, 0)));
    }
    let mut pending: Vec<(usize, usize, usize)> = Vec::new(); // (end, depth, old line)
    for (i, line) in new.lines.iter().enumerate() {
        while pending.last().is_some_and(|&(end, _, _)| end <= i) {
            if let Some((_, depth, o)) = pending.pop() {
                out.push(removed_line(o, depth));
            }
        }
        if marks.show[i] {
            let mut l = line.clone();
            l.set_comment(marks.mark[i]);
            out.push(l);
            if let Some(list) = removed.first.get(&Some(i)) {
                out.extend(list.iter().map(|&o| removed_line(o, line.depth() + 1)));
            }
        }
        if let Some(list) = removed.after.get(&i) {
            for &o in list.iter().rev() {
                pending.push((line.subtree_end(), line.depth(), o));
            }
        }
    }
    while let Some((_, depth, o)) = pending.pop() {
        out.push(removed_line(o, depth));
    }
    out
}

/// A line printed with an inline value cannot have children; if the diff
/// gives it some (a removed child), its value becomes a `- text:` child.
fn split_inline_values(lines: Vec<Line>) -> Vec<Line> {
    let mut out = Vec::with_capacity(lines.len());
    for i in 0..lines.len() {
        let mut l = lines[i].clone();
        let has_child = lines
            .get(i + 1)
            .is_some_and(|next| next.depth() > l.depth());
        if has_child && let Some((raw, value)) = l.take_value() {
            let text = Line::text(l.depth() + 1, &raw, &value);
            out.push(l);
            out.push(text);
        } else {
            out.push(l);
        }
    }
    out
}

fn show_ancestors(tree: &SnapTree, i: usize, show: &mut [bool]) {
    for a in tree.ancestors(i) {
        if show[a] {
            break;
        }
        show[a] = true;
    }
}

/// An identity per element line: its ref, or its place among its parent's
/// children (role, name and rank among like siblings). `None` for text and props.
fn identities(tree: &SnapTree) -> Vec<Option<u64>> {
    let mut ids: Vec<Option<u64>> = vec![None; tree.lines.len()];
    // Rank of (parent, role, name) among siblings without refs.
    let mut ranks: HashMap<(Option<u64>, u64), u32> = HashMap::new();
    for i in 0..tree.lines.len() {
        let l = &tree.lines[i];
        if !l.is_element() {
            continue;
        }
        let id = match &l.aria_ref {
            Some(r) => hash(&[b"ref", r.as_bytes()]),
            None => {
                let parent = l.parent().and_then(|p| ids[p]);
                let rn = hash(&[
                    l.role().as_bytes(),
                    l.name.as_deref().unwrap_or("").as_bytes(),
                ]);
                let rank = ranks.entry((parent, rn)).or_insert(0);
                *rank += 1;
                let p = parent.unwrap_or(0).to_le_bytes();
                hash(&[b"pos", &p, &rn.to_le_bytes(), &rank.to_le_bytes()])
            }
        };
        ids[i] = Some(id);
    }
    ids
}

/// Hash of what an element line shows: its own item and its text and props.
fn content_hashes(tree: &SnapTree) -> Vec<u64> {
    (0..tree.lines.len())
        .map(|i| {
            let l = &tree.lines[i];
            if !l.is_element() {
                return 0;
            }
            let mut parts: Vec<String> = vec![l.item_text(false)];
            parts.extend(
                tree.children(i)
                    .filter(|&k| !tree.lines[k].is_element())
                    .map(|k| tree.lines[k].item_text(false)),
            );
            let bytes: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
            hash(&bytes)
        })
        .collect()
}

fn hash(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in p.iter().chain(&[0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
