//! Building a [`Page`] with html5ever's spec-compliant tree builder.
//!
//! html5ever drives a `TreeSink`; ours fills a flat arena of linked nodes. When
//! parsing ends we renumber the arena in preorder (iteratively: pages nest
//! 100,000 deep in fuzzers) so ids follow document order and subtrees are ranges.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ops::{Index, IndexMut};
use std::rc::Rc;

use html5ever::interface::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{EndTag, StartTag, Tag, TagToken, Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{Attribute, ExpandedName, QualName};
use markup5ever::{LocalName, local_name, ns};

use super::{Attr, ElementData, Node, NodeData, NodeId, Page, ProcessingInstruction};

/// A builder node's index: 32 bits, as a page's ids are, so the five links
/// of every node cost half what `usize` would while the page is built.
pub(super) type Idx = u32;

/// The builder's nodes, in creation order, in blocks of fixed size: a
/// growing `Vec` would hold up to twice the nodes' size and copy them all
/// at each doubling, the parse's high-water mark on dense pages.
pub(super) struct Arena {
    blocks: Vec<Vec<BNode>>,
    len: usize,
}

const BLOCK_BITS: u32 = 12;
const BLOCK: usize = 1 << BLOCK_BITS;

impl Arena {
    pub(super) fn new() -> Self {
        let mut arena = Arena {
            blocks: Vec::new(),
            len: 0,
        };
        arena.push(BNode::new(BData::Document));
        arena
    }

    pub(super) fn push(&mut self, node: BNode) -> Idx {
        if self.len.is_multiple_of(BLOCK) {
            self.blocks.push(Vec::with_capacity(BLOCK));
        }
        if let Some(block) = self.blocks.last_mut() {
            block.push(node);
        }
        self.len += 1;
        (self.len - 1) as Idx
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }
}

impl Index<Idx> for Arena {
    type Output = BNode;
    fn index(&self, i: Idx) -> &BNode {
        &self.blocks[(i >> BLOCK_BITS) as usize][i as usize % BLOCK]
    }
}

impl IndexMut<Idx> for Arena {
    fn index_mut(&mut self, i: Idx) -> &mut BNode {
        &mut self.blocks[(i >> BLOCK_BITS) as usize][i as usize % BLOCK]
    }
}

pub(super) enum BData {
    Document,
    Fragment,
    Doctype(String),
    Element {
        data: Box<ElementData>,
        template_contents: Option<Idx>,
    },
    Text(String),
    Comment(String),
    Pi(Box<ProcessingInstruction>),
}

/// An optional link between builder nodes in 4 bytes, where an
/// `Option<Idx>` takes 8: five per node, held for every node until the
/// page is built, were a tenth of the parse's peak on dense pages.
/// `Idx::MAX` is none; no arena gets near it.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Link(Idx);

impl Link {
    const NONE: Link = Link(Idx::MAX);

    fn get(self) -> Option<Idx> {
        (self != Link::NONE).then_some(self.0)
    }

    fn take(&mut self) -> Option<Idx> {
        std::mem::replace(self, Link::NONE).get()
    }
}

impl From<Option<Idx>> for Link {
    fn from(i: Option<Idx>) -> Link {
        i.map_or(Link::NONE, Link)
    }
}

pub(super) struct BNode {
    parent: Link,
    first_child: Link,
    last_child: Link,
    prev: Link,
    next: Link,
    /// Depth when last attached (descendants of a moved subtree keep theirs:
    /// only the depth guard reads it, and an estimate serves it).
    depth: u32,
    data: BData,
}

impl BNode {
    pub(super) fn new(data: BData) -> Self {
        BNode {
            parent: Link::NONE,
            first_child: Link::NONE,
            last_child: Link::NONE,
            prev: Link::NONE,
            next: Link::NONE,
            depth: 0,
            data,
        }
    }
}

pub(super) struct Sink {
    nodes: RefCell<Arena>,
    quirks: Cell<bool>,
    /// Tree depth of the element inserted last: how the depth guard knows the
    /// page is nesting past the limit.
    last_element_depth: Cell<u32>,
}

/// html5ever asks for element names constantly (every scope check walks the
/// stack of open elements), so a handle carries its element's name and
/// answers without touching the arena.
pub struct Handle {
    idx: Idx,
    name: QualName,
}

fn handle(idx: Idx, name: QualName) -> Rc<Handle> {
    Rc::new(Handle { idx, name })
}

fn no_name() -> QualName {
    QualName::new(None, ns!(), local_name!(""))
}

impl Sink {
    fn push(&self, data: BData) -> Idx {
        self.nodes.borrow_mut().push(BNode::new(data))
    }

    fn detach(nodes: &mut Arena, n: Idx) {
        let (parent, prev, next) = {
            let node = &mut nodes[n];
            (node.parent.take(), node.prev.take(), node.next.take())
        };
        match next {
            Some(nx) => nodes[nx].prev = prev.into(),
            None => {
                if let Some(p) = parent {
                    nodes[p].last_child = prev.into();
                }
            }
        }
        match prev {
            Some(pv) => nodes[pv].next = next.into(),
            None => {
                if let Some(p) = parent {
                    nodes[p].first_child = next.into();
                }
            }
        }
    }

    pub(super) fn append_child(nodes: &mut Arena, parent: Idx, child: Idx) {
        Self::detach(nodes, child);
        let last = nodes[parent].last_child;
        nodes[child].depth = nodes[parent].depth + 1;
        nodes[child].parent = Link(parent);
        nodes[child].prev = last;
        match last.get() {
            Some(l) => nodes[l].next = Link(child),
            None => nodes[parent].first_child = Link(child),
        }
        nodes[parent].last_child = Link(child);
    }

    fn insert_before(nodes: &mut Arena, sibling: Idx, child: Idx) {
        Self::detach(nodes, child);
        let parent = nodes[sibling].parent;
        let prev = nodes[sibling].prev;
        nodes[child].depth = nodes[sibling].depth;
        nodes[child].parent = parent;
        nodes[child].prev = prev;
        nodes[child].next = Link(sibling);
        nodes[sibling].prev = Link(child);
        match prev.get() {
            Some(p) => nodes[p].next = Link(child),
            None => {
                if let Some(par) = parent.get() {
                    nodes[par].first_child = Link(child);
                }
            }
        }
    }
}

fn convert_attrs(attrs: Vec<Attribute>) -> Box<[Attr]> {
    attrs
        .into_iter()
        .map(|a| Attr {
            name: a.name,
            value: Box::from(&*a.value),
        })
        .collect()
}

impl TreeSink for Sink {
    type Handle = Rc<Handle>;
    type Output = Page;
    type ElemName<'a> = &'a QualName;

    fn finish(self) -> Page {
        finalize(self.nodes.into_inner(), self.quirks.get())
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Rc<Handle> {
        handle(0, no_name())
    }

    fn elem_name<'a>(&'a self, target: &'a Rc<Handle>) -> &'a QualName {
        &target.name
    }

    fn create_element(
        &self,
        name: QualName,
        attrs: Vec<Attribute>,
        flags: ElementFlags,
    ) -> Rc<Handle> {
        let template_contents = flags.template.then(|| self.push(BData::Fragment));
        let is_template = template_contents.is_some();
        let data = Box::new(ElementData {
            name: name.clone(),
            attrs: convert_attrs(attrs),
            is_template,
        });
        handle(
            self.push(BData::Element {
                data,
                template_contents,
            }),
            name,
        )
    }

    fn create_comment(&self, text: StrTendril) -> Rc<Handle> {
        handle(self.push(BData::Comment(String::from(&*text))), no_name())
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> Rc<Handle> {
        let pi = BData::Pi(Box::new(ProcessingInstruction {
            target: String::from(&*target),
            data: String::from(&*data),
        }));
        handle(self.push(pi), no_name())
    }

    fn append(&self, parent: &Rc<Handle>, child: NodeOrText<Rc<Handle>>) {
        let parent = &parent.idx;
        let mut nodes = self.nodes.borrow_mut();
        match child {
            NodeOrText::AppendNode(n) => {
                Self::append_child(&mut nodes, *parent, n.idx);
                if matches!(nodes[n.idx].data, BData::Element { .. }) {
                    self.last_element_depth.set(nodes[n.idx].depth);
                }
            }
            NodeOrText::AppendText(text) => {
                if let Some(last) = nodes[*parent].last_child.get()
                    && let BData::Text(t) = &mut nodes[last].data
                {
                    t.push_str(&text);
                    return;
                }
                let n = nodes.push(BNode::new(BData::Text(String::from(&*text))));
                Self::append_child(&mut nodes, *parent, n);
            }
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &Rc<Handle>,
        prev_element: &Rc<Handle>,
        child: NodeOrText<Rc<Handle>>,
    ) {
        let has_parent = self.nodes.borrow()[element.idx].parent.get().is_some();
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        _public: StrTendril,
        _system: StrTendril,
    ) {
        let n = self.push(BData::Doctype(String::from(&*name)));
        Self::append_child(&mut self.nodes.borrow_mut(), 0, n);
    }

    fn get_template_contents(&self, target: &Rc<Handle>) -> Rc<Handle> {
        match &self.nodes.borrow()[target.idx].data {
            BData::Element {
                template_contents: Some(t),
                ..
            } => handle(*t, no_name()),
            // The tree builder promises to ask only for templates.
            _ => target.clone(),
        }
    }

    fn same_node(&self, x: &Rc<Handle>, y: &Rc<Handle>) -> bool {
        x.idx == y.idx
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.quirks.set(mode == QuirksMode::Quirks);
    }

    fn append_before_sibling(&self, sibling: &Rc<Handle>, new_node: NodeOrText<Rc<Handle>>) {
        let sibling = &sibling.idx;
        let mut nodes = self.nodes.borrow_mut();
        match new_node {
            NodeOrText::AppendNode(n) => Self::insert_before(&mut nodes, *sibling, n.idx),
            NodeOrText::AppendText(text) => {
                if let Some(prev) = nodes[*sibling].prev.get()
                    && let BData::Text(t) = &mut nodes[prev].data
                {
                    t.push_str(&text);
                    return;
                }
                let n = nodes.push(BNode::new(BData::Text(String::from(&*text))));
                Self::insert_before(&mut nodes, *sibling, n);
            }
        }
    }

    fn add_attrs_if_missing(&self, target: &Rc<Handle>, attrs: Vec<Attribute>) {
        let mut nodes = self.nodes.borrow_mut();
        if let BData::Element { data, .. } = &mut nodes[target.idx].data {
            let mut all = std::mem::take(&mut data.attrs).into_vec();
            for a in attrs {
                if !all.iter().any(|e| e.name == a.name) {
                    all.push(Attr {
                        name: a.name,
                        value: Box::from(&*a.value),
                    });
                }
            }
            data.attrs = all.into_boxed_slice();
        }
    }

    fn remove_from_parent(&self, target: &Rc<Handle>) {
        Self::detach(&mut self.nodes.borrow_mut(), target.idx);
    }

    fn reparent_children(&self, node: &Rc<Handle>, new_parent: &Rc<Handle>) {
        let mut nodes = self.nodes.borrow_mut();
        while let Some(c) = nodes[node.idx].first_child.get() {
            Self::append_child(&mut nodes, new_parent.idx, c);
        }
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Rc<Handle>) -> bool {
        let nodes = self.nodes.borrow();
        match &nodes[handle.idx].data {
            BData::Element { data, .. } => {
                data.name.expanded()
                    == ExpandedName {
                        ns: &ns!(mathml),
                        local: &local_name!("annotation-xml"),
                    }
                    && data.attrs.iter().any(|a| {
                        &*a.name.local == "encoding"
                            && (a.value.eq_ignore_ascii_case("text/html")
                                || a.value.eq_ignore_ascii_case("application/xhtml+xml"))
                    })
            }
            _ => false,
        }
    }
}

/// Renumber the builder arena in preorder, dropping detached nodes, and link it.
fn finalize(b: Arena, quirks: bool) -> Page {
    finalize_with_order(b, quirks).0
}

/// Finalize and also return, for each new id, the builder index it came from
/// (a live capture uses it to carry per-node layout over).
pub(super) fn finalize_with_order(mut b: Arena, quirks: bool) -> (Page, Vec<Idx>) {
    let order = preorder(&b);
    let mut nodes: Vec<Node> = Vec::with_capacity(order.len());
    // Each node's last child while its children are appended (the page
    // keeps no such link: see `Page::last_child`).
    let mut last_child: Vec<Option<NodeId>> = vec![None; order.len()];
    for (i, &(old, parent, inert)) in order.iter().enumerate() {
        let data = match std::mem::replace(&mut b[old].data, BData::Fragment) {
            BData::Document | BData::Fragment => NodeData::Document,
            BData::Doctype(name) => NodeData::Doctype { name: name.into() },
            BData::Element { data, .. } => NodeData::Element(data),
            BData::Text(t) => NodeData::Text(t.into_boxed_str()),
            BData::Comment(t) => NodeData::Comment(t.into()),
            BData::Pi(pi) => NodeData::ProcessingInstruction(pi),
        };
        let id = NodeId::new(i as u32);
        let parent = parent.get().map(NodeId::new);
        let depth = parent.map_or(0, |p| nodes[p.index()].depth.saturating_add(1));
        let mut node = Node {
            parent,
            first_child: None,
            prev_sibling: None,
            next_sibling: None,
            subtree_end: NodeId::new(id.get() + 1),
            depth,
            inert,
            data,
        };
        if let Some(p) = parent {
            match last_child[p.index()].replace(id) {
                Some(l) => {
                    node.prev_sibling = Some(l);
                    nodes[l.index()].next_sibling = Some(id);
                }
                None => nodes[p.index()].first_child = Some(id),
            }
        }
        nodes.push(node);
    }
    for i in (0..nodes.len()).rev() {
        if let Some(l) = last_child[i] {
            nodes[i].subtree_end = nodes[l.index()].subtree_end;
        }
    }
    drop(last_child);
    let old_index = order.iter().map(|&(old, _, _)| old).collect();
    (Page::from_parts(nodes, quirks), old_index)
}

/// The builder's nodes in preorder, each as (builder index, new id of its
/// parent, inert), from a walk with an explicit stack. A template's contents
/// follow its own (normally absent) children, and are inert.
fn preorder(b: &Arena) -> Vec<(Idx, Link, bool)> {
    let mut order: Vec<(Idx, Link, bool)> = Vec::with_capacity(b.len());
    let mut stack: Vec<(Idx, Link, bool)> = vec![(0, Link::NONE, false)];
    let mut kids: Vec<Idx> = Vec::new();
    while let Some((n, parent, inert)) = stack.pop() {
        let new_id = order.len() as u32;
        order.push((n, parent, inert));
        kids.clear();
        let mut c = b[n].first_child.get();
        while let Some(ci) = c {
            kids.push(ci);
            c = b[ci].next.get();
        }
        let mut content_start = kids.len();
        if let BData::Element {
            template_contents: Some(t),
            ..
        } = b[n].data
        {
            content_start = kids.len();
            let mut c = b[t].first_child.get();
            while let Some(ci) = c {
                kids.push(ci);
                c = b[ci].next.get();
            }
        }
        for (i, &k) in kids.iter().enumerate().rev() {
            stack.push((k, Link(new_id), inert || i >= content_start));
        }
    }
    order
}

/// Blink stops nesting at this depth (deeper elements become siblings), and
/// so do we: the tree builder's scope checks walk the stack of open
/// elements, so unbounded nesting costs time quadratic in depth.
pub const MAX_TREE_DEPTH: u32 = 512;

/// Sits between the tokenizer and the tree builder and flattens nesting past
/// [`MAX_TREE_DEPTH`]: a start tag that lands that deep is closed at once
/// (the element keeps its attributes; its content follows it as siblings),
/// and the end tag that would have closed it is dropped.
struct DepthGuard {
    tree: TreeBuilder<Rc<Handle>, Sink>,
    flattened: RefCell<HashMap<LocalName, u32>>,
}

impl TokenSink for DepthGuard {
    type Handle = Rc<Handle>;

    fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<Rc<Handle>> {
        match token {
            TagToken(Tag {
                kind: EndTag,
                ref name,
                ..
            }) => {
                let mut flattened = self.flattened.borrow_mut();
                if let Some(n) = flattened.get_mut(name)
                    && *n > 0
                {
                    *n -= 1;
                    return TokenSinkResult::Continue;
                }
                drop(flattened);
                self.tree.process_token(token, line)
            }
            TagToken(Tag {
                kind: StartTag,
                ref name,
                self_closing,
                ..
            }) => {
                let name = name.clone();
                let before = self.tree.sink.nodes.borrow().len();
                let result = self.tree.process_token(token, line);
                let created = self.tree.sink.nodes.borrow().len() > before;
                if created
                    && matches!(result, TokenSinkResult::Continue)
                    && !self_closing
                    && !super::tags::is_void(&name)
                    && self.tree.sink.last_element_depth.get() >= MAX_TREE_DEPTH
                {
                    let end = Tag {
                        kind: EndTag,
                        name: name.clone(),
                        self_closing: false,
                        attrs: vec![],
                        had_duplicate_attributes: false,
                    };
                    let _ = self.tree.process_token(TagToken(end), line);
                    *self.flattened.borrow_mut().entry(name).or_insert(0) += 1;
                }
                result
            }
            other => self.tree.process_token(other, line),
        }
    }

    fn end(&self) {
        self.tree.end()
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.tree
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

impl super::tokenize::Tokens for DepthGuard {}

fn depth_guard() -> DepthGuard {
    let sink = Sink {
        nodes: RefCell::new(Arena::new()),
        quirks: Cell::new(false),
        last_element_depth: Cell::new(0),
    };
    DepthGuard {
        tree: TreeBuilder::new(sink, TreeBuilderOpts::default()),
        flattened: RefCell::new(HashMap::new()),
    }
}

pub(super) fn parse_document(html: &str) -> Page {
    if let Some(page) = super::direct::parse(html) {
        return page;
    }
    parse_with_tree_builder(html)
}

/// Our tokenizer into html5ever's tree builder: every page
/// [`super::direct`] declines.
pub(super) fn parse_with_tree_builder(html: &str) -> Page {
    let guard = depth_guard();
    super::tokenize::tokenize(html, &guard);
    guard.tree.sink.finish()
}

/// The same page read by html5ever's own tokenizer: what the tests and
/// fuzzers hold [`super::tokenize`] to.
pub(super) fn parse_with_html5ever_tokenizer(html: &str) -> Page {
    use html5ever::tokenizer::{BufferQueue, Tokenizer, TokenizerOpts};
    use markup5ever::interface::TokenizerResult;

    // Its own BOM check runs again each time it resumes after a script, and
    // would drop a U+FEFF that follows one: take the leading one here.
    let opts = TokenizerOpts {
        discard_bom: false,
        ..TokenizerOpts::default()
    };
    let tokenizer = Tokenizer::new(depth_guard(), opts);
    let input = BufferQueue::default();
    input.push_back(StrTendril::from(
        html.strip_prefix('\u{feff}').unwrap_or(html),
    ));
    while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
    tokenizer.end();
    tokenizer.sink.tree.sink.finish()
}
