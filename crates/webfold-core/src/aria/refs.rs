//! Refs (`e1`, `e2`, …), numbered apart from building: a snapshot session
//! renumbers them afterwards to keep them stable across snapshots
//! ([`crate::snapshot::session`]).

use std::collections::HashMap;

use super::AriaTree;

/// Number the tree's ref'd nodes in document order, as a fresh Playwright
/// page does (`e1` is usually `<body>`); a child frame's nodes read
/// `f{frame}e{n}` with the frame's own counter. Nodes the distiller removed
/// still take a number, leaving the gaps Playwright leaves.
pub fn assign_refs(tree: &mut AriaTree) {
    let mut main = 0u64;
    let mut frames: HashMap<u32, u64> = HashMap::new();
    for slot in &mut tree.ref_slots {
        let r = if slot.frame == 0 {
            main += 1;
            format!("e{main}")
        } else {
            let last = frames.entry(slot.frame).or_default();
            *last += 1;
            format!("f{}e{last}", slot.frame)
        };
        if let Some(node) = slot.index.and_then(|i| tree.nodes.get_mut(i as usize)) {
            node.ref_ = Some(r.into_boxed_str());
        }
    }
}
