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

/// What a node counts by itself: a text node its characters, an element
/// what it is. A sixth of a [`Counts`]: one is held per node.
#[derive(Clone, Copy, Debug, Default)]
struct Own {
    chars: u32,
    commas: u32,
    digits: u32,
    flags: u16,
}

impl Own {
    const IN_LINK: u16 = 1;
    const IN_LIST_ITEM: u16 = 1 << 1;
    const PARAGRAPH: u16 = 1 << 2;
    const IMAGE: u16 = 1 << 3;
    const LIST_ITEM: u16 = 1 << 4;
    const CODE: u16 = 1 << 5;
    const TABLE: u16 = 1 << 6;
    const TIME: u16 = 1 << 7;
    const CONTROL: u16 = 1 << 8;

    fn has(self, flag: u16) -> bool {
        self.flags & flag != 0
    }

    fn counts(self) -> Counts {
        let flag = |f| u16::from(self.has(f));
        let chars_if = |f| if self.has(f) { self.chars } else { 0 };
        Counts {
            chars: self.chars,
            link_chars: chars_if(Own::IN_LINK),
            commas: self.commas,
            paragraphs: flag(Own::PARAGRAPH),
            images: flag(Own::IMAGE),
            list_items: flag(Own::LIST_ITEM),
            heading_chars: 0,
            controls: flag(Own::CONTROL),
            code: flag(Own::CODE),
            list_chars: chars_if(Own::IN_LIST_ITEM),
            tables: flag(Own::TABLE),
            times: flag(Own::TIME),
            digits: self.digits,
        }
    }
}

/// What each node contributes by itself, plus the "paragraph" view: text
/// grouped by its nearest block ancestor.
pub(crate) struct Stats {
    /// Each node's own contribution (text for text nodes, 1 for a `<p>`, …).
    own: Vec<Own>,
    /// Inside an excluded subtree (or its root).
    pub excluded: Vec<bool>,
    /// Subtree sums with nothing dropped, of the elements and the document
    /// (see [`Stats::total`]).
    totals: Totals,
    /// Text whose nearest block ancestor is this element.
    pub block: BlockCounts,
}

/// Subtree sums by element: four bytes a node and a sum an element, where
/// a sum a node was most of the extraction's peak on a dense page.
#[derive(Default)]
struct Totals {
    /// Per node: where its sums are in `sums`, or `u32::MAX` (not an element).
    slot: Vec<u32>,
    sums: Vec<Counts>,
}

/// Text sums per element that is some text's nearest block ancestor. Few
/// of a page's nodes are, so they are kept by node in order, not one per
/// node: on a long list, a sum for every node was a sixth of the view's
/// peak.
pub(crate) struct BlockCounts(Vec<(u32, Counts)>);

impl BlockCounts {
    /// The sums of the text whose nearest block ancestor is node `i`.
    pub fn get(&self, i: usize) -> Counts {
        self.0
            .binary_search_by_key(&i, |&(node, _)| node as usize)
            .map_or_else(|_| Counts::default(), |k| self.0[k].1)
    }
}

/// Characters of `s` other than white space.
pub(crate) fn count_chars(s: &str) -> u32 {
    text_counts(s).chars
}

/// What a text node adds to its block's sums.
struct TextCounts {
    /// Characters other than white space.
    chars: u32,
    /// Commas, Latin and CJK and Arabic.
    commas: u32,
    /// ASCII digits.
    digits: u32,
}

/// A text's counts. The bytes are read in one pass the compiler turns into
/// vector code; a text with more than ASCII takes a second, for what
/// Unicode counts as white space and commas beyond ASCII.
fn text_counts(s: &str) -> TextCounts {
    let b = s.as_bytes();
    let (mut spaces, mut digits, mut commas) = (0u32, 0u32, 0u32);
    for &c in b {
        spaces += u32::from(c.is_ascii_whitespace());
        digits += u32::from(c.is_ascii_digit());
        commas += u32::from(c == b',');
    }
    if s.is_ascii() {
        return TextCounts {
            chars: b.len() as u32 - spaces,
            commas,
            digits,
        };
    }
    let wide = wide_counts(b);
    TextCounts {
        chars: wide.chars - spaces - wide.spaces,
        commas: commas + wide.commas,
        digits,
    }
}

/// What [`text_counts`] reads again in a text with more than ASCII.
struct WideCounts {
    /// Characters of any kind.
    chars: u32,
    /// White space beyond what ASCII's test counts (`char`'s takes in
    /// U+000B too, and U+00A0, U+3000…).
    spaces: u32,
    /// Commas beyond ASCII's.
    commas: u32,
}

/// [`WideCounts`] from UTF-8 bytes, without decoding them.
fn wide_counts(b: &[u8]) -> WideCounts {
    let mut wide = WideCounts {
        chars: 0,
        spaces: 0,
        commas: 0,
    };
    for (i, &c) in b.iter().enumerate() {
        wide.chars += u32::from(c & 0xc0 != 0x80);
        if c != 0x0b && c < 0xc2 {
            continue;
        }
        let at = |k: usize| b.get(i + k).copied().unwrap_or(0);
        match (c, at(1), at(2)) {
            (0x0b, ..)
            | (0xc2, 0x85 | 0xa0, _)
            | (0xe1, 0x9a, 0x80)
            | (0xe2, 0x80, 0x80..=0x8a | 0xa8 | 0xa9 | 0xaf)
            | (0xe2, 0x81, 0x9f)
            | (0xe3, 0x80, 0x80) => wide.spaces += 1,
            (0xd8, 0x8c, _) | (0xd9, 0xac, _) | (0xef, 0xbc, 0x8c) | (0xe3, 0x80, 0x81) => {
                wide.commas += 1
            }
            _ => {}
        }
    }
    wide
}

impl Stats {
    /// `exclude(kind)` says which kinds cut their subtree out of the sums.
    pub fn compute(page: &Page, kinds: &[Kind], exclude: impl Fn(Kind) -> bool) -> Stats {
        let n = page.len();
        let mut own = vec![Own::default(); n];
        // Where each block's sums are in `block`, while they add up.
        let mut block_slot = vec![u32::MAX; n];
        let mut block: Vec<(u32, Counts)> = Vec::new();
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
                                o.flags = Own::CONTROL;
                            }
                        }
                        continue;
                    }
                    o.flags = match tag {
                        "p" => Own::PARAGRAPH,
                        "img" => Own::IMAGE,
                        "li" => Own::LIST_ITEM,
                        "pre" | "code" => Own::CODE,
                        "table" => Own::TABLE,
                        "time" => Own::TIME,
                        _ => 0,
                    };
                }
                NodeData::Text(t) => {
                    if p_ex {
                        excluded[i] = true;
                        continue;
                    }
                    let counts = text_counts(t);
                    if counts.chars == 0 {
                        continue;
                    }
                    let o = &mut own[i];
                    o.chars = counts.chars;
                    o.commas = counts.commas;
                    o.digits = counts.digits;
                    if p_link {
                        o.flags |= Own::IN_LINK;
                    }
                    if p_li {
                        o.flags |= Own::IN_LIST_ITEM;
                    }
                    let slot = &mut block_slot[p_block as usize];
                    if *slot == u32::MAX {
                        *slot = block.len() as u32;
                        block.push((p_block, Counts::default()));
                    }
                    block[*slot as usize].1 += o.counts();
                }
                NodeData::Document => {}
                _ => excluded[i] = true,
            }
        }
        drop((block_slot, in_link, in_li, block_of));
        block.sort_unstable_by_key(|&(node, _)| node);
        block.shrink_to_fit();
        let mut s = Stats {
            own,
            excluded,
            totals: Totals::default(),
            block: BlockCounts(block),
        };
        s.totals = s.element_totals(page);
        s
    }

    /// Node `i`'s subtree sums, nothing dropped. A text (or comment) is its
    /// own subtree: its sums are its own counts, unless it is excluded.
    pub fn total(&self, i: usize) -> Counts {
        match self.totals.slot[i] {
            u32::MAX if self.excluded[i] => Counts::default(),
            u32::MAX => self.own[i].counts(),
            slot => self.totals.sums[slot as usize],
        }
    }

    /// Subtree sums over `root`'s subtree, bottom-up. `drop(id, sums)` sees
    /// each element's sums after its descendants' drops (as Readability's
    /// cleaning sees the DOM after removing inner nodes) and may drop it.
    /// Returns the root's sums and the dropped subtree roots in reverse
    /// document order.
    ///
    /// Only the sums of open ancestors are held: a reverse preorder walk
    /// finishes every child before its parent, so the nodes still waiting
    /// for children are always one ancestor chain, a stack.
    pub fn accumulate(
        &self,
        page: &Page,
        root: NodeId,
        mut drop: impl FnMut(NodeId, &Counts) -> bool,
    ) -> (Counts, Vec<NodeId>) {
        let mut dropped = Vec::new();
        let root_sums = self.sum_subtree(page, root, |id, c| {
            let keep = !(page.is_element(id) && drop(id, c));
            if !keep {
                dropped.push(id);
            }
            keep
        });
        (root_sums, dropped)
    }

    /// Every element's and the document's subtree sums, nothing dropped.
    fn element_totals(&self, page: &Page) -> Totals {
        let mut slot = vec![u32::MAX; page.len()];
        let mut held = 0u32;
        for (i, node) in page.nodes().iter().enumerate() {
            if matches!(node.data, NodeData::Element(_) | NodeData::Document) {
                slot[i] = held;
                held += 1;
            }
        }
        let mut sums = vec![Counts::default(); held as usize];
        // The document is node 0, so its sums are the first.
        sums[0] = self.sum_subtree(page, NodeId::DOCUMENT, |id, c| {
            let k = slot[id.index()];
            if k != u32::MAX {
                sums[k as usize] = *c;
            }
            true
        });
        Totals { slot, sums }
    }

    /// Sums `root`'s subtree bottom-up; `visit(id, sums)` sees each node
    /// below the root once its sums are final and says whether they count
    /// in its parent's. Returns the root's sums.
    fn sum_subtree(
        &self,
        page: &Page,
        root: NodeId,
        mut visit: impl FnMut(NodeId, &Counts) -> bool,
    ) -> Counts {
        let nodes = page.nodes();
        let start = root.index();
        let end = page.node(root).subtree_end.index();
        // (node, the sums of its children so far), innermost last.
        let mut open: Vec<(usize, Counts)> = Vec::new();
        let add_to_parent = |open: &mut Vec<(usize, Counts)>, i: usize, c: Counts| {
            let Some(p) = nodes[i].parent.map(NodeId::index) else {
                return;
            };
            match open.last_mut() {
                Some((top, sum)) if *top == p => *sum += c,
                _ => open.push((p, c)),
            }
        };
        for i in (start..end).rev() {
            let children = match open.last() {
                Some(&(top, c)) if top == i => {
                    open.pop();
                    c
                }
                _ => Counts::default(),
            };
            if self.excluded[i] {
                // An excluded root still tells its parent it was a control.
                let o = self.own[i];
                if o.has(Own::CONTROL) && i > start {
                    let c = Counts {
                        controls: 1,
                        ..Counts::default()
                    };
                    add_to_parent(&mut open, i, c);
                }
                continue;
            }
            let mut c = children;
            c += self.own[i].counts();
            if let NodeData::Element(e) = &nodes[i].data
                && is_heading(e.local_name())
            {
                c.heading_chars = c.chars;
            }
            if i == start {
                return c;
            }
            if visit(NodeId::new(i as u32), &c) {
                add_to_parent(&mut open, i, c);
            }
        }
        Counts::default()
    }
}

#[cfg(test)]
mod tests {
    use super::text_counts;

    /// The byte passes count what reading a character at a time did: white
    /// space as ASCII sees it in an ASCII text, as Unicode does in any other.
    #[test]
    fn counts_match_a_character_at_a_time() {
        let texts = [
            "",
            " \t\n",
            "a, b, 12",
            "vertical\u{b}tab",
            "vertical\u{b}tab é",
            "caf\u{e9} \u{a0}\u{2003}\u{3000}x\u{85}y",
            "一、二，三،٬4",
            "emoji 🙂🙂, 9",
            "\u{1680}\u{2000}\u{200a}\u{200b}\u{2028}\u{2029}\u{202f}\u{205f}\u{2030}\u{3001}\u{3002}",
            "ÂÃ\u{c2}\u{85}\u{e280}\u{ff0c}\u{ff0d}z",
        ];
        for t in texts {
            let chars = if t.is_ascii() {
                t.bytes().filter(|b| !b.is_ascii_whitespace()).count()
            } else {
                t.chars().filter(|c| !c.is_whitespace()).count()
            };
            let commas = t
                .chars()
                .filter(|c| matches!(c, ',' | '，' | '、' | '،' | '٬'))
                .count();
            let digits = t.bytes().filter(u8::is_ascii_digit).count();
            let got = text_counts(t);
            assert_eq!(
                (got.chars, got.commas, got.digits),
                (chars as u32, commas as u32, digits as u32),
                "{t:?}"
            );
        }
    }
}
