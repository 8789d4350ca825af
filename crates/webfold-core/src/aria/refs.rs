//! Refs (`e1`, `e2`, …): numbered apart from building so a session can keep
//! them stable across snapshots, as Playwright caches a ref on its element
//! until the element's role or name changes.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::page::NodeId;

use super::AriaTree;

/// What a ref was given for: an element with a role and name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Issued {
    role: String,
    name: String,
    ref_: String,
}

/// Hands out refs. A fresh allocator numbers like a fresh Playwright page
/// (`e1` is usually `<body>`); reused across snapshots, it gives an element
/// the ref it had while its role and name are unchanged, and the next
/// number otherwise. Serializable, so a session can store it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RefAllocator {
    /// `f1` for the first child frame; empty for the main frame.
    pub prefix: String,
    last: u64,
    /// Each child frame's own counter (Playwright numbers every frame apart).
    #[serde(default)]
    frames: HashMap<u32, u64>,
    issued: HashMap<NodeId, Issued>,
}

impl RefAllocator {
    pub fn new() -> RefAllocator {
        RefAllocator::default()
    }

    /// For a child frame's snapshot: refs read `f1e1`, `f1e2`, ….
    pub fn with_prefix(prefix: &str) -> RefAllocator {
        RefAllocator {
            prefix: prefix.to_string(),
            ..RefAllocator::default()
        }
    }

    /// The ref for `node` with this role and name.
    pub fn ref_for(&mut self, node: NodeId, role: &str, name: &str) -> String {
        self.ref_in_frame(0, node, role, name)
    }

    /// The ref for `node` in child frame `frame` (0: the page itself), which
    /// reads `f{frame}e{n}` with the frame's own counter.
    pub fn ref_in_frame(&mut self, frame: u32, node: NodeId, role: &str, name: &str) -> String {
        if let Some(i) = self.issued.get(&node)
            && i.role == role
            && i.name == name
        {
            return i.ref_.clone();
        }
        let ref_ = if frame == 0 {
            self.last += 1;
            format!("{}e{}", self.prefix, self.last)
        } else {
            let last = self.frames.entry(frame).or_default();
            *last += 1;
            format!("f{frame}e{last}")
        };
        self.issued.insert(
            node,
            Issued {
                role: role.to_string(),
                name: name.to_string(),
                ref_: ref_.clone(),
            },
        );
        ref_
    }

    /// Carry identities to a new version of the page: `map` gives each old
    /// node's id in the new page, or `None` when it is gone.
    pub fn remap(&mut self, map: impl Fn(NodeId) -> Option<NodeId>) {
        let old = std::mem::take(&mut self.issued);
        self.issued = old
            .into_iter()
            .filter_map(|(k, v)| map(k).map(|n| (n, v)))
            .collect();
    }

    /// How many refs were handed out so far.
    pub fn issued_count(&self) -> u64 {
        self.last
    }
}

/// Number the tree's ref'd nodes in document order. Nodes the distiller
/// removed still take a number, leaving the gaps Playwright leaves.
pub fn assign_refs(tree: &mut AriaTree, alloc: &mut RefAllocator) {
    for slot in &mut tree.ref_slots {
        let r = alloc.ref_in_frame(slot.frame, slot.node, &slot.role, &slot.name);
        if let Some(i) = slot.index {
            tree.nodes[i].ref_ = Some(r.clone());
        }
        slot.ref_ = Some(r);
    }
}

/// The DOM element behind a ref, for `chunk --ref` and friends.
pub fn ref_to_node(tree: &AriaTree, ref_: &str) -> Option<NodeId> {
    tree.ref_slots
        .iter()
        .find(|s| s.ref_.as_deref() == Some(ref_))
        .map(|s| s.node)
}
