//! Finding the element that holds the main content: Readability's scoring
//! (paragraph scores flow to their ancestors, damped by link density),
//! its promotion of the top candidate, and sibling merging.

use super::classify::Classes;
use super::stats::Stats;
use crate::NodeId;
use crate::page::Page;
use crate::page::tags::is_heading;

/// Paragraph-like elements: their own text is a paragraph of their parent.
fn is_paragraph_tag(tag: &str) -> bool {
    is_heading(tag)
        || matches!(
            tag,
            "p" | "pre"
                | "li"
                | "td"
                | "th"
                | "dd"
                | "dt"
                | "blockquote"
                | "figcaption"
                | "caption"
                | "address"
        )
}

fn tag_weight(tag: &str) -> f32 {
    match tag {
        "div" | "article" | "main" | "section" => 5.0,
        "pre" | "td" | "blockquote" => 3.0,
        "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form" => -3.0,
        "th" => -5.0,
        t if is_heading(t) => -5.0,
        _ => 0.0,
    }
}

/// Prose (chars) below which a top candidate may be only an intro.
const SHORT_PROSE: f32 = 1200.0;

/// Levels a top candidate may climb to gather a lede or end note.
const GATHER_LEVELS: usize = 1;
/// Text a parent may add per char of prose it adds, and still be gathered.
const GATHER_CHARS_PER_PROSE: f32 = 1.2;

/// Prose that makes a sibling of the top candidate part of the article.
const SIBLING_PROSE: f32 = 140.0;

/// Prose a candidate needs before its class name counts in its favour.
const MIN_PROSE_FOR_CLASS_BONUS: f32 = 150.0;

/// Shortest text (non-whitespace chars) that counts as a paragraph.
const MIN_PARAGRAPH_CHARS: u32 = 20;

pub(crate) struct Scores {
    pub score: Vec<f32>,
    pub candidates: Vec<NodeId>,
    /// Paragraph text of each subtree, each paragraph weighed by how little
    /// of it is links: how much reading the subtree offers.
    pub prose: Vec<f32>,
}

pub(crate) fn score(page: &Page, classes: &Classes, stats: &Stats) -> Scores {
    let n = page.len();
    let mut score = vec![0f32; n];
    let mut is_candidate = vec![false; n];
    let mut candidates = Vec::new();
    for i in 0..n {
        let b = stats.block.get(i);
        if b.chars < MIN_PARAGRAPH_CHARS || stats.excluded[i] {
            continue;
        }
        let id = NodeId::new(i as u32);
        let Some(tag) = page.tag(id) else { continue };
        if tag == "html" {
            continue;
        }
        let p_score =
            (1.0 + b.commas as f32 + (b.chars as f32 / 85.0).min(3.0)) * (1.0 - b.link_density());
        let mut level = 0usize;
        let start = if is_paragraph_tag(tag) {
            page.parent(id)
        } else {
            Some(id)
        };
        let mut cur = start;
        while let Some(a) = cur {
            if level >= 5 {
                break;
            }
            let Some(atag) = page.tag(a) else { break };
            // Only text straight under <body> makes the body a candidate.
            if atag == "html" || (atag == "body" && level > 0) {
                break;
            }
            let ai = a.index();
            if !is_candidate[ai] {
                is_candidate[ai] = true;
                candidates.push(a);
                score[ai] = if atag == "body" {
                    0.0
                } else {
                    tag_weight(atag) + classes.signals[ai].weight()
                };
            }
            let div = match level {
                0 => 1.0,
                1 => 2.0,
                l => l as f32 * 3.0,
            };
            score[ai] += p_score / div;
            level += 1;
            cur = page.parent(a);
        }
    }
    let prose = prose(page, stats);
    for &c in &candidates {
        let i = c.index();
        // A content-sounding class ("likes-text") on a scrap of text is not
        // an article: the class bonus needs prose to stand on.
        if classes.signals[i].positive && prose[i] < MIN_PROSE_FOR_CLASS_BONUS {
            score[i] -= 25.0;
        }
        score[i] *= 1.0 - stats.total(i).link_density();
    }
    Scores {
        score,
        candidates,
        prose,
    }
}

/// Whether node `i` holds a paragraph of its own: enough text whose nearest
/// block is `i`, under half of it in links.
pub(crate) fn is_prose_block(stats: &Stats, i: usize) -> bool {
    let b = stats.block.get(i);
    !stats.excluded[i] && b.chars >= MIN_PARAGRAPH_CHARS && b.link_density() < 0.5
}

/// Paragraph text of each subtree, each paragraph weighed by how little of
/// it is links (link-heavy blocks count nothing).
pub(crate) fn prose(page: &Page, stats: &Stats) -> Vec<f32> {
    let n = page.len();
    let mut prose = vec![0f32; n];
    for i in (1..n).rev() {
        if stats.excluded[i] {
            continue;
        }
        if is_prose_block(stats, i) {
            let b = stats.block.get(i);
            prose[i] += b.chars as f32 * (1.0 - b.link_density());
        }
        if let Some(p) = page.parent(NodeId::new(i as u32)) {
            prose[p.index()] += prose[i];
        }
    }
    prose
}

/// The best candidate, promoted the way Readability does.
pub(crate) fn top_candidate(page: &Page, scores: &Scores, stats: &Stats) -> Option<NodeId> {
    let s = &scores.score;
    let mut ranked: Vec<NodeId> = scores.candidates.clone();
    ranked.sort_by(|a, b| s[b.index()].total_cmp(&s[a.index()]).then(a.cmp(b)));
    let top = *ranked.first()?;
    if s[top.index()] <= 0.0 {
        return None;
    }
    let climb = Climb {
        page,
        body: page.body(),
    };
    let top = climb.to_shared_ancestor(top, &ranked, s);
    let top = climb.to_better_parent(top, s);
    let top = climb.past_short_intro(top, scores, stats);
    let top = climb.to_lede_and_notes(top, scores, stats);
    Some(climb.over_only_children(top))
}

/// The steps that promote the top candidate to an ancestor, never to
/// `<body>` or above.
struct Climb<'p> {
    page: &'p Page,
    body: Option<NodeId>,
}

impl Climb<'_> {
    /// `p`, unless it is the body or no element.
    fn below_body(&self, p: Option<NodeId>) -> Option<NodeId> {
        p.filter(|&p| Some(p) != self.body && self.page.tag(p).is_some())
    }

    /// Several near-equal candidates under one ancestor: the ancestor is the article.
    fn to_shared_ancestor(&self, top: NodeId, ranked: &[NodeId], s: &[f32]) -> NodeId {
        let page = self.page;
        let top_score = s[top.index()];
        let alternatives: Vec<NodeId> = ranked
            .iter()
            .skip(1)
            .take(4)
            .copied()
            .filter(|&c| s[c.index()] / top_score >= 0.75)
            .collect();
        if alternatives.len() < 3 {
            return top;
        }
        let mut parent = page.parent(top);
        while let Some(p) = self.below_body(parent) {
            let containing = alternatives
                .iter()
                .filter(|&&c| page.is_ancestor_of(p, c))
                .count();
            if containing >= 3 {
                return p;
            }
            parent = page.parent(p);
        }
        top
    }

    /// Climb while the parent scores better: the content is split in parts.
    fn to_better_parent(&self, top: NodeId, s: &[f32]) -> NodeId {
        let page = self.page;
        let mut last = s[top.index()];
        let threshold = last / 3.0;
        let mut parent = page.parent(top);
        while let Some(p) = self.below_body(parent) {
            let ps = s[p.index()];
            if ps == 0.0 {
                parent = page.parent(p);
                continue;
            }
            if ps < threshold {
                break;
            }
            if ps > last {
                return p;
            }
            last = ps;
            parent = page.parent(p);
        }
        top
    }

    /// Scores decay with depth, so a short intro near the top can beat the
    /// deeply nested body it introduces. When the top holds little prose and
    /// a near ancestor (not a link farm) holds at least twice as much, the
    /// ancestor is the article.
    fn past_short_intro(&self, mut top: NodeId, scores: &Scores, stats: &Stats) -> NodeId {
        let page = self.page;
        'climb: while scores.prose[top.index()] < SHORT_PROSE {
            let mut cur = page.parent(top);
            for _ in 0..4 {
                let Some(p) = self.below_body(cur) else { break };
                if scores.prose[top.index()] * 2.0 < scores.prose[p.index()]
                    && stats.total(p.index()).link_density() < 0.35
                {
                    top = p;
                    continue 'climb;
                }
                cur = page.parent(p);
            }
            break;
        }
        top
    }

    /// A lede or an end note beside the body: take the parent when what it
    /// adds is mostly prose, not links or short furniture text.
    fn to_lede_and_notes(&self, mut top: NodeId, scores: &Scores, stats: &Stats) -> NodeId {
        for _ in 0..GATHER_LEVELS {
            let Some(p) = self.below_body(self.page.parent(top)) else {
                break;
            };
            let (pi, ti) = (p.index(), top.index());
            let added_prose = scores.prose[pi] - scores.prose[ti];
            let added_chars = stats.total(pi).chars.saturating_sub(stats.total(ti).chars) as f32;
            if added_prose >= 0.05 * scores.prose[ti]
                && added_chars <= GATHER_CHARS_PER_PROSE * added_prose
                && stats.total(pi).link_density() < 0.15
            {
                top = p;
            } else {
                break;
            }
        }
        top
    }

    /// An only child says nothing its parent does not.
    fn over_only_children(&self, mut top: NodeId) -> NodeId {
        while let Some(p) = self.below_body(self.page.parent(top)) {
            if self.page.element_children(p).count() != 1 {
                break;
            }
            top = p;
        }
        top
    }
}

/// The chosen content: `top` alone (`root == top`), or the subtrees in
/// `keep` (`top`, its sibling parts, a lede) under their common ancestor
/// `root`, the rest of `root` left out.
pub(crate) struct Selection {
    pub top: NodeId,
    pub root: NodeId,
    /// Disjoint subtrees inside `root` that are content, in document order.
    pub keep: Vec<NodeId>,
}

impl Selection {
    /// Whether only some parts of `root` are content.
    pub fn restricted(&self) -> bool {
        self.keep.first() != Some(&self.root)
    }
}

/// `top` and the siblings that belong to the article too (Readability's rule).
pub(crate) fn merge_siblings(
    page: &Page,
    scores: &Scores,
    stats: &Stats,
    top: NodeId,
) -> Selection {
    let kept = kept_siblings(page, scores, stats, top);
    match page.parent(top) {
        Some(parent) if kept.len() > 1 => Selection {
            top,
            root: parent,
            keep: kept,
        },
        _ => Selection {
            top,
            root: top,
            keep: vec![top],
        },
    }
}

fn kept_siblings(page: &Page, scores: &Scores, stats: &Stats, top: NodeId) -> Vec<NodeId> {
    let s = &scores.score;
    let Some(parent) = page.parent(top) else {
        return vec![top];
    };
    if page.tag(parent).is_none() {
        return vec![top];
    }
    let top_score = s[top.index()];
    let threshold = (top_score * 0.2).max(10.0);
    let top_class = page
        .element(top)
        .and_then(|e| e.attr("class"))
        .filter(|c| !c.is_empty());
    let mut kept = Vec::new();
    for sib in page.element_children(parent) {
        if sib == top {
            kept.push(sib);
            continue;
        }
        if stats.excluded[sib.index()] {
            continue;
        }
        let e = page.element(sib);
        let bonus = match (top_class, e.and_then(|e| e.attr("class"))) {
            (Some(a), Some(b)) if a == b => top_score * 0.2,
            _ => 0.0,
        };
        if s[sib.index()] + bonus >= threshold {
            kept.push(sib);
            continue;
        }
        if page.tag(sib) == Some("p") {
            let c = stats.total(sib.index());
            let ld = c.link_density();
            let len = c.chars;
            if (len > 65 && ld < 0.25)
                || (len > 0 && len <= 65 && ld == 0.0 && ends_sentence(&page.text_content(sib)))
            {
                kept.push(sib);
            }
        } else if scores.prose[sib.index()] >= SIBLING_PROSE
            && scores.prose[sib.index()] * 3.0 >= stats.total(sib.index()).chars as f32 * 2.0
            && stats.total(sib.index()).link_density() < 0.2
        {
            // A lede or a continuation in a wrapper of its own.
            kept.push(sib);
        }
    }
    kept
}

fn ends_sentence(text: &str) -> bool {
    let t = text.trim_end();
    t.ends_with('.') || t.contains(". ")
}

/// Levels above the chosen root searched for more parts of a split body.
const PART_LEVELS: usize = 2;
/// Text (non-whitespace chars) of a sibling between parts that does not end
/// the run: a picture with its caption, an ad label.
const SKIPPABLE_CHARS: u32 = 40;

/// Same tag and the same non-empty class: one more of a run of wrappers.
fn same_kind(page: &Page, a: NodeId, b: NodeId) -> bool {
    match (page.element(a), page.element(b)) {
        (Some(x), Some(y)) => {
            x.local_name() == y.local_name()
                && x.attr("class").is_some_and(|c| !c.trim().is_empty())
                && x.attr("class") == y.attr("class")
        }
        _ => false,
    }
}

/// Whether `id` reads as a part of an article body: mostly prose, few
/// links, not a list, a form or a run of headings.
fn is_prose_part(stats: &Stats, prose: &[f32], id: NodeId) -> bool {
    let i = id.index();
    let c = stats.total(i);
    !stats.excluded[i]
        && prose[i] >= SIBLING_PROSE
        && prose[i] * 3.0 >= c.chars as f32 * 2.0
        && c.link_density() < 0.15
        && c.list_chars * 2 <= c.chars
        && c.heading_chars * 2 <= c.chars
        && c.controls == 0
}

/// The rest of a body split over a run of like wrappers (one per section,
/// each holding its share of the paragraphs), when the top candidate is one
/// of them or sits inside one: the runs of like, prose-holding siblings next
/// to the content at the levels above it, up to the first sibling with much
/// text that is not such a part.
pub(crate) fn split_body_parts(
    page: &Page,
    stats: &Stats,
    prose: &[f32],
    selection: Selection,
) -> Selection {
    let body = page.body();
    let mut parts = Vec::new();
    let mut root = None;
    let mut node = selection.root;
    for _ in 0..PART_LEVELS {
        let Some(parent) = page.parent(node) else {
            break;
        };
        if Some(parent) == body || page.tag(parent).is_none() {
            break;
        }
        let siblings: Vec<NodeId> = page.element_children(parent).collect();
        let at = siblings.iter().position(|&s| s == node).unwrap_or(0);
        let before = siblings[..at].iter().rev();
        let after = siblings[at + 1..].iter();
        let found = parts.len();
        for run in [before.collect::<Vec<_>>(), after.collect()] {
            for &sib in run {
                let i = sib.index();
                if stats.excluded[i] || stats.total(i).chars == 0 {
                    continue;
                }
                if same_kind(page, sib, node) && is_prose_part(stats, prose, sib) {
                    parts.push(sib);
                } else if stats.total(i).chars > SKIPPABLE_CHARS {
                    break;
                }
            }
        }
        if parts.len() > found {
            root = Some(parent);
        }
        node = parent;
    }
    let Some(root) = root else {
        return selection;
    };
    let mut keep = parts;
    if selection.restricted() {
        keep.extend(selection.keep);
    } else {
        keep.push(selection.root);
    }
    keep.sort_unstable();
    Selection {
        top: selection.top,
        root,
        keep,
    }
}
