//! Building the raw snapshot tree (Playwright's `generateAriaTree` walk),
//! before distillation, with an explicit stack.

use std::collections::HashMap;

use crate::page::{NodeData, NodeId, Page};

use super::dom::DomIndex;
use super::js::{normalize_white_space, normalized_chars};
use super::name::Names;
use super::roles::{self, Roles};
use super::states::{self, States};
use super::style::{Display, Styles, input_type};
use super::{Mode, Props};

pub(crate) enum RawChild {
    Node(u32),
    Text(String),
}

pub(crate) struct RawNode {
    /// The role's place ([`roles::role_place`]): a node per
    /// element is held, and a name's pointer and length were a sixth of one.
    role: u8,
    pub name: Box<str>,
    pub children: Vec<RawChild>,
    pub el: Option<NodeId>,
    pub states: States,
    /// Rare (links, textboxes, set-apart labels): boxed, so the other
    /// nodes do not carry three empty strings each.
    pub props: Option<Box<Props>>,
    pub aria_hidden: bool,
    pub cursor_pointer: bool,
    /// Would get a ref: box visible and receives pointer events (`ai` mode only).
    pub has_ref: bool,
    /// A person cannot see it and it is no control: distillation splices
    /// its children in its place (a view of what is seen only).
    pub unseen: bool,
    /// A control a person cannot see: kept, marked `[invisible]`.
    pub invisible: bool,
}

const _: () = assert!(std::mem::size_of::<RawNode>() <= 72);

impl RawNode {
    fn new(role: &'static str) -> RawNode {
        RawNode::with_place(roles::role_place(role))
    }

    fn with_place(role: u8) -> RawNode {
        RawNode {
            role,
            name: Box::default(),
            children: Vec::new(),
            el: None,
            states: States::default(),
            props: None,
            aria_hidden: false,
            cursor_pointer: false,
            has_ref: false,
            unseen: false,
            invisible: false,
        }
    }

    pub fn role(&self) -> &'static str {
        roles::role_name(self.role)
    }

    pub fn has_props(&self) -> bool {
        self.aria_hidden
            || self.props.as_ref().is_some_and(|p| {
                p.url.is_some() || p.placeholder.is_some() || p.invisible_name.is_some()
            })
    }

    pub fn props_mut(&mut self) -> &mut Props {
        self.props.get_or_insert_with(Box::default)
    }
}

pub(crate) struct Raw {
    /// Index 0 is the `fragment` root. Boxed, so laying the tree out
    /// frees each node as it moves, not the whole table at the end: the
    /// raw tree and the laid-out one are never both whole.
    #[allow(clippy::vec_box)]
    pub nodes: Vec<Box<RawNode>>,
    /// Ref'd nodes in creation order: the order refs are numbered in, with
    /// the frame each belongs to (0: the main frame; `n`: refs `fNeM`).
    pub ref_slots: Vec<(u32, u32)>,
    /// For the nodes named from their content, the ref'd nodes whose text
    /// went into the name (`nameFromContentRefs`): few nodes have them.
    pub name_refs: NameRefs,
}

/// For each node named from its content, the ref'd nodes the name came from.
pub(crate) type NameRefs = HashMap<u32, Box<[u32]>>;

pub(crate) struct Builder<'a> {
    pub page: &'a Page,
    pub dom: &'a DomIndex<'a>,
    pub roles: &'a Roles,
    pub styles: &'a Styles,
    pub names: Names<'a>,
    pub mode: Mode,
    pub active: Option<NodeId>,
    /// Only what a person can see ([`Page::unseen`]): unseen text left
    /// out, unseen controls marked, labels that say what the text does
    /// not set apart.
    pub seen_only: bool,
}

/// Put the raw node `c` made for element `node` under `parent`, and number
/// its ref (in `frame`) if it has one.
fn attach(
    w: &mut Walk,
    c: u32,
    e: &crate::page::ElementData,
    node: NodeId,
    parent: u32,
    frame: u32,
) {
    if e.attr("aria-hidden")
        .is_some_and(|v| v.to_lowercase() == "true")
    {
        w.raw.nodes[c as usize].aria_hidden = true;
    }
    drop_blank_before(&mut w.raw.nodes, parent, c);
    push_child(
        &mut w.raw.nodes[parent as usize].children,
        RawChild::Node(c),
    );
    if w.raw.nodes[c as usize].has_ref {
        if let Some(slot) = w.el_to_ref.get_mut(node.index()) {
            *slot = c;
        }
        w.raw.ref_slots.push((c, frame));
    }
}

/// A child onto a raw node's list, grown one place at first, then by half:
/// most nodes hold one or two children, and a list's first growth would
/// reserve four, twice the rest of the node; a list of thousands (a page
/// past the nesting limit, a long flat list) is the build's largest block,
/// and doubling would leave up to half of it empty.
pub(crate) fn push_child(children: &mut Vec<RawChild>, child: RawChild) {
    crate::grow::push_by_half(children, child, 1);
}

/// Text into a raw node's children. Distillation joins adjacent texts into
/// one string and collapses its white space (`merge_string_children`), so
/// text after text is joined here already: a table would otherwise hold a
/// string and a list slot for every cell's spacing until then.
fn push_text(children: &mut Vec<RawChild>, t: &str) {
    match children.last_mut() {
        Some(RawChild::Text(prev)) => prev.push_str(t),
        _ => push_child(children, RawChild::Text(t.to_string())),
    }
}

/// What distillation would drop of a closed node's texts, dropped now:
/// most cells hold one text that is their name, and a row holds the
/// spacing between its cells, a list slot and a string each until then.
/// A lone text that reads as the name goes (`merge_string_children` drops
/// it before anything else looks); so does blank text between children
/// that distillation never removes or unwraps, as it only ever parts
/// texts that come to stand side by side.
fn prune_texts(nodes: &mut [Box<RawNode>], c: u32) {
    let stays = |k: Option<&RawChild>| match k {
        Some(RawChild::Node(k)) => keeps_place(&nodes[*k as usize]),
        Some(RawChild::Text(_)) => false,
        None => keeps_place(&nodes[c as usize]),
    };
    let n = &nodes[c as usize];
    let kids = &n.children;
    let blank = |i: usize| {
        matches!(&kids[i], RawChild::Text(t) if is_blank(t))
            && stays(i.checked_sub(1).and_then(|p| kids.get(p)))
            && stays(kids.get(i + 1))
    };
    let lone_name =
        matches!(kids.as_slice(), [RawChild::Text(t)] if normalized_chars(t).eq(n.name.chars()));
    // Most nodes have nothing to drop: no list is made for them.
    let drop: Vec<bool> = if !lone_name && (0..kids.len()).any(blank) {
        (0..kids.len()).map(blank).collect()
    } else {
        Vec::new()
    };
    let children = &mut nodes[c as usize].children;
    if lone_name {
        *children = Vec::new();
    } else if !drop.is_empty() {
        let mut i = 0;
        children.retain(|_| {
            i += 1;
            !drop[i - 1]
        });
    }
    children.shrink_to_fit();
}

/// [`prune_texts`] as the children come: blank text between two children
/// that keep their place goes before the second is added, so a long list
/// does not hold its spacing until it closes.
fn drop_blank_before(nodes: &mut [Box<RawNode>], parent: u32, c: u32) {
    if !keeps_place(&nodes[c as usize]) {
        return;
    }
    let kids = &nodes[parent as usize].children;
    let Some(RawChild::Text(t)) = kids.last() else {
        return;
    };
    let before = match kids.len().checked_sub(2).map(|i| &kids[i]) {
        Some(RawChild::Node(k)) => keeps_place(&nodes[*k as usize]),
        Some(RawChild::Text(_)) => false,
        None => keeps_place(&nodes[parent as usize]),
    };
    if before && is_blank(t) {
        nodes[parent as usize].children.pop();
    }
}

/// Text that white space normalizing leaves empty.
fn is_blank(t: &str) -> bool {
    normalized_chars(t).next().is_none()
}

/// Whether distillation leaves a raw node where it is: it only removes
/// or unwraps generics, images and what a person cannot see.
fn keeps_place(n: &RawNode) -> bool {
    !n.unseen && n.role() != "generic" && n.role() != "img"
}

/// A block's spacing. White space only separates words within one run of
/// text, and a node's texts are trimmed before anything moves them, so a
/// space after a space or at the start changes nothing and is not kept.
/// After an element it stays: distillation may remove the element, and the
/// space then parts the texts on either side.
fn push_space(children: &mut Vec<RawChild>) {
    match children.last_mut() {
        Some(RawChild::Text(prev)) if !prev.ends_with(super::js::is_js_space) => prev.push(' '),
        Some(RawChild::Node(_)) => push_child(children, RawChild::Text(" ".to_string())),
        _ => {}
    }
}

/// One node to visit, under the raw node `parent`.
#[derive(Clone, Copy)]
struct Visit {
    node: NodeId,
    parent: u32,
    parent_visible: bool,
    /// The frame the node is in (0: the main frame).
    frame: u32,
}

enum Task {
    Visit(Visit),
    /// The children of `under.node` still to visit, in order: one task
    /// while they are visited one by one, where a task each would make the
    /// stack as long as the page's longest list of siblings.
    Children {
        kids: std::vec::IntoIter<NodeId>,
        under: Visit,
    },
    /// After an element's subtree: its closing text and the properties that
    /// need its children done.
    Exit {
        el: NodeId,
        target: u32,
        created: Option<u32>,
        block: bool,
    },
}

/// The state of one walk: the tree built so far and the tasks left.
struct Walk {
    raw: Raw,
    stack: Vec<Task>,
    visited: Vec<bool>,
    /// Per page node: the raw node with a ref made for it (0: none; the
    /// root has no element). Empty outside `ai` mode, which numbers none.
    el_to_ref: Vec<u32>,
    /// The elements each raw node's name was taken from.
    name_sources: HashMap<u32, Vec<NodeId>>,
    frames: FrameNumbers,
}

impl Builder<'_> {
    pub fn build(mut self, root: NodeId) -> Raw {
        let page = self.page;
        // At most a node per element (frames and owned elements elsewhere
        // in the arena may add a few): sized once, not by doubling.
        let end = page.node(root).subtree_end.get();
        let elements = (root.get()..end)
            .filter(|&n| page.element(NodeId::new(n)).is_some())
            .count();
        let mut nodes = Vec::with_capacity(elements + 1);
        nodes.push(Box::new(RawNode::new("fragment")));
        let mut w = Walk {
            raw: Raw {
                nodes,
                ref_slots: Vec::new(),
                name_refs: HashMap::new(),
            },
            stack: vec![Task::Visit(Visit {
                node: root,
                parent: 0,
                parent_visible: true,
                frame: 0,
            })],
            visited: vec![false; page.len()],
            el_to_ref: if self.mode == Mode::Ai {
                vec![0; page.len()]
            } else {
                Vec::new()
            },
            name_sources: HashMap::new(),
            frames: frame_numbers(page),
        };
        while let Some(task) = w.stack.pop() {
            match task {
                Task::Visit(v) => self.visit(&mut w, v),
                Task::Children { mut kids, under } => {
                    if let Some(c) = kids.next() {
                        if kids.len() > 0 {
                            w.stack.push(Task::Children { kids, under });
                        }
                        self.visit(&mut w, Visit { node: c, ..under });
                    }
                }
                Task::Exit {
                    el,
                    target,
                    created,
                    block,
                } => self.exit(&mut w, el, target, created, block),
            }
        }
        // Hidden elements made no node; the list is held while the tree is
        // distilled and laid out.
        w.raw.nodes.shrink_to_fit();
        w.raw
    }

    /// Visit a node: a text goes into its parent's children; an element
    /// makes its raw node (when visible) and queues its subtree.
    fn visit(&mut self, w: &mut Walk, v: Visit) {
        let Visit {
            node,
            parent,
            parent_visible,
            frame,
        } = v;
        let page = self.page;
        if w.visited[node.index()] {
            return;
        }
        w.visited[node.index()] = true;
        let e = match &page.node(node).data {
            NodeData::Text(t) => {
                if !t.is_empty()
                    && parent_visible
                    && !self.text_not_rendered(node)
                    && !self.left_out(node)
                    && w.raw.nodes[parent as usize].role() != "textbox"
                {
                    push_text(&mut w.raw.nodes[parent as usize].children, t);
                }
                return;
            }
            NodeData::Element(e) => e,
            _ => return,
        };
        let ai = self.mode == Mode::Ai;
        let aria_visible = !self.styles.hidden_for_aria(node);
        let visible = aria_visible || (ai && self.styles.box_visible(node));
        if !ai && !visible {
            return;
        }
        let owned = self.aria_owned(e);
        let created = if visible {
            self.make_aria_node(node, &mut w.raw, &mut w.name_sources)
        } else {
            None
        };
        if let Some(c) = created {
            attach(w, c, e, node, parent, frame);
        }
        let target = created.unwrap_or(parent);
        let block = self.styles.get(node).display != Display::Inline || self.tag_is(node, "br");
        self.open_content(w, node, target, block);
        w.stack.push(Task::Exit {
            el: node,
            target,
            created,
            block,
        });
        let under = Visit {
            node,
            parent: target,
            parent_visible: visible,
            frame,
        };
        for &o in owned.iter().rev() {
            w.stack.push(Task::Visit(Visit { node: o, ..under }));
        }
        self.queue_children(w, under, created);
    }

    /// What comes before element `node`'s content in raw node `target`: a
    /// space for a block, its `::before` text.
    fn open_content(&self, w: &mut Walk, node: NodeId, target: u32, block: bool) {
        let children = &mut w.raw.nodes[target as usize].children;
        if block {
            push_space(children);
        }
        if let Some(t) = super::style::generated_content(self.page, node, false) {
            push_text(children, &t);
        }
    }

    /// The elements `aria-owns` names, in its order.
    fn aria_owned(&self, e: &crate::page::ElementData) -> Vec<NodeId> {
        e.attr("aria-owns")
            .map(|v| {
                v.split(super::js::is_js_space)
                    .filter_map(|id| {
                        if id.is_empty() {
                            None
                        } else {
                            self.dom.element_by_id(id)
                        }
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Queue the children of `under.node` to be visited under the raw node
    /// `under.parent`, or a frame's body in place of an iframe's children.
    fn queue_children(&self, w: &mut Walk, under: Visit, created: Option<u32>) {
        let page = self.page;
        let node = under.node;
        // A live capture splices a frame's document under its
        // <iframe>. Playwright's walk stops at the iframe; only
        // `ai` mode snapshots the frame on its own (a fresh root
        // at its body, refs `fN…`) and puts it in place of the
        // iframe's children, and only for an iframe with a ref.
        let frame_root = w.frames.root_of(page, node);
        if let Some(doc) = frame_root {
            let body = page
                .element_children(doc)
                .find(|&c| self.tag_is(c, "body") || self.tag_is(c, "frameset"));
            let shown = created.is_some_and(|c| w.raw.nodes[c as usize].has_ref);
            if let (Some(body), true) = (body, shown) {
                w.stack.push(Task::Visit(Visit {
                    node: body,
                    parent: under.parent,
                    parent_visible: true,
                    frame: w.frames.seq(doc),
                }));
                return;
            }
        }
        let mut kids = self.dom.walk_children(node);
        if let Some(root) = frame_root {
            kids.retain(|&c| c != root);
        }
        if !kids.is_empty() {
            w.stack.push(Task::Children {
                kids: kids.into_iter(),
                under,
            });
        }
    }

    /// Close element `el` whose content went into raw node `target`: its
    /// `::after` text and block spacing, a link's url and a text box's
    /// placeholder, and the refs its name came from.
    fn exit(&self, w: &mut Walk, el: NodeId, target: u32, created: Option<u32>, block: bool) {
        let page = self.page;
        let raw = &mut w.raw;
        if let Some(t) = super::style::generated_content(page, el, true) {
            push_text(&mut raw.nodes[target as usize].children, &t);
        }
        if block {
            push_space(&mut raw.nodes[target as usize].children);
        }
        if created.is_some() {
            prune_texts(&mut raw.nodes, target);
        }
        let e = page.element(el);
        let t = &mut raw.nodes[target as usize];
        if t.role() == "link"
            && let Some(href) = e.and_then(|e| e.attr("href"))
        {
            t.props_mut().url = Some(truncate_data_url(href).into_boxed_str());
        }
        if t.role() == "textbox"
            && let Some(ph) = e.and_then(|e| e.attr("placeholder"))
            && ph != &*t.name
        {
            t.props_mut().placeholder = Some(ph.into());
        }
        if let Some(c) = created
            && let Some(sources) = w.name_sources.remove(&c)
        {
            let refs: Box<[u32]> = sources
                .iter()
                .filter_map(|s| w.el_to_ref.get(s.index()).copied())
                .filter(|&r| r != 0)
                .filter(|&r| r != c)
                .collect();
            if !refs.is_empty() {
                raw.name_refs.insert(c, refs);
            }
        }
    }

    /// An `aria-label` that says something else than the words a person
    /// sees: the line is named by those words, the label is kept apart as
    /// `/invisible-name`.
    fn set_apart_unseen_label(&self, id: NodeId, e: &crate::page::ElementData, n: &mut RawNode) {
        let Some(label) = e
            .attr("aria-label")
            .filter(|_| crate::page::unseen::label_replaces_text(e))
        else {
            return;
        };
        let seen = crate::page::unseen::seen_text(self.page, id);
        if crate::page::unseen::label_differs(label, &seen) {
            let seen_name = normalize_white_space(&seen).into_boxed_str();
            n.props_mut().invisible_name = Some(std::mem::replace(&mut n.name, seen_name));
        }
    }

    fn tag_is(&self, id: NodeId, tag: &str) -> bool {
        self.page
            .element(id)
            .is_some_and(|e| e.is_html() && e.local_name() == tag)
    }

    /// Text a tree of what is seen only leaves out.
    fn left_out(&self, text: NodeId) -> bool {
        self.seen_only && self.page.unseen(text).is_some()
    }

    fn text_not_rendered(&self, text: NodeId) -> bool {
        self.dom.text_not_rendered(text)
    }

    /// `computeBox(el).inline`.
    fn box_inline(&self, id: NodeId) -> bool {
        let s = self.styles.get(id);
        if s.display == Display::Contents && !s.none_chain {
            for c in self.page.children(id) {
                match self.page.node(c).data {
                    NodeData::Element(_) if self.styles.box_visible(c) => return false,
                    NodeData::Text(_) if self.styles.get(c).extent => return true,
                    _ => {}
                }
            }
            return false;
        }
        self.styles.style_visible(id) && s.display == Display::Inline
    }

    fn make_aria_node(
        &mut self,
        id: NodeId,
        raw: &mut Raw,
        name_sources: &mut HashMap<u32, Vec<NodeId>>,
    ) -> Option<u32> {
        let page = self.page;
        let e = page.element(id)?;
        let ai = self.mode == Mode::Ai;
        let active = self.active == Some(id);
        let style = self.styles.get(id);
        let box_visible = self.styles.box_visible(id);
        if e.is_html() && matches!(e.local_name(), "iframe" | "frame") {
            let mut n = RawNode::new("iframe");
            n.el = Some(id);
            n.states.active = active;
            n.cursor_pointer = style.cursor_pointer;
            n.has_ref = ai && box_visible;
            raw.nodes.push(Box::new(n));
            return Some((raw.nodes.len() - 1) as u32);
        }
        let (role, place) = match self.roles.place(id) {
            Some(p) => (roles::role_name(p), p),
            None if ai => ("generic", roles::role_place("generic")),
            None => return None,
        };
        if role == "presentation" || role == "none" {
            return None;
        }
        let unseen = self.seen_only && page.unseen(id).is_some();
        let control = unseen && is_control(role);
        // A control no one sees keeps the name it would have.
        self.names.seen_only = self.seen_only && !control;
        let name = self.names.accessible_name(id);
        if role == "generic" && self.box_inline(id) {
            let mut kids = page.children(id);
            if let (Some(only), None) = (kids.next(), kids.next())
                && matches!(page.node(only).data, NodeData::Text(_))
            {
                return None;
            }
        }
        let mut n = RawNode::with_place(place);
        n.name = normalize_white_space(&name.text).into_boxed_str();
        n.unseen = unseen && !control;
        n.invisible = control;
        if self.seen_only && !unseen {
            self.set_apart_unseen_label(id, e, &mut n);
        }
        n.el = Some(id);
        n.cursor_pointer = style.cursor_pointer;
        n.has_ref = ai && box_visible && style.pointer_events;
        n.states = states::compute(self.dom, id, role);
        n.states.active = active;
        if e.is_html() {
            let tag = e.local_name();
            let is_value_control = tag == "textarea"
                || (tag == "input"
                    && !matches!(input_type(e.attr("type")), "checkbox" | "radio" | "file"));
            if is_value_control {
                push_text(&mut n.children, &self.dom.control_value(id));
            }
        }
        raw.nodes.push(Box::new(n));
        let idx = (raw.nodes.len() - 1) as u32;
        if ai && raw.nodes[idx as usize].has_ref && !name.elements.is_empty() {
            name_sources.insert(idx, name.elements);
        }
        Some(idx)
    }
}

/// Roles a person acts on: one no one sees keeps its line, marked.
fn is_control(role: &str) -> bool {
    matches!(
        role,
        "button"
            | "link"
            | "textbox"
            | "searchbox"
            | "checkbox"
            | "radio"
            | "combobox"
            | "listbox"
            | "option"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "tab"
            | "switch"
            | "slider"
            | "spinbutton"
            | "treeitem"
    )
}

/// `data:` URLs keep only their header: `data:image/png;base64,…`.
pub fn truncate_data_url(url: &str) -> String {
    if !url.starts_with("data:") {
        return url.to_string();
    }
    match url.find(',') {
        Some(comma) => format!("{}\u{2026}", &url[..=comma]),
        None => url.to_string(),
    }
}

/// Frame numbers as Playwright allocates them: one per frame, in the order
/// frames attach. The parser attaches a document's iframes as it meets them
/// and a frame's own iframes only once that frame loads, so frames number by
/// nesting depth first, then document order.
struct FrameNumbers {
    /// Each frame document's root (`<html>` under its `<iframe>`) and number.
    seq: HashMap<NodeId, u32>,
}

fn frame_numbers(page: &Page) -> FrameNumbers {
    let mut roots: Vec<(usize, NodeId)> = page
        .nodes()
        .iter()
        .enumerate()
        .map(|(i, _)| NodeId::new(i as u32))
        .filter(|&id| super::style::is_frame_document_root(page, id))
        .map(|id| {
            let depth = page
                .ancestors(id)
                .filter(|&a| super::style::is_frame_document_root(page, a))
                .count();
            (depth, id)
        })
        .collect();
    roots.sort();
    FrameNumbers {
        seq: roots
            .into_iter()
            .enumerate()
            .map(|(i, (_, id))| (id, i as u32 + 1))
            .collect(),
    }
}

impl FrameNumbers {
    /// The spliced document root under a frame element, if any.
    fn root_of(&self, page: &Page, el: NodeId) -> Option<NodeId> {
        if self.seq.is_empty() {
            return None;
        }
        page.element_children(el).find(|c| self.seq.contains_key(c))
    }

    fn seq(&self, root: NodeId) -> u32 {
        self.seq.get(&root).copied().unwrap_or(0)
    }
}
