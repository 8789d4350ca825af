//! The page model: one parsed document as an arena of nodes in document order.
//!
//! Every view is a function of a [`Page`]. The arena is immutable once built and
//! numbered in preorder, which buys three things the views lean on:
//! - a [`NodeId`] is stable for a page version and orders nodes as the document does;
//! - the subtree of `n` is the contiguous id range `n..subtree_end(n)`, so "every
//!   descendant" is a slice walk, never a recursion;
//! - a `Page` is `Send + Sync` and can be shared by a server behind an `Arc`.

mod build;
mod builder;
pub mod capture;
mod direct;
mod layout;
mod raw_text;
mod serialize;
pub(crate) mod tags;
mod tokenize;
pub mod unseen;

pub use builder::{BuilderId, PageBuilder};
pub use layout::{
    ComputedPaint, GeneratedContent, InlineStyle, Layout, LayoutBox, Overflow, Paint, Position,
    StaticVisibility,
};
pub use markup5ever::{LocalName, Namespace, QualName, local_name, ns};
pub use serialize::Replacement;
pub use unseen::Unseen;

use std::fmt;
use std::num::NonZeroU32;

/// A node's index in its [`Page`]: its position in document (pre)order.
///
/// Stored as the index plus one, so `Option<NodeId>` is 4 bytes: a node
/// keeps five such links, and pages run to millions of nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(NonZeroU32);

impl NodeId {
    /// The document node; every page has it.
    pub const DOCUMENT: NodeId = NodeId::new(0);

    /// The node at `index` (`u32::MAX` stands for `u32::MAX - 1`: no page
    /// holds that many nodes). Ids a person or agent typed go through
    /// [`NodeId::try_new`], so an error names the id they gave.
    pub const fn new(index: u32) -> NodeId {
        match NonZeroU32::new(index.saturating_add(1)) {
            Some(n) => NodeId(n),
            None => unreachable!(),
        }
    }

    /// The node at `index`, if an id can be that large (all but `u32::MAX`).
    pub const fn try_new(index: u32) -> Option<NodeId> {
        match NonZeroU32::new(index.wrapping_add(1)) {
            Some(n) => Some(NodeId(n)),
            None => None,
        }
    }

    pub fn index(self) -> usize {
        self.get() as usize
    }

    /// The index as the `u32` it is stored in.
    pub const fn get(self) -> u32 {
        self.0.get() - 1
    }
}

// `Option<NodeId>` takes the niche; five links per node depend on it.
const _: () = assert!(std::mem::size_of::<Option<NodeId>>() == 4);
const _: () = assert!(std::mem::size_of::<Node>() <= 56);

impl serde::Serialize for NodeId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.get())
    }
}

impl<'de> serde::Deserialize<'de> for NodeId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<NodeId, D::Error> {
        let n = u32::deserialize(d)?;
        NodeId::try_new(n)
            .ok_or_else(|| serde::de::Error::custom(format!("{n} is past the last node id")))
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.get())
    }
}

/// An attribute with its (possibly namespaced) name, in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attr {
    pub name: QualName,
    /// Boxed (16 bytes, not 24): values are never changed in place.
    pub value: Box<str>,
}

#[derive(Clone, Debug)]
pub struct ElementData {
    pub name: QualName,
    /// Boxed (16 bytes, not 24): a page's attributes are fixed once parsed.
    pub attrs: Box<[Attr]>,
    /// Nodes under a `<template>` are its template contents. They are kept as
    /// children so chunk/serialization see them, but they are inert: never
    /// matched by selectors and never rendered.
    pub is_template: bool,
}

impl ElementData {
    /// Value of the attribute `name` in no namespace.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.name.ns == ns!() && &*a.name.local == name)
            .map(|a| &*a.value)
    }

    pub fn has_attr(&self, name: &str) -> bool {
        self.attr(name).is_some()
    }

    pub fn local_name(&self) -> &str {
        &self.name.local
    }

    pub fn is_html(&self) -> bool {
        self.name.ns == ns!(html)
    }

    pub fn id(&self) -> Option<&str> {
        self.attr_atom(&local_name!("id")).filter(|v| !v.is_empty())
    }

    /// The class list, split on ASCII whitespace as the DOM does.
    pub fn classes(&self) -> impl Iterator<Item = &str> {
        self.attr_atom(&local_name!("class"))
            .unwrap_or("")
            .split_ascii_whitespace()
    }

    /// [`Self::attr`] by interned name: names compare as numbers, not text
    /// (every selector and index asks each element for its id and classes).
    fn attr_atom(&self, name: &LocalName) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.name.ns == ns!() && a.name.local == *name)
            .map(|a| &*a.value)
    }
}

#[derive(Clone, Debug)]
pub enum NodeData {
    Document,
    Doctype {
        name: Box<str>,
    },
    Element(Box<ElementData>),
    /// Strings are boxed (16 bytes, not 24): every node carries this enum.
    Text(Box<str>),
    Comment(Box<str>),
    /// Boxed: rare, and two strings inline would grow every node.
    ProcessingInstruction(Box<ProcessingInstruction>),
}

#[derive(Clone, Debug)]
pub struct ProcessingInstruction {
    pub target: String,
    pub data: String,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub parent: Option<NodeId>,
    pub first_child: Option<NodeId>,
    pub prev_sibling: Option<NodeId>,
    pub next_sibling: Option<NodeId>,
    /// One past the last descendant: the subtree is `self_id..subtree_end`.
    pub subtree_end: NodeId,
    /// Distance from the document node (the document is 0, `<html>` is 1).
    /// 16 bits: the parser stops nesting at [`build::MAX_TREE_DEPTH`], and a
    /// node per element is most of a page's memory (48 bytes, not 56). A
    /// deeper captured tree saturates.
    pub depth: u16,
    /// Inside a `<template>`'s contents.
    pub inert: bool,
    pub data: NodeData,
}

// A node per DOM node and an element record per element are most of a
// page's memory, and every view walks them: keep them narrow.
#[cfg(target_pointer_width = "64")]
const _: () =
    assert!(std::mem::size_of::<Node>() <= 48 && std::mem::size_of::<ElementData>() <= 48);

/// A parsed page: the node arena plus what we know of its rendering.
#[derive(Clone)]
pub struct Page {
    nodes: Vec<Node>,
    /// Real layout from a live browser, one entry per node; `None` for static HTML.
    layout: Option<Vec<Option<Layout>>>,
    /// Static visibility computed from markup alone, one entry per node.
    visibility: Vec<StaticVisibility>,
    quirks: bool,
    /// Why a person cannot see each node's text, decided on first ask.
    unseen: std::sync::OnceLock<Vec<Option<Unseen>>>,
}

/// The heap a node's data holds beyond the node itself.
fn node_heap_bytes(data: &NodeData) -> usize {
    match data {
        NodeData::Document => 0,
        NodeData::Doctype { name } => name.len(),
        NodeData::Text(t) | NodeData::Comment(t) => t.len(),
        NodeData::Element(e) => {
            std::mem::size_of::<ElementData>()
                + e.attrs.len() * std::mem::size_of::<Attr>()
                + e.attrs.iter().map(|a| a.value.len()).sum::<usize>()
        }
        NodeData::ProcessingInstruction(p) => {
            std::mem::size_of::<ProcessingInstruction>() + p.target.capacity() + p.data.capacity()
        }
    }
}

impl fmt::Debug for Page {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Page")
            .field("nodes", &self.nodes.len())
            .field("has_layout", &self.layout.is_some())
            .finish()
    }
}

impl Page {
    /// Parse an HTML document. Never fails: the HTML5 tree builder recovers from
    /// every error the way browsers do.
    pub fn parse(html: &str) -> Page {
        build::parse_document(html)
    }

    /// [`Page::parse`] with html5ever's own tokenizer in place of ours: the
    /// reference the fuzzers hold the parse to. Not behind a feature: one
    /// member turning a feature on would split the workspace's build of the
    /// core from the binary's.
    #[doc(hidden)]
    pub fn parse_with_html5ever_tokenizer(html: &str) -> Page {
        build::parse_with_html5ever_tokenizer(html)
    }

    /// Decode bytes as a browser would (BOM, header charset, `<meta charset>`,
    /// sniffing), then parse.
    pub fn parse_bytes(bytes: &[u8], content_type: Option<&str>) -> Page {
        let decoded = crate::decode::decode_html(bytes, content_type);
        Page::parse(&decoded.text)
    }

    pub(crate) fn from_parts(nodes: Vec<Node>, quirks: bool) -> Page {
        let visibility = layout::compute_static_visibility(&nodes);
        Page {
            nodes,
            layout: None,
            visibility,
            quirks,
            unseen: std::sync::OnceLock::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// About how many bytes of heap the page holds: its nodes, their
    /// strings and attributes, and what was computed of it so far. For a
    /// host whose garbage collector is told what a page costs.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let strings: usize = self.nodes.iter().map(|n| node_heap_bytes(&n.data)).sum();
        let computed = self
            .layout
            .as_ref()
            .map_or(0, |l| l.capacity() * size_of::<Option<Layout>>())
            + self
                .unseen
                .get()
                .map_or(0, |u| u.capacity() * size_of::<Option<Unseen>>());
        self.nodes.capacity() * size_of::<Node>()
            + self.visibility.capacity() * size_of::<StaticVisibility>()
            + strings
            + computed
    }

    pub fn quirks_mode(&self) -> bool {
        self.quirks
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The node if `id` is in range: for ids that come from outside (requests, CLI).
    pub fn get(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.index())
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn element(&self, id: NodeId) -> Option<&ElementData> {
        match &self.nodes.get(id.index())?.data {
            NodeData::Element(e) => Some(e),
            _ => None,
        }
    }

    pub fn is_element(&self, id: NodeId) -> bool {
        self.element(id).is_some()
    }

    /// Local name of an element (`"div"`), `None` for other nodes.
    pub fn tag(&self, id: NodeId) -> Option<&str> {
        self.element(id).map(|e| e.local_name())
    }

    pub fn text(&self, id: NodeId) -> Option<&str> {
        match &self.nodes.get(id.index())?.data {
            NodeData::Text(t) => Some(t),
            _ => None,
        }
    }

    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.node(id).parent
    }

    /// The last child of `id`: the ancestor-or-self of its last descendant
    /// whose parent is `id`. Found by climbing (at most the page's depth)
    /// rather than kept in every node, for the few callers that ask.
    pub fn last_child(&self, id: NodeId) -> Option<NodeId> {
        self.node(id).first_child?;
        let mut n = NodeId::try_new(self.node(id).subtree_end.get().checked_sub(1)?)?;
        while let Some(p) = self.node(n).parent {
            if p == id {
                return Some(n);
            }
            n = p;
        }
        None
    }

    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            page: self,
            next: self.node(id).first_child,
        }
    }

    pub fn element_children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.children(id).filter(|&c| self.is_element(c))
    }

    /// Ancestors from the parent up to the document node.
    pub fn ancestors(&self, id: NodeId) -> Ancestors<'_> {
        Ancestors {
            page: self,
            next: self.node(id).parent,
        }
    }

    /// The node and all its descendants, in document order (a slice walk).
    pub fn subtree(&self, id: NodeId) -> impl Iterator<Item = NodeId> + use<> {
        (id.get()..self.node(id).subtree_end.get()).map(NodeId::new)
    }

    /// Strict descendants in document order.
    pub fn descendants(&self, id: NodeId) -> impl Iterator<Item = NodeId> + use<> {
        (id.get() + 1..self.node(id).subtree_end.get()).map(NodeId::new)
    }

    pub fn is_ancestor_of(&self, ancestor: NodeId, node: NodeId) -> bool {
        ancestor < node && node < self.node(ancestor).subtree_end
    }

    /// The `<html>` element, if any.
    pub fn document_element(&self) -> Option<NodeId> {
        self.element_children(NodeId::DOCUMENT).next()
    }

    /// The `<body>` (or frameset) element, if any.
    pub fn body(&self) -> Option<NodeId> {
        let html = self.document_element()?;
        self.element_children(html)
            .find(|&c| matches!(self.tag(c), Some("body") | Some("frameset")))
    }

    pub fn head(&self) -> Option<NodeId> {
        let html = self.document_element()?;
        self.element_children(html)
            .find(|&c| self.tag(c) == Some("head"))
    }

    /// A frame element (`<iframe>`, `<frame>`) holding the document a live
    /// capture took in for it (or the one-line note saying why it could not
    /// be read). Parsed HTML never has one: its `<iframe>` holds only
    /// fallback text, its `<frame>` nothing.
    pub fn is_captured_frame(&self, id: NodeId) -> bool {
        self.element(id)
            .is_some_and(|e| e.is_html() && matches!(e.local_name(), "iframe" | "frame"))
            && self.element_children(id).next().is_some()
    }

    /// `<title>` text, whitespace-collapsed.
    pub fn title(&self) -> Option<String> {
        let t = self
            .descendants(NodeId::DOCUMENT)
            .find(|&n| self.tag(n) == Some("title") && !self.node(n).inert)?;
        let s = collapse_whitespace(&self.text_content(t));
        (!s.is_empty()).then_some(s)
    }

    /// The `href` of the first `<base>` element with one.
    pub fn base_href(&self) -> Option<&str> {
        self.descendants(NodeId::DOCUMENT)
            .filter(|&n| self.tag(n) == Some("base") && !self.node(n).inert)
            .find_map(|n| self.element(n)?.attr("href"))
    }

    /// Concatenated text of all descendant text nodes (DOM `textContent`).
    pub fn text_content(&self, id: NodeId) -> String {
        let mut out = String::new();
        for n in self.subtree(id) {
            if let NodeData::Text(t) = &self.node(n).data {
                out.push_str(t);
            }
        }
        out
    }

    /// The real layout of a node when a live browser captured the page.
    pub fn layout(&self, id: NodeId) -> Option<&Layout> {
        self.layout.as_ref()?.get(id.index())?.as_ref()
    }

    pub fn has_layout(&self) -> bool {
        self.layout.is_some()
    }

    /// Attach a browser capture's layout (one slot per node, in node order).
    pub fn set_layout(&mut self, layout: Vec<Option<Layout>>) {
        debug_assert_eq!(layout.len(), self.nodes.len());
        self.layout = Some(layout);
        self.unseen = std::sync::OnceLock::new();
    }

    /// What markup alone says about a node's visibility.
    pub fn static_visibility(&self, id: NodeId) -> StaticVisibility {
        self.visibility[id.index()]
    }

    /// Why a person cannot see this rendered node, if they cannot: it is
    /// off the page, clipped away, too small, transparent, the colour of its
    /// background or covered ([`Unseen`]). Text of this kind is left out of
    /// the views an agent reads, or marked.
    pub fn unseen(&self, id: NodeId) -> Option<Unseen> {
        self.unseen
            .get_or_init(|| unseen::compute(self))
            .get(id.index())
            .copied()
            .flatten()
    }

    /// Rendered and seen: what a person reading the page can see.
    pub fn is_seen(&self, id: NodeId) -> bool {
        self.is_rendered(id) && self.unseen(id).is_none()
    }

    /// Whether nothing in this node's subtree shows: it is not seen, and it
    /// is not a `<slot>` a live capture has no box for. A slot is
    /// `display: contents`: the capture lists its assigned nodes under it,
    /// in the browser's flat tree, and they render in boxes of their own.
    /// Any other element without a box is taken as `display: none` (a
    /// capture cannot tell the two apart, and text has no box to judge).
    pub fn hides_subtree(&self, id: NodeId) -> bool {
        let open_slot =
            self.has_layout() && self.layout(id).is_none() && self.tag(id) == Some("slot");
        !open_slot && !self.is_seen(id)
    }

    /// Whether the node is rendered: from the real layout when there is one,
    /// otherwise from markup.
    pub fn is_rendered(&self, id: NodeId) -> bool {
        match self.layout(id) {
            Some(l) => l.rendered,
            None if self.has_layout() => {
                // Live capture without a box for this node: text nodes take
                // their parent's word; elements without a box are not rendered.
                match self.node(id).data {
                    NodeData::Text(_) => self
                        .parent(id)
                        .is_some_and(|p| self.layout(p).is_some_and(|l| l.rendered)),
                    _ => false,
                }
            }
            None => !self.visibility[id.index()].hidden(),
        }
    }
}

pub struct Children<'a> {
    page: &'a Page,
    next: Option<NodeId>,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        let cur = self.next?;
        self.next = self.page.node(cur).next_sibling;
        Some(cur)
    }
}

pub struct Ancestors<'a> {
    page: &'a Page,
    next: Option<NodeId>,
}

impl Iterator for Ancestors<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        let cur = self.next?;
        self.next = self.page.node(cur).parent;
        Some(cur)
    }
}

/// Collapse runs of ASCII whitespace to one space and trim: how text reads on screen.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_ascii_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}
