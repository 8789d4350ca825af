//! Accessibility snapshots, byte-identical to Playwright 1.65.1's YAML.
//!
//! Two modes: [`Mode::Aria`] is what `locator('body').ariaSnapshot()` prints;
//! [`Mode::Ai`] is `page.ariaSnapshot({ mode: 'ai' })` (playwright-mcp's
//! `browser_snapshot`), with `[ref=eN]`, `[active]` and `[cursor=pointer]`.
//!
//! # Pipeline
//! 1. [`build`]: roles ([`roles`]), names (accname 1.2, [`name`]), states and
//!    the tree walk, then Playwright's distillation. The result is an
//!    [`AriaTree`]: a flat arena in document order, root first.
//! 2. [`assign_refs`]: numbers the nodes that would get refs, as a fresh
//!    page does; a snapshot session renumbers them to keep refs stable.
//! 3. [`render_yaml`]: the YAML text.
//!
//! [`snapshot`] does all three.
//!
//! # The tree
//! `nodes[0]` is a `fragment` root that is never printed; its children are
//! the top-level lines. Every other node is one line: an element node
//! (`role`, `name`, [`States`], [`Props`], `node` = the DOM element behind
//! it, `ref_` once refs are assigned) or a text node (`role == "text"`,
//! `text` set, no children). A node whose only child is a text node prints it
//! inline (`- paragraph: Hello`). `parent`/`children` index the arena.
//!
//! # Static pages and live layout
//! Visibility, boxes, `display`, cursors and pointer events come from a live
//! capture's [`Layout`](crate::page::Layout) when the page has one, else from
//! markup emulating Chromium's UA stylesheet plus inline styles ([`style`]).
//! Everything runs in a few linear passes with explicit stacks: no recursion
//! over document depth.

mod distill;
mod dom;
pub mod js;
pub mod name;
mod refs;
pub mod roles;
mod shadow;
mod states;
pub mod style;
mod tree;
mod yaml;

use serde::{Deserialize, Serialize};

use crate::page::{NodeId, Page};

pub use refs::assign_refs;
pub use states::{Invalid, States, Tristate};
pub use yaml::{
    json_string, node_key, render_yaml, render_yaml_blocks, yaml_escape_key_if_needed,
    yaml_escape_value_if_needed, yaml_needs_quotes,
};

/// A role's static name. Named, so serde reads it with [`role_name`]
/// rather than borrowing it from the input (which a `&str` field asks).
pub type RoleName = &'static str;

/// A node's role as serde writes and reads it: by name, read back to the
/// builder's static names (ARIA's roles, `fragment`, `iframe`, `text`).
mod role_name {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(role: &&'static str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(role)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
        let name = String::deserialize(d)?;
        // A text node's role and a default node's empty one are no roles
        // the builder makes from the page.
        let own = ["text", ""].into_iter().find(|r| *r == name);
        own.or_else(|| super::roles::static_role(&name))
            .ok_or_else(|| D::Error::custom(format!("unknown role {name:?}")))
    }
}

/// Whether node `id` is content a snapshot can show: outside every
/// `<template>`, or inside a declarative shadow root (a template too, for
/// the parser, which marks the node inert). Plain templates' content is not.
pub(crate) fn is_shown_content(page: &Page, id: NodeId) -> bool {
    match page.get(id) {
        None => false,
        Some(n) if !n.inert => true,
        Some(_) => {
            let shadow = shadow::Shadow::new(page);
            !shadow.is_empty() && !shadow.inert(page)[id.index()]
        }
    }
}

/// Which Playwright snapshot to reproduce.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// `locator.ariaSnapshot()`: no refs, hidden content dropped.
    #[default]
    Aria,
    /// `page.ariaSnapshot({ mode: 'ai' })`: refs, `[active]`, `[cursor=pointer]`,
    /// rendered `aria-hidden` content kept, extra distillation.
    Ai,
}

/// Node properties printed as `- /url: …` and `- /placeholder: …` lines.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Props {
    /// The raw `href` of a link (`data:` URLs shortened to `data:…,…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Box<str>>,
    /// A textbox's placeholder when it differs from its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<Box<str>>,
    /// What an `aria-label` says that the visible text does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invisible_name: Option<Box<str>>,
}

/// One line of the snapshot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AriaNode {
    /// An ARIA role, `generic`, `iframe`, `fragment` (the root) or `text`;
    /// the builder's names are static (no allocation a node).
    #[serde(with = "role_name")]
    pub role: RoleName,
    /// The accessible name; a `text` node's text.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub name: Box<str>,
    /// A text node: `name` is its text.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_text: bool,
    /// Arena indexes, 32-bit as the page's ids are: a tree has no more
    /// nodes than its page.
    #[serde(default, skip_serializing_if = "<[u32]>::is_empty")]
    pub children: Box<[u32]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<u32>,
    /// The DOM element behind this node: one identity across views.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeId>,
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub ref_: Option<Box<str>>,
    #[serde(default)]
    pub states: States,
    /// Rare (links, textboxes, set-apart labels): boxed, so the other
    /// nodes do not carry three empty strings each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub props: Option<Box<Props>>,
    /// The element itself has `aria-hidden="true"` (printed in `ai` mode).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub aria_hidden: bool,
    /// Computed `cursor: pointer`; printed after the ref on the outermost such node.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cursor_pointer: bool,
    /// A control a person cannot see (printed `[invisible]`, in views of
    /// what is seen only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub invisible: bool,
}

// A node per element, held while the tree is rendered: its width is most
// of the snapshot's memory on dense pages.
const _: () = assert!(std::mem::size_of::<AriaNode>() <= 104);

impl AriaNode {
    /// The text of a text node.
    pub fn text(&self) -> Option<&str> {
        self.is_text.then_some(&*self.name)
    }
}

/// An element that takes a ref, in numbering order. Nodes removed by
/// distillation keep their slot (`index: None`) so numbers match Playwright's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RefSlot {
    /// The frame the element is in: 0 for the page, `n` for the frame whose
    /// refs read `fNe…` (a live capture's iframes).
    #[serde(default)]
    pub frame: u32,
    /// The arena index of the printed node, if it survived distillation
    /// (its `ref_` holds the ref the slot numbered).
    pub index: Option<u32>,
}

/// A snapshot tree: a flat arena in document (pre)order, root at 0.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AriaTree {
    pub mode: Mode,
    pub nodes: Vec<AriaNode>,
    pub ref_slots: Vec<RefSlot>,
}

/// Build the snapshot tree of `root` (usually [`Page::body`]). Refs are not
/// assigned yet: see [`assign_refs`].
pub fn build(page: &Page, root: NodeId, mode: Mode) -> AriaTree {
    build_for(page, root, mode, false)
}

/// [`build`], or with `seen_only` the tree of what a person can see: text
/// no one sees left out, controls no one sees marked, an `aria-label`
/// that says something else than the visible words set apart. Refs
/// number as in Playwright's tree either way.
pub fn build_for(page: &Page, root: NodeId, mode: Mode, seen_only: bool) -> AriaTree {
    // The per-node tables (roles, styles, names) go before the tree is
    // distilled and laid out, which hold it twice for a while.
    let mut raw = {
        let dom = dom::DomIndex::new(page);
        let roles = roles::Roles::compute(&dom);
        let styles = style::Styles::compute(page, &dom);
        let names = name::Names::new(&dom, &roles, &styles);
        let builder = tree::Builder {
            page,
            dom: &dom,
            roles: &roles,
            styles: &styles,
            names,
            mode,
            // Nothing focused: the document's active element is <body>.
            active: page.body(),
            seen_only,
        };
        builder.build(root)
    };
    distill::distill(&mut raw, mode);
    flatten(raw, mode)
}

/// Build, number, render: what Playwright prints for
/// `page` (its body) on a fresh page.
pub fn snapshot(page: &Page, mode: Mode) -> String {
    let Some(body) = page.body().or_else(|| page.document_element()) else {
        return String::new();
    };
    let mut tree = build(page, body, mode);
    if mode == Mode::Ai {
        assign_refs(&mut tree);
    }
    render_yaml(&tree)
}

/// The distilled raw tree laid out as the public arena, in preorder.
fn flatten(raw: tree::Raw, mode: Mode) -> AriaTree {
    use tree::RawChild;
    let len = laid_out_len(&raw.nodes);
    // Each raw node is dropped as it is laid out (collected in place), and
    // the laid-out table grows by half up to its exact length: the two
    // tables are never both whole.
    let mut raw_nodes: Vec<Option<Box<tree::RawNode>>> = raw.nodes.into_iter().map(Some).collect();
    let mut index_of: Vec<Option<u32>> = vec![None; raw_nodes.len()];
    let mut nodes: Vec<AriaNode> = Vec::new();
    let push = |nodes: &mut Vec<AriaNode>, n: AriaNode| {
        if nodes.len() == nodes.capacity() {
            let more = (nodes.len() / 2)
                .max(16)
                .min(len - nodes.len().min(len))
                .max(1);
            nodes.reserve_exact(more);
        }
        nodes.push(n);
    };
    // A frame per open node: its place, the children still to lay out and
    // the places of those laid out. As deep as the tree, where a stack of
    // the children waiting would be as wide as its widest list.
    let mut frames: Vec<(u32, std::vec::IntoIter<RawChild>, Vec<u32>)> = Vec::new();
    let mut lay_out = |r: u32, parent: Option<u32>, nodes: &mut Vec<AriaNode>| {
        let idx = nodes.len() as u32;
        index_of[r as usize] = Some(idx);
        let Some(n) = raw_nodes.get_mut(r as usize).and_then(Option::take) else {
            return (idx, Vec::new().into_iter(), Vec::new());
        };
        let n = *n;
        push(
            nodes,
            AriaNode {
                role: n.role(),
                name: n.name,
                is_text: false,
                children: Box::default(),
                parent,
                node: n.el,
                ref_: None,
                states: n.states,
                props: n.props.filter(|p| **p != Props::default()),
                aria_hidden: n.aria_hidden,
                cursor_pointer: n.cursor_pointer,
                invisible: n.invisible,
            },
        );
        let places = Vec::with_capacity(n.children.len());
        (idx, n.children.into_iter(), places)
    };
    frames.push(lay_out(0, None, &mut nodes));
    while let Some((parent, kids, _)) = frames.last_mut() {
        let parent = *parent;
        let Some(kid) = kids.next() else {
            if let Some((idx, _, places)) = frames.pop() {
                nodes[idx as usize].children = places.into_boxed_slice();
            }
            continue;
        };
        let idx = nodes.len() as u32;
        match kid {
            RawChild::Text(t) => push(
                &mut nodes,
                AriaNode {
                    role: "text",
                    name: t.into_boxed_str(),
                    is_text: true,
                    parent: Some(parent),
                    ..AriaNode::default()
                },
            ),
            RawChild::Node(c) => {
                let frame = lay_out(c, Some(parent), &mut nodes);
                if let Some((_, _, places)) = frames.last_mut() {
                    places.push(idx);
                }
                frames.push(frame);
                continue;
            }
        }
        if let Some((_, _, places)) = frames.last_mut() {
            places.push(idx);
        }
    }
    let ref_slots = raw
        .ref_slots
        .into_iter()
        .map(|(r, frame)| RefSlot {
            frame,
            index: index_of[r as usize],
        })
        .collect();
    AriaTree {
        mode,
        nodes,
        ref_slots,
    }
}

/// How many nodes [`flatten`] lays out: the raw nodes reachable from the
/// root (distillation leaves the ones it spliced out unreachable) and
/// their texts.
fn laid_out_len(raw_nodes: &[Box<tree::RawNode>]) -> usize {
    let mut len = 0;
    let mut stack = vec![0u32];
    while let Some(r) = stack.pop() {
        len += 1;
        let Some(n) = raw_nodes.get(r as usize) else {
            continue;
        };
        for k in &n.children {
            match k {
                tree::RawChild::Node(c) => stack.push(*c),
                tree::RawChild::Text(_) => len += 1,
            }
        }
    }
    len
}
