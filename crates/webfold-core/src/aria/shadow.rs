//! Declarative shadow DOM: `<template shadowrootmode>` becomes its parent's
//! shadow root, as Chromium's parser makes it. Our [`Page`] keeps the template
//! and its (inert) content in place; this module answers the questions the
//! browser's live objects would: a host's shadow root, a slot's assigned
//! nodes, a node's `assignedSlot`, the id scope a node lives in, and the
//! composed (flat) tree order that styles inherit along.

use std::collections::HashMap;

use crate::page::{NodeData, NodeId, Page};

#[derive(Default)]
pub struct Shadow {
    /// host → (its shadow template, open?)
    roots: HashMap<NodeId, (NodeId, bool)>,
    /// shadow template → host
    hosts: HashMap<NodeId, NodeId>,
    /// slot → the light nodes assigned to it, in tree order
    assigned: HashMap<NodeId, Vec<NodeId>>,
    /// light node → its slot
    slot_of: HashMap<NodeId, NodeId>,
}

impl Shadow {
    pub fn new(page: &Page) -> Shadow {
        let mut s = Shadow::default();
        for (i, node) in page.nodes().iter().enumerate() {
            let NodeData::Element(e) = &node.data else {
                continue;
            };
            if !(e.is_html() && e.local_name() == "template") {
                continue;
            }
            let Some(mode) = e.attr("shadowrootmode").map(str::to_ascii_lowercase) else {
                continue;
            };
            if mode != "open" && mode != "closed" {
                continue;
            }
            let template = NodeId::new(i as u32);
            let Some(host) = node.parent.filter(|&p| page.is_element(p)) else {
                continue;
            };
            // A host takes one shadow root; later templates stay plain templates.
            if s.roots.contains_key(&host) {
                continue;
            }
            s.roots.insert(host, (template, mode == "open"));
            s.hosts.insert(template, host);
        }
        let hosts: Vec<(NodeId, NodeId)> = s.roots.iter().map(|(&h, &(t, _))| (h, t)).collect();
        for (host, template) in hosts {
            s.assign_slots(page, host, template);
        }
        s
    }

    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    fn assign_slots(&mut self, page: &Page, host: NodeId, template: NodeId) {
        // Slots of this shadow tree, not of shadow trees nested in it.
        let mut slots: Vec<NodeId> = Vec::new();
        let mut stack: Vec<NodeId> = page.children(template).collect();
        stack.reverse();
        while let Some(n) = stack.pop() {
            let Some(e) = page.element(n) else { continue };
            if e.is_html() && e.local_name() == "slot" {
                slots.push(n);
            }
            if self.hosts.contains_key(&n) {
                continue;
            }
            let mut kids: Vec<NodeId> = page.children(n).collect();
            kids.reverse();
            stack.extend(kids);
        }
        let slot_named = |name: &str| {
            slots
                .iter()
                .copied()
                .find(|&s| page.element(s).and_then(|e| e.attr("name")).unwrap_or("") == name)
        };
        for child in page.children(host) {
            if child == template {
                continue;
            }
            let name = match &page.node(child).data {
                NodeData::Element(e) => e.attr("slot").unwrap_or(""),
                NodeData::Text(_) => "",
                _ => continue,
            };
            if let Some(slot) = slot_named(name) {
                self.assigned.entry(slot).or_default().push(child);
                self.slot_of.insert(child, slot);
            }
        }
    }

    /// The shadow root (template) of an open host: what `element.shadowRoot` sees.
    pub fn open_root(&self, host: NodeId) -> Option<NodeId> {
        self.roots
            .get(&host)
            .and_then(|&(t, open)| open.then_some(t))
    }

    /// The template is the shadow root, not a child: walks skip it.
    pub fn is_shadow_template(&self, id: NodeId) -> bool {
        self.hosts.contains_key(&id)
    }

    /// `slot.assignedNodes()`.
    pub fn assigned_nodes(&self, slot: NodeId) -> &[NodeId] {
        self.assigned.get(&slot).map(Vec::as_slice).unwrap_or(&[])
    }

    /// `node.assignedSlot`: only exposed for slots of open shadow roots.
    pub fn assigned_slot(&self, page: &Page, node: NodeId) -> Option<NodeId> {
        let slot = *self.slot_of.get(&node)?;
        let host = page.parent(node)?;
        self.open_root(host).map(|_| slot)
    }

    /// Children along the flat tree, which styles inherit along: a host shows
    /// its shadow content, a slot its assigned nodes (or its fallback content).
    pub fn flat_children(&self, page: &Page, id: NodeId) -> Vec<NodeId> {
        if let Some(&(template, _)) = self.roots.get(&id) {
            return page.children(template).collect();
        }
        if let Some(nodes) = self.assigned.get(&id) {
            return nodes.clone();
        }
        page.children(id)
            .filter(|&c| !self.is_shadow_template(c))
            .collect()
    }

    /// Every node in flat-tree preorder, each with its flat parent and whether
    /// the flat tree reaches it; nodes that render nowhere (unslotted light
    /// children and their subtrees) come last, parented as in the DOM.
    pub fn flat_order(&self, page: &Page) -> Vec<(NodeId, Option<NodeId>, bool)> {
        let mut out = Vec::with_capacity(page.len());
        let mut seen = vec![false; page.len()];
        let mut stack = vec![(NodeId::DOCUMENT, None)];
        while let Some((n, parent)) = stack.pop() {
            if seen[n.index()] {
                continue;
            }
            seen[n.index()] = true;
            out.push((n, parent, true));
            for c in self.flat_children(page, n).into_iter().rev() {
                stack.push((c, Some(n)));
            }
        }
        for (i, _) in seen.iter().enumerate().filter(|(_, seen)| !**seen) {
            let id = NodeId::new(i as u32);
            out.push((id, page.parent(id), false));
        }
        out
    }

    /// Inside a `<template>` that is not a shadow root: never rendered, never found by id.
    pub fn inert(&self, page: &Page) -> Vec<bool> {
        let mut inert = vec![false; page.len()];
        for i in 1..page.len() {
            let id = NodeId::new(i as u32);
            if let Some(p) = page.parent(id) {
                let plain_template =
                    page.element(p).is_some_and(|e| e.is_template) && !self.is_shadow_template(p);
                inert[i] = inert[p.index()] || plain_template;
            }
        }
        inert
    }

    /// The tree scope ids resolve in: the shadow template a node lives under, or the document.
    /// The tree scope of each node; empty when the page has no shadow
    /// roots, where every node's scope is the document.
    pub fn scopes(&self, page: &Page) -> Vec<NodeId> {
        if self.is_empty() {
            return Vec::new();
        }
        let mut scope = vec![NodeId::DOCUMENT; page.len()];
        for i in 1..page.len() {
            let id = NodeId::new(i as u32);
            if let Some(p) = page.parent(id) {
                scope[i] = if self.is_shadow_template(p) {
                    p
                } else {
                    scope[p.index()]
                };
            }
        }
        scope
    }
}
