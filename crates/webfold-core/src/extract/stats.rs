//! Text statistics of every subtree, in linear passes over the preorder
//! arena: forward for inherited facts, reverse to sum children into parents
//! (a reverse id loop sees every child before its parent).

use std::ops::AddAssign;

use super::classify::Kind;
use crate::NodeId;
use crate::page::tags::{is_heading, is_phrasing};
use crate::page::{NodeData, Page};

/// Sums over a subtree.
///
/// Element counts are 16 bits, saturating: tables of these sums are held
/// per node, several at once, and are most of main-content extraction's
/// memory; no decision turns on a count past 65,535.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Counts {
    /// Non-whitespace characters of text.
    pub chars: u32,
    /// Of which inside links.
    pub link_chars: u32,
    pub commas: u32,
    pub paragraphs: u16,
    pub images: u16,
    pub list_items: u16,
    pub heading_chars: u32,
    /// Form controls: counted although their subtrees are excluded.
    pub controls: u16,
    /// `<pre>` and `<code>` elements: code is kept whatever its link density.
    pub code: u16,
    /// Text inside `<li>`: a list that is mostly list items is a list.
    pub list_chars: u32,
    pub tables: u16,
    /// `<time>` elements: dates, not prose.
    pub times: u16,
    /// ASCII digits in the text.
    pub digits: u32,
}

impl AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.chars += o.chars;
        self.link_chars += o.link_chars;
        self.commas += o.commas;
        self.paragraphs = self.paragraphs.saturating_add(o.paragraphs);
        self.images = self.images.saturating_add(o.images);
        self.list_items = self.list_items.saturating_add(o.list_items);
        self.heading_chars += o.heading_chars;
        self.controls = self.controls.saturating_add(o.controls);
        self.code = self.code.saturating_add(o.code);
        self.list_chars += o.list_chars;
        self.tables = self.tables.saturating_add(o.tables);
        self.times = self.times.saturating_add(o.times);
        self.digits += o.digits;
    }
}

impl Counts {
    pub fn link_density(&self) -> f32 {
        if self.chars == 0 {
            0.0
        } else {
            self.link_chars as f32 / self.chars as f32
        }
    }
}

/// What each node contributes by itself, plus the "paragraph" view: text
/// grouped by its nearest block ancestor.
pub(crate) struct Stats {
    /// Each node's own contribution (text for text nodes, 1 for a `<p>`, …).
    own: Vec<Counts>,
    /// Inside an excluded subtree (or its root).
    pub excluded: Vec<bool>,
    /// Subtree sums with nothing dropped.
    pub total: Vec<Counts>,
    /// Text whose nearest block ancestor is this element.
    pub block: Vec<Counts>,
}

pub(crate) fn count_chars(s: &str) -> u32 {
    if s.is_ascii() {
        s.bytes().filter(|b| !b.is_ascii_whitespace()).count() as u32
    } else {
        s.chars().filter(|c| !c.is_whitespace()).count() as u32
    }
}

fn count_digits(s: &str) -> u32 {
    s.bytes().filter(u8::is_ascii_digit).count() as u32
}

fn count_commas(s: &str) -> u32 {
    s.chars()
        .filter(|c| matches!(c, ',' | '，' | '、' | '،' | '٬'))
        .count() as u32
}

impl Stats {
    /// `exclude(kind)` says which kinds cut their subtree out of the sums.
    pub fn compute(page: &Page, kinds: &[Kind], exclude: impl Fn(Kind) -> bool) -> Stats {
        let n = page.len();
        let mut own = vec![Counts::default(); n];
        let mut block = vec![Counts::default(); n];
        let mut excluded = vec![false; n];
        let mut in_link = vec![false; n];
        let mut in_li = vec![false; n];
        let mut block_of = vec![0u32; n];
        for (i, node) in page.nodes().iter().enumerate() {
            let parent = node.parent.map(|p| p.index());
            let (p_ex, p_link, p_li, p_block) = parent.map_or((false, false, false, 0), |p| {
                (excluded[p], in_link[p], in_li[p], block_of[p])
            });
            excluded[i] = p_ex || exclude(kinds[i]);
            match &node.data {
                NodeData::Element(e) => {
                    let tag = e.local_name();
                    in_link[i] = p_link || tag == "a";
                    in_li[i] = p_li || tag == "li";
                    block_of[i] = if is_phrasing(tag) { p_block } else { i as u32 };
                    let o = &mut own[i];
                    if excluded[i] {
                        if !p_ex {
                            // The root of an excluded subtree reports only what it is.
                            if matches!(tag, "input" | "select" | "textarea" | "button") {
                                o.controls = 1;
                            }
                        }
                        continue;
                    }
                    match tag {
                        "p" => o.paragraphs = 1,
                        "img" => o.images = 1,
                        "li" => o.list_items = 1,
                        "pre" | "code" => o.code = 1,
                        "table" => o.tables = 1,
                        "time" => o.times = 1,
                        _ => {}
                    }
                }
                NodeData::Text(t) => {
                    if p_ex {
                        excluded[i] = true;
                        continue;
                    }
                    let c = count_chars(t);
                    if c == 0 {
                        continue;
                    }
                    let o = &mut own[i];
                    o.chars = c;
                    o.commas = count_commas(t);
                    o.digits = count_digits(t);
                    if p_link {
                        o.link_chars = c;
                    }
                    if p_li {
                        o.list_chars = c;
                    }
                    block[p_block as usize] += *o;
                }
                NodeData::Document => {}
                _ => excluded[i] = true,
            }
        }
        let mut s = Stats {
            own,
            excluded,
            total: Vec::new(),
            block,
        };
        s.total = s.accumulate(page, NodeId::DOCUMENT, |_, _| false).0;
        s
    }

    /// Subtree sums over `root`'s subtree, bottom-up. `drop(id, sums)` sees
    /// each element's sums after its descendants' drops (as Readability's
    /// cleaning sees the DOM after removing inner nodes) and may drop it.
    /// Returns the sums (indexed by node id; outside the subtree: zero) and
    /// the dropped subtree roots in reverse document order.
    pub fn accumulate(
        &self,
        page: &Page,
        root: NodeId,
        mut drop: impl FnMut(NodeId, &Counts) -> bool,
    ) -> (Vec<Counts>, Vec<NodeId>) {
        let nodes = page.nodes();
        let mut sums = vec![Counts::default(); nodes.len()];
        let mut dropped = Vec::new();
        let start = root.index();
        let end = page.node(root).subtree_end.index();
        for i in (start..end).rev() {
            if self.excluded[i] {
                // An excluded root still tells its parent it was a control.
                let o = self.own[i];
                if o.controls > 0
                    && i > start
                    && let Some(p) = nodes[i].parent
                {
                    let sum = &mut sums[p.index()];
                    sum.controls = sum.controls.saturating_add(o.controls);
                }
                continue;
            }
            let mut c = sums[i];
            c += self.own[i];
            if let NodeData::Element(e) = &nodes[i].data
                && is_heading(e.local_name())
            {
                c.heading_chars = c.chars;
            }
            sums[i] = c;
            let id = NodeId(i as u32);
            if i > start && page.is_element(id) && drop(id, &c) {
                dropped.push(id);
                continue;
            }
            if i > start
                && let Some(p) = nodes[i].parent
            {
                sums[p.index()] += c;
            }
        }
        (sums, dropped)
    }
}
