//! Building the CNT: seed 003's filtering and merging rules, applied bottom-up.
//!
//! The seed states the merges recursively (a node is merged once its children
//! are). Preorder ids make that a plain loop: children have larger ids than
//! their parent, so walking ids in reverse visits every node after all of its
//! children, with no recursion over depth.

use std::mem;

use super::filter::{self, Kind};
use super::text::Text;
use super::{Cnt, CntNode};
use crate::NodeId;
use crate::page::{NodeData, Page};

/// A node while the tree is being merged. `text` keeps one space at either
/// edge where the page had whitespace there, so joins know where words break.
struct Item {
    id: NodeId,
    /// `""` for a text node; `ul,li,a` after merges.
    tag: String,
    text: Text,
    attrs: Vec<(String, String)>,
    clickable: bool,
    /// Moved by [`absorb`], never appended: `append` would leave each
    /// merged item holding an empty buffer as large as what it gave.
    absorbed: Vec<NodeId>,
    children: Vec<u32>,
    /// Whether text running into this item from the left (right) continues
    /// the same line: true for text and inline elements, false for blocks.
    inline_start: bool,
    inline_end: bool,
    /// The element's own text within `text` (bytes), once loose text
    /// around it was appropriated; `None` while all of `text` is its own.
    own: Option<Span>,
    /// A heading or live-region message: its line holds its own words only.
    own_line: bool,
}

// `compact` lays the CNT's nodes out over the items' own table, which
// takes the two being the same size: the table is the CNT's largest.
const _: () = assert!(std::mem::size_of::<Item>() == std::mem::size_of::<CntNode>());

impl Item {
    /// Seed 003's "text node": no action, no children, no image.
    fn is_text_like(&self) -> bool {
        !self.clickable && self.children.is_empty() && !self.has_src()
    }

    /// Text the merge rules move: joined with the text beside it, or taken
    /// into a neighbour's line.
    fn is_loose_text(&self) -> bool {
        self.is_text_like() && !self.own_line
    }

    /// Text with no element of its own (a DOM text node or a merge of
    /// differently tagged text nodes).
    fn is_pure_text(&self) -> bool {
        self.tag.is_empty()
    }

    fn has_src(&self) -> bool {
        self.attrs.iter().any(|(n, _)| n == "src")
    }

    fn is_blank(&self) -> bool {
        self.text.is_blank()
    }
}

/// A byte range of an item's text, in 32 bits: an item is held per DOM
/// node while the CNT is merged, and a page's text is far under 4 GB.
#[derive(Clone, Copy, Debug)]
struct Span(u32, u32);

impl Span {
    fn new(start: usize, end: usize) -> Span {
        let at = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        Span(at(start), at(end))
    }

    fn range(self) -> (usize, usize) {
        (self.0 as usize, self.1 as usize)
    }
}

/// What a DOM node contributes to its parent's children.
enum Slot {
    Nothing,
    One(u32),
    /// A transparent node's kept descendants, spliced into its parent.
    Many(Vec<u32>),
    /// A text node that collapses to one space (or a line break): no item
    /// until a merge needs one (see [`Items::space`]).
    Space(NodeId),
}

/// A slot per DOM node under the root, four bytes each: a slot is held
/// for every node of the page while the CNT is merged. The top two bits
/// say which slot it is, the rest its item or node (a page has far fewer
/// than 2^30 nodes); the lists of `Many` wait beside.
struct Slots {
    packed: Vec<u32>,
    many: Vec<Vec<u32>>,
}

const SLOT_NOTHING: u32 = u32::MAX;
const SLOT_MANY: u32 = 1 << 30;
const SLOT_SPACE: u32 = 2 << 30;
const SLOT_VALUE: u32 = (1 << 30) - 1;

impl Slots {
    fn new(len: usize) -> Slots {
        Slots {
            packed: vec![SLOT_NOTHING; len],
            many: Vec::new(),
        }
    }

    fn set(&mut self, i: usize, slot: Slot) {
        let packed = match slot {
            Slot::Nothing => SLOT_NOTHING,
            Slot::One(item) => item & SLOT_VALUE,
            Slot::Many(kids) => {
                self.many.push(kids);
                (self.many.len() - 1) as u32 & SLOT_VALUE | SLOT_MANY
            }
            Slot::Space(id) => id.get() & SLOT_VALUE | SLOT_SPACE,
        };
        if let Some(p) = self.packed.get_mut(i) {
            *p = packed;
        }
    }

    fn take(&mut self, i: usize) -> Slot {
        let Some(p) = self.packed.get_mut(i) else {
            return Slot::Nothing;
        };
        let packed = mem::replace(p, SLOT_NOTHING);
        let value = packed & SLOT_VALUE;
        match packed & !SLOT_VALUE {
            _ if packed == SLOT_NOTHING => Slot::Nothing,
            SLOT_MANY => Slot::Many(
                self.many
                    .get_mut(value as usize)
                    .map(mem::take)
                    .unwrap_or_default(),
            ),
            SLOT_SPACE => Slot::Space(NodeId::new(value)),
            _ => Slot::One(value),
        }
    }
}

/// The CNT root: `<body>`, or the document element when there is none.
fn cnt_root(page: &Page) -> NodeId {
    page.body()
        .or_else(|| page.document_element())
        .unwrap_or(NodeId::DOCUMENT)
}

/// With `modal` (the open modal dialog), its nodes lead the root's
/// children; returns how many did.
pub(super) fn build(page: &Page, modal: Option<NodeId>) -> (Cnt, u32) {
    let root = cnt_root(page);
    let end = page.node(root).subtree_end.get();
    let base = root.get();
    // Most items are merged into their parent's (a row's cells and texts
    // become the row's line): their places are taken again, so the list
    // holds the items alive at once, not one per node of the page.
    let mut items = Items::default();
    let mut slots = Slots::new((end - base) as usize);
    let slot_of = |n: NodeId| (n.get() - base) as usize;

    for n in (base..end).rev() {
        let id = NodeId::new(n);
        let kind = if id == root {
            root_kind(page, id)
        } else {
            filter::classify(page, id)
        };
        let slot = match kind {
            Kind::Dropped => Slot::Nothing,
            Kind::Text | Kind::Break => match &page.node(id).data {
                NodeData::Text(t) => {
                    let text = collapse_keeping_edges(t);
                    if text == " " {
                        Slot::Space(id)
                    } else {
                        Slot::One(items.put(text_item(id, text)))
                    }
                }
                _ => Slot::Space(id),
            },
            Kind::Transparent => {
                let kids = gather(page, id, &mut slots, slot_of, &mut items);
                if kids.is_empty() {
                    Slot::Nothing
                } else {
                    Slot::Many(kids)
                }
            }
            Kind::Element(facts) => {
                let kids = gather(page, id, &mut slots, slot_of, &mut items);
                let me = element_item(&mut items, id, facts, kids);
                if me.is_text_like() && me.is_blank() && id != root {
                    Slot::Nothing
                } else {
                    Slot::One(items.put(me))
                }
            }
        };
        slots.set(slot_of(id), slot);
    }

    let root_item = match slots.take(0) {
        Slot::One(i) => i,
        // The root is always an element kept as one item (see `root_kind`).
        _ => items.put(empty_item(root)),
    };
    // A slot a node: gone before the items are laid out as the CNT's nodes.
    drop(slots);
    let mut items = items.list;
    let moved = match modal {
        Some(m) => lead_with_modal(page, &mut items, root_item, m),
        None => 0,
    };
    (compact(page, items, root_item), moved)
}

/// The items while the tree is merged, and the places of those merged
/// away (no child list or slot names them any more), to be taken again.
#[derive(Default)]
struct Items {
    list: Vec<Item>,
    free: Vec<u32>,
}

/// Marks a kid that is a space with no item yet; the rest is its node id.
const SPACE: u32 = 1 << 31;

fn is_space(k: u32) -> bool {
    k & SPACE != 0
}

impl Items {
    /// The kid for a text node that is one space. Most are the spacing
    /// between a list's items or a table's rows: an item each would hold a
    /// list's worth of items until the list is merged, where they are merged
    /// into the next item or dropped one at a time. So a space is a marked
    /// node id, made an item ([`Items::real`]) only as it is merged.
    fn space(&mut self, id: NodeId) -> u32 {
        if id.get() & SPACE == 0 {
            id.get() | SPACE
        } else {
            self.put(space_item(id))
        }
    }

    /// The kid as an item, made now when it is a space.
    fn real(&mut self, k: u32) -> u32 {
        if is_space(k) {
            self.put(space_item(NodeId::new(k & !SPACE)))
        } else {
            k
        }
    }

    fn is_loose_text(&self, k: u32) -> bool {
        is_space(k) || self.list[k as usize].is_loose_text()
    }

    fn is_text_like(&self, k: u32) -> bool {
        is_space(k) || self.list[k as usize].is_text_like()
    }

    fn put(&mut self, item: Item) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.list[i as usize] = item;
                i
            }
            None => {
                // The CNT's largest table while it is built, and its nodes
                // are laid out over it.
                crate::grow::push_by_half(&mut self.list, item, 16);
                (self.list.len() - 1) as u32
            }
        }
    }
}

/// Moves the items holding the open modal dialog `m` or what is in it (the
/// top-most such under the root) to the front of the root's children, in
/// document order: a view leads with the only part of the page that can be
/// used. Returns how many moved.
fn lead_with_modal(page: &Page, items: &mut [Item], root: u32, m: NodeId) -> u32 {
    let inside = |n: NodeId| n == m || page.is_ancestor_of(m, n);
    let mut found: Vec<(u32, u32)> = Vec::new();
    let mut stack = vec![root];
    while let Some(it) = stack.pop() {
        for &k in &items[it as usize].children {
            let item = &items[k as usize];
            if std::iter::once(&item.id)
                .chain(&item.absorbed)
                .any(|&n| inside(n))
            {
                found.push((it, k));
            } else {
                stack.push(k);
            }
        }
    }
    found.sort_by_key(|&(_, k)| items[k as usize].id);
    for &(p, k) in &found {
        items[p as usize].children.retain(|&c| c != k);
    }
    let rest = mem::take(&mut items[root as usize].children);
    let lead = &mut items[root as usize].children;
    lead.extend(found.iter().map(|&(_, k)| k));
    lead.extend(rest);
    found.len() as u32
}

/// The item of element `id` over its kept children `kids`: their text runs
/// merged, blank text left out, a single child absorbed.
fn element_item(
    items: &mut Items,
    id: NodeId,
    facts: filter::ElementFacts,
    kids: Vec<u32>,
) -> Item {
    let kids = merge_text_runs(items, kids);
    let mut kids = appropriate_text(items, kids);
    let Items { list, free } = items;
    kids.retain(|&k| {
        // A space left here was taken by no merge: blank, it goes.
        if is_space(k) {
            return false;
        }
        let blank = list[k as usize].is_pure_text() && list[k as usize].is_blank();
        if blank {
            free.push(k);
        }
        !blank
    });
    let mut me = Item {
        tag: facts.tag,
        attrs: facts.attrs,
        clickable: facts.clickable,
        inline_start: facts.inline,
        inline_end: facts.inline,
        own_line: facts.own_line,
        ..empty_item(id)
    };
    if let [only] = kids[..] {
        if absorb_single_child(&mut me, list, only) {
            free.push(only);
        }
    } else {
        me.children = kids;
    }
    me
}

/// The root is kept even when markup hides it, so every page has a CNT.
fn root_kind(page: &Page, id: NodeId) -> Kind {
    match filter::classify(page, id) {
        Kind::Element(f) => Kind::Element(f),
        _ => match page.element(id) {
            Some(e) => Kind::Element(filter::ElementFacts {
                tag: e.local_name().to_string(),
                attrs: Vec::new(),
                clickable: false,
                inline: false,
                own_line: false,
            }),
            None => Kind::Element(filter::ElementFacts {
                tag: "#document".to_string(),
                attrs: Vec::new(),
                clickable: false,
                inline: false,
                own_line: false,
            }),
        },
    }
}

/// A DOM text node's item (or a line break's, as one space).
fn text_item(id: NodeId, text: String) -> Item {
    Item {
        text: Text::new(text),
        inline_start: true,
        inline_end: true,
        ..empty_item(id)
    }
}

fn space_item(id: NodeId) -> Item {
    text_item(id, " ".to_string())
}

fn empty_item(id: NodeId) -> Item {
    Item {
        id,
        tag: String::new(),
        text: Text::default(),
        attrs: Vec::new(),
        clickable: false,
        absorbed: Vec::new(),
        children: Vec::new(),
        inline_start: false,
        inline_end: false,
        own: None,
        own_line: false,
    }
}

/// The kept items of `id`'s children, in document order.
fn gather(
    page: &Page,
    id: NodeId,
    slots: &mut Slots,
    slot_of: impl Fn(NodeId) -> usize,
    items: &mut Items,
) -> Vec<u32> {
    let mut kids = Vec::new();
    for c in page.children(id) {
        match slots.take(slot_of(c)) {
            Slot::Nothing => {}
            Slot::One(i) => kids.push(i),
            Slot::Many(v) => kids.extend(v),
            Slot::Space(t) => kids.push(items.space(t)),
        }
    }
    kids
}

/// Rule "text nodes": adjacent text nodes become one, their text joined
/// (headings and live-region messages stay apart).
/// The merged node keeps a tag only when all shared it, and only the
/// attributes all shared: it carries what is true of all of it.
fn merge_text_runs(items: &mut Items, kids: Vec<u32>) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::with_capacity(kids.len());
    for k in kids {
        let merge_into = out
            .last_mut()
            .filter(|p| items.is_loose_text(**p) && items.is_loose_text(k));
        let Some(p) = merge_into else {
            out.push(k);
            continue;
        };
        *p = items.real(*p);
        let p = *p;
        let k = items.real(k);
        items.free.push(k);
        let (head, tail) = two_mut(&mut items.list, p as usize, k as usize);
        if head.is_blank() && !tail.is_blank() {
            // Name the merged node after its first real text, not a blank.
            head.absorbed.push(head.id);
            head.id = tail.id;
        } else {
            head.absorbed.push(tail.id);
        }
        head.text = Text::join(
            mem::take(&mut head.text),
            head.inline_end,
            mem::take(&mut tail.text),
            tail.inline_start,
        );
        head.inline_end = tail.inline_end;
        head.own = None;
        if head.tag != tail.tag {
            head.tag.clear();
        }
        if head.tag.is_empty() {
            head.attrs.clear();
        } else {
            head.attrs.retain(|a| tail.attrs.contains(a));
        }
        absorb(&mut head.absorbed, mem::take(&mut tail.absorbed));
    }
    out
}

/// Rule "text appropriation": a text node goes into the next (non-text)
/// sibling, before its text; a last-child text node goes after the text of
/// the previous sibling when that sibling has no children. Headings and
/// live-region messages take part on neither side.
fn appropriate_text(items: &mut Items, kids: Vec<u32>) -> Vec<u32> {
    let n = kids.len();
    let mut out: Vec<u32> = Vec::with_capacity(n);
    let mut pending: Option<u32> = None;
    for (i, &k) in kids.iter().enumerate() {
        if items.is_loose_text(k) {
            if i + 1 < n {
                // Runs are merged, so the next sibling is not loose text.
                pending = Some(k);
                continue;
            }
            if let Some(&prev) = out.last()
                && !items.is_text_like(prev)
                && !items.list[prev as usize].own_line
                && items.list[prev as usize].children.is_empty()
            {
                let k = items.real(k);
                items.free.push(k);
                let (sib, text) = two_mut(&mut items.list, prev as usize, k as usize);
                sib.own = Some(sib.own.unwrap_or(Span::new(0, sib.text.len())));
                sib.text = Text::join(
                    mem::take(&mut sib.text),
                    sib.inline_end,
                    mem::take(&mut text.text),
                    text.inline_start,
                );
                sib.absorbed.push(text.id);
                absorb(&mut sib.absorbed, mem::take(&mut text.absorbed));
                continue;
            }
            out.push(k);
        } else {
            if let Some(t) = pending.take_if(|_| items.list[k as usize].own_line) {
                out.push(t);
            }
            if let Some(t) = pending.take() {
                let t = items.real(t);
                items.free.push(t);
                let (sib, text) = two_mut(&mut items.list, k as usize, t as usize);
                let sib_len = sib.text.len();
                let (start, end) = sib.own.map_or((0, sib_len), Span::range);
                let joined = Text::join(
                    mem::take(&mut text.text),
                    text.inline_end,
                    mem::take(&mut sib.text),
                    sib.inline_start,
                );
                // The sibling's text ends the joined text, so its own part
                // moves right by what came before it.
                let shift = joined.len() - sib_len;
                sib.own = Some(Span::new(start + shift, end + shift));
                sib.text = joined;
                sib.absorbed.push(text.id);
                absorb(&mut sib.absorbed, mem::take(&mut text.absorbed));
            }
            out.push(k);
        }
    }
    out
}

/// Rule "node with one child". Returns whether the child was merged into
/// `me` (and its item is free).
fn absorb_single_child(me: &mut Item, items: &mut [Item], only: u32) -> bool {
    let child = &mut items[only as usize];
    if child.is_pure_text() {
        me.own = None;
        me.text = mem::take(&mut child.text);
        me.absorbed.push(child.id);
        absorb(&mut me.absorbed, mem::take(&mut child.absorbed));
        return true;
    }
    if me.clickable && child.clickable {
        me.children = vec![only];
        return false;
    }
    for tag in child.tag.split(',') {
        if me.tag.rsplit(',').next() != Some(tag) {
            if !me.tag.is_empty() {
                me.tag.push(',');
            }
            me.tag.push_str(tag);
        }
    }
    if me.attrs.is_empty() {
        // Taken whole: a first push would reserve four pairs (192 bytes)
        // in every wrapper that merges a link.
        me.attrs = mem::take(&mut child.attrs);
    }
    for (name, value) in mem::take(&mut child.attrs) {
        match me.attrs.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => me.attrs.push((name, value)),
        }
    }
    me.text = mem::take(&mut child.text);
    me.own = child.own;
    me.children = mem::take(&mut child.children);
    me.clickable |= child.clickable;
    me.own_line |= child.own_line;
    me.absorbed.push(child.id);
    absorb(&mut me.absorbed, mem::take(&mut child.absorbed));
    true
}

/// `from`'s ids into `into`, the shorter list moved into the longer: on a
/// deep page every level's list would otherwise move again at each level
/// above. `compact` puts them back in document order.
fn absorb(into: &mut Vec<NodeId>, mut from: Vec<NodeId>) {
    if into.len() < from.len() {
        mem::swap(into, &mut from);
    }
    into.extend(from);
}

fn two_mut(items: &mut [Item], a: usize, b: usize) -> (&mut Item, &mut Item) {
    debug_assert_ne!(a, b);
    if a < b {
        let (l, r) = items.split_at_mut(b);
        (&mut l[a], &mut r[0])
    } else {
        let (l, r) = items.split_at_mut(a);
        (&mut r[0], &mut l[b])
    }
}

/// `text` trimmed, and the own part within it trimmed too: `None` when it
/// is empty or the whole text (nothing to tell apart).
fn trimmed_with_own(
    mut text: String,
    own: Option<(usize, usize)>,
) -> (String, Option<(usize, usize)>) {
    text.truncate(text.trim_end().len());
    let lead = text.len() - text.trim_start().len();
    text.drain(..lead);
    let trimmed = text.as_str();
    let own = own.and_then(|(s, e)| {
        let (s, e) = (
            s.saturating_sub(lead),
            e.saturating_sub(lead).min(trimmed.len()),
        );
        let part = trimmed.get(s..e)?;
        let s = s + (part.len() - part.trim_start().len());
        let e = e - (part.len() - part.trim_end().len());
        (s < e && (s, e) != (0, trimmed.len())).then_some((s, e))
    });
    (text, own)
}

/// Collapse whitespace runs (and no-break spaces, which read as spaces) to
/// one space, keeping a space at an edge that had whitespace.
fn collapse_keeping_edges(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_space = false;
    for ch in s.chars() {
        if ch.is_ascii_whitespace() || ch == '\u{a0}' {
            if !in_space {
                out.push(' ');
                in_space = true;
            }
        } else {
            out.push(ch);
            in_space = false;
        }
    }
    out
}

/// The merged items as a [`Cnt`] in preorder, texts trimmed, with an index
/// from every DOM id that went into a CNT node to that node.
fn compact(page: &Page, mut items: Vec<Item>, root: u32) -> Cnt {
    let (mut place, parents) = lay_out_order(&mut items, root);
    // Items in preorder, so the nodes are laid out over them one for one
    // and take no room of their own (the two are the same size): the items
    // are most of what the CNT holds while it is built.
    // Each swap puts one item in its place for good, and a place already
    // taken is never swapped into again, so this ends after at most one
    // swap an item.
    for i in 0..items.len() {
        loop {
            let j = place[i] as usize;
            if j == i || place.get(j).is_none_or(|&at| at as usize == j) {
                break;
            }
            items.swap(i, j);
            place.swap(i, j);
        }
    }
    drop(place);
    items.truncate(parents.len());
    let mut index = vec![u32::MAX; page.len()];
    let mut nodes: Vec<CntNode> = items
        .into_iter()
        .enumerate()
        .map(|(me, item)| node_of(item, me as u32, parents[me], &mut index))
        .collect();
    nodes.shrink_to_fit();
    Cnt {
        nodes,
        index,
        title: page.title(),
        front: Vec::new(),
        lead: None,
        focus: Default::default(),
        actions: Default::default(),
    }
}

/// Each item's place among the CNT's nodes: those under the root in
/// preorder, then the rest (merged away); and the parent's place of each
/// of the first. Child lists are rewritten to places.
fn lay_out_order(items: &mut [Item], root: u32) -> (Vec<u32>, Vec<Option<u32>>) {
    let mut place = vec![u32::MAX; items.len()];
    let mut parents: Vec<Option<u32>> = Vec::new();
    let mut stack: Vec<(u32, Option<u32>)> = vec![(root, None)];
    while let Some((it, parent)) = stack.pop() {
        let me = parents.len() as u32;
        place[it as usize] = me;
        parents.push(parent);
        for &k in items[it as usize].children.iter().rev() {
            stack.push((k, Some(me)));
        }
    }
    let unplaced = place.iter_mut().filter(|p| **p == u32::MAX);
    for (next, p) in (parents.len() as u32..).zip(unplaced) {
        *p = next;
    }
    for k in items.iter_mut().flat_map(|item| item.children.iter_mut()) {
        *k = place[*k as usize];
    }
    (place, parents)
}

/// The node an item becomes at place `me`, noted in `index` for the DOM
/// nodes it stands for.
fn node_of(item: Item, me: u32, parent: Option<u32>, index: &mut [u32]) -> CntNode {
    for d in std::iter::once(item.id).chain(item.absorbed.iter().copied()) {
        if let Some(slot) = index.get_mut(d.index()) {
            *slot = me;
        }
    }
    let (text, own) = trimmed_with_own(item.text.into_string(), item.own.map(Span::range));
    let mut absorbed = item.absorbed;
    absorbed.sort_unstable();
    CntNode {
        id: item.id,
        tag: item.tag,
        text,
        own,
        attrs: item.attrs,
        clickable: item.clickable,
        absorbed,
        parent,
        children: item.children,
    }
}
