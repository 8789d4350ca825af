//! Navigation-pattern dedup across pages of one site (seed 001's compactor).
//!
//! Site chrome (navigation, banner, contentinfo) repeats on every page of a
//! site. Each outermost such subtree gets a hash over its nodes' roles and
//! names (text counts as a node named by its text; refs and states are
//! ignored). On the next page of the same site, a subtree whose hash the
//! previous page also had prints as one line that keeps its ref:
//! `- navigation "Main" [ref=e3]: (unchanged since previous page)`.
//! The session gives the elements inside it the refs they had on that page,
//! so those refs stay usable. Nothing but such a subtree is ever elided.

use super::parse::{Line, LineKind, SnapTree};

/// The value printed in place of an unchanged subtree.
pub const UNCHANGED: &str = "(unchanged since previous page)";

/// Roles whose subtrees are site chrome.
pub const CHROME_ROLES: &[&str] = &["navigation", "banner", "contentinfo"];

/// The outermost navigation/banner/contentinfo lines.
pub fn chrome_roots(tree: &SnapTree) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tree.lines.len() {
        let l = &tree.lines[i];
        if l.kind == LineKind::Element && CHROME_ROLES.contains(&l.role()) {
            out.push(i);
            i = l.subtree_end();
        } else {
            i += 1;
        }
    }
    out
}

/// Hash of a subtree's shape, roles and names (FNV-1a: stable across runs,
/// so sessions saved to disk still compare).
pub fn subtree_hash(tree: &SnapTree, root: usize) -> u64 {
    let mut h = Fnv::new();
    let base = tree.lines[root].depth();
    for l in &tree.lines[root..tree.lines[root].subtree_end()] {
        h.write(&((l.depth() - base) as u64).to_le_bytes());
        match l.kind {
            LineKind::Element => {
                h.write(b"E");
                h.write(l.role().as_bytes());
                h.write(b"\0");
                h.write(l.name.as_deref().unwrap_or("").as_bytes());
            }
            LineKind::Text => {
                h.write(b"T");
                h.write(l.value().unwrap_or("").as_bytes());
            }
            // Props (URLs, placeholders) are not role or name.
            LineKind::Prop => continue,
        }
        h.write(b"\x01");
    }
    h.finish()
}

/// The navigation-pattern hashes of a page, one per chrome subtree.
pub fn nav_pattern(tree: &SnapTree) -> Vec<u64> {
    chrome_roots(tree)
        .into_iter()
        .map(|r| subtree_hash(tree, r))
        .collect()
}

/// The result of collapsing unchanged chrome.
#[derive(Clone, Debug)]
pub struct Collapsed {
    pub tree: SnapTree,
    /// Line of the new tree → line of the input tree.
    pub source: Vec<usize>,
    /// Lines of the new tree that summarize an unchanged subtree.
    pub markers: Vec<usize>,
    /// Lines of the input tree that were elided (the subtrees minus their roots).
    pub elided_lines: usize,
}

/// Replace each chrome subtree whose hash is in `previous` by one line.
/// Subtrees of a single line are left alone: one line saves nothing.
pub fn collapse(tree: &SnapTree, previous: &[u64]) -> Collapsed {
    let roots: Vec<usize> = chrome_roots(tree)
        .into_iter()
        .filter(|&r| {
            tree.lines[r].subtree_end() > r + 1 && previous.contains(&subtree_hash(tree, r))
        })
        .collect();
    let mut lines = Vec::with_capacity(tree.lines.len());
    let mut source = Vec::with_capacity(tree.lines.len());
    let mut markers = Vec::new();
    let mut elided_lines = 0;
    let mut i = 0;
    while i < tree.lines.len() {
        let l = &tree.lines[i];
        if roots.contains(&i) {
            let mut marker = l.clone();
            marker.set_value(Some((UNCHANGED, UNCHANGED)));
            markers.push(lines.len());
            lines.push(marker);
            source.push(i);
            elided_lines += l.subtree_end() - i - 1;
            i = l.subtree_end();
            continue;
        }
        lines.push(l.clone());
        source.push(i);
        i += 1;
    }
    Collapsed {
        tree: SnapTree::from_lines(tree.header.clone(), lines, tree.footer.clone()),
        source,
        markers,
        elided_lines,
    }
}

/// Is this line a dedup summary?
pub fn is_unchanged_marker(line: &Line) -> bool {
    line.kind == LineKind::Element && line.value() == Some(UNCHANGED)
}

struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
