//! Fitting one element's HTML into a token budget by folding subtrees into
//! placeholders that say how to unfold them.
//!
//! How we choose: start from the element with every child folded, then grow.
//! Folded subtrees are shown whole smallest first (so the largest stay
//! folded); when the smallest no longer fits, the shallowest folded element is
//! opened (its tags shown, its children folded) and the growing resumes one
//! level down. Consecutive folded siblings share one placeholder whose
//! selector picks them as a range (`ul > :nth-child(n+21)`), so a list of
//! 5,000 items folds to its first items and one line.
//!
//! Planning works with estimated tokens (bytes × the element's own
//! tokens-per-byte); every candidate is then rendered and counted exactly, and
//! the allowance is searched so that the exact count fits the budget.

use std::cell::OnceCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

use foldhash::{HashMap, HashMapExt};

use crate::contract::{Handle, Hint, Surface};
use crate::outline::label;
use crate::page::{LocalName, NodeData, NodeId, Page, Replacement};
use crate::select::UniqueSelectors;
use crate::tokens::{self, Encoding};

use super::FoldedPart;
use super::kids::{self, Kids};

/// Elements up to this many bytes per budget token are tokenized whole to
/// see if they fit; HTML runs 2–5 bytes per token.
const WHOLE_COUNT_FACTOR: u64 = 16;
/// Elements weighed for opening with more kids than this are gathered
/// (see [`Kids`]) rather than walked: opening them walks them once more.
const WALKED_KIDS: usize = 256;
/// Bytes tokenized to learn an element's tokens per byte.
const SAMPLE_BYTES: usize = 64 * 1024;

/// Exact serialized size (`outerHTML` bytes) of each node on its own: tags
/// and attributes, or escaped text. Summed in document order, a subtree's
/// size is a difference of two sums.
pub(super) struct Sizes {
    prefix: Vec<u64>,
}

impl Sizes {
    pub fn new(page: &Page) -> Sizes {
        let mut prefix = Vec::with_capacity(page.len() + 1);
        let mut sum = 0u64;
        prefix.push(0);
        for node in page.nodes() {
            sum += match &node.data {
                NodeData::Element(e) => {
                    let name = qualified_len(&e.name) as u64;
                    let attrs: u64 = e
                        .attrs
                        .iter()
                        .map(|a| {
                            qualified_len(&a.name) as u64 + escaped_len(&a.value, true) as u64 + 4
                        })
                        .sum();
                    let close = if e.is_html() && is_void(e.local_name()) {
                        0
                    } else {
                        name + 3
                    };
                    name + 2 + attrs + close
                }
                NodeData::Text(t) => {
                    // Most text has nothing to escape: then whether its
                    // parent writes it raw does not matter, and is not looked up.
                    let escaped = escaped_len(t, false);
                    let raw = escaped > t.len()
                        && node
                            .parent
                            .and_then(|p| page.element(p))
                            .is_some_and(|p| p.is_html() && is_raw_text(p.local_name()));
                    if raw { t.len() as u64 } else { escaped as u64 }
                }
                NodeData::Comment(t) => t.len() as u64 + 7,
                NodeData::Doctype { name } => name.len() as u64 + 11,
                NodeData::ProcessingInstruction(pi) => {
                    let (target, data) = (&pi.target, &pi.data);
                    (target.len() + data.len()) as u64 + 4
                }
                NodeData::Document => 0,
            };
            prefix.push(sum);
        }
        Sizes { prefix }
    }

    pub fn own(&self, n: NodeId) -> u64 {
        self.prefix[n.index() + 1] - self.prefix[n.index()]
    }

    /// Bytes of the node's `outerHTML`.
    pub fn subtree(&self, page: &Page, n: NodeId) -> u64 {
        self.prefix[page.node(n).subtree_end.index()] - self.prefix[n.index()]
    }
}

// Sizes follow the serializer's own rules (page/serialize.rs); the corpus
// test `budgets_hold_on_corpus_pages` checks folded parts' sizes against it.
use crate::page::tags::{is_raw_text, is_void};

fn escaped_len(s: &str, attr: bool) -> usize {
    s.len()
        + s.chars()
            .map(|c| match c {
                '&' => 4,
                '\u{a0}' => 4, // "&nbsp;" (6) replaces 2 bytes
                '<' | '>' if !attr => 3,
                '"' if attr => 5,
                _ => 0,
            })
            .sum::<usize>()
}

fn qualified_len(name: &markup5ever::QualName) -> usize {
    name.prefix.as_ref().map_or(0, |p| p.len() + 1) + name.local.len()
}

/// The HTML of one element within a budget.
#[derive(Clone)]
pub(super) struct Fitted {
    pub html: String,
    pub tokens: usize,
    pub folded: Vec<FoldedPart>,
}

/// Which elements are shown: `open` with tags and children decided one by
/// one, the others marked shown whole. Any other child of an open element is
/// folded. A bit per page node: plans on long lists ask of every item.
struct Plan {
    open: Vec<NodeId>,
    shown: Vec<u64>,
}

impl Plan {
    fn new(page: &Page) -> Plan {
        Plan {
            open: Vec::new(),
            shown: vec![0; page.len().div_ceil(64)],
        }
    }

    fn shown(&self, n: NodeId) -> bool {
        self.shown[n.index() / 64] & (1 << (n.index() % 64)) != 0
    }

    fn show(&mut self, n: NodeId) {
        self.shown[n.index() / 64] |= 1 << (n.index() % 64);
    }

    fn open(&mut self, n: NodeId) {
        self.show(n);
        self.open.push(n);
    }
}

pub(super) struct Folder<'a, 'p> {
    pub page: &'p Page,
    /// Built on the first fold: an element that fits whole never needs them.
    sizes: &'a OnceCell<Sizes>,
    pub uniq: &'a mut UniqueSelectors<'p>,
    pub enc: Encoding,
    /// Whose words placeholders say how to unfold in.
    pub surface: Surface,
    /// Each root's `outerHTML` and, once counted, its tokens: a root is
    /// tried at several budgets (its share, then what it was given).
    wholes: HashMap<NodeId, (String, Option<usize>)>,
    /// Estimated tokens of one placeholder for children of an element.
    placeholder: HashMap<NodeId, f64>,
    /// The same for elements without an id, by parent, tag and classes.
    alike: HashMap<(NodeId, &'p LocalName, &'p str), f64>,
    /// Fewer than any of them, once counted ([`Folder::placeholder_floor`]).
    floor: Option<f64>,
    /// Each fit made, by root and budget: a match is fitted to what it may
    /// have, then (most often) given just that.
    fits: HashMap<(NodeId, usize), Result<Fitted, usize>>,
    /// The kids of open elements and of those weighed for opening.
    kids: HashMap<NodeId, Rc<Kids>>,
    /// What elements weighed and not gathered hold ([`kids::held`]).
    held: HashMap<NodeId, (u64, usize)>,
}

impl<'a, 'p> Folder<'a, 'p> {
    pub fn new(
        page: &'p Page,
        sizes: &'a OnceCell<Sizes>,
        uniq: &'a mut UniqueSelectors<'p>,
        enc: Encoding,
        surface: Surface,
    ) -> Self {
        Folder {
            page,
            sizes,
            uniq,
            enc,
            surface,
            wholes: HashMap::new(),
            placeholder: HashMap::new(),
            alike: HashMap::new(),
            floor: None,
            fits: HashMap::new(),
            kids: HashMap::new(),
            held: HashMap::new(),
        }
    }

    fn sizes(&self) -> &'a Sizes {
        self.sizes.get_or_init(|| Sizes::new(self.page))
    }

    /// The root's `outerHTML`, serialized once.
    fn serialized(&mut self, root: NodeId) -> &mut (String, Option<usize>) {
        let page = self.page;
        self.wholes
            .entry(root)
            .or_insert_with(|| (page.outer_html(root), None))
    }

    /// The whole element, unfolded.
    pub fn whole(&mut self, root: NodeId) -> Fitted {
        let enc = self.enc;
        let (html, tokens) = self.serialized(root);
        let tokens = *tokens.get_or_insert_with(|| tokens::count(html, enc));
        Fitted {
            html: html.clone(),
            tokens,
            folded: Vec::new(),
        }
    }

    /// The element unfolded if it fits, with the tokens per byte of its HTML.
    /// Elements far larger than the budget are not tokenized (nor serialized)
    /// whole: their first 64 KB give the ratio, and they are folded.
    fn whole_if_fits(&mut self, root: NodeId, budget: usize) -> (Option<Fitted>, f64) {
        let limit = WHOLE_COUNT_FACTOR as usize * budget + 4096;
        if !self.wholes.contains_key(&root) {
            let mut prefix = String::new();
            let cap = (limit + 1).max(SAMPLE_BYTES);
            self.page
                .write_html_until(root, &mut prefix, &mut |_| None, cap);
            if prefix.len() > limit {
                let mut cut = SAMPLE_BYTES.min(prefix.len());
                while !prefix.is_char_boundary(cut) {
                    cut -= 1;
                }
                let ratio = tokens::count(&prefix[..cut], self.enc) as f64 / cut.max(1) as f64;
                return (None, ratio);
            }
            // Under the cap, the prefix is the whole element.
            self.wholes.insert(root, (prefix, None));
        }
        let bytes = (self.serialized(root).0.len() as f64).max(1.0);
        let whole = self.whole(root);
        let ratio = whole.tokens as f64 / bytes;
        ((whole.tokens <= budget).then_some(whole), ratio)
    }

    /// The best rendering of `root` within `budget` tokens, or the exact size
    /// of the smallest one when even that does not fit.
    pub fn fit(&mut self, root: NodeId, budget: usize) -> Result<Fitted, usize> {
        if let Some(done) = self.fits.get(&(root, budget)) {
            return done.clone();
        }
        let fitted = self.fit_anew(root, budget);
        self.fits.insert((root, budget), fitted.clone());
        fitted
    }

    fn fit_anew(&mut self, root: NodeId, budget: usize) -> Result<Fitted, usize> {
        let (whole, ratio) = self.whole_if_fits(root, budget);
        if let Some(w) = whole {
            return Ok(w);
        }
        let target = budget as f64;
        let mut best: Option<Fitted> = None;
        let (mut lo, mut hi): (Option<f64>, Option<f64>) = (None, None);
        let mut allowance = target;
        for _ in 0..10 {
            let plan = self.plan(root, allowance, ratio);
            let fitted = self.render(root, &plan);
            let t = fitted.tokens;
            if t <= budget {
                lo = Some(allowance);
                let better = best.as_ref().is_none_or(|b| t > b.tokens);
                if better {
                    best = Some(fitted);
                }
                if t as f64 >= 0.93 * target {
                    break;
                }
            } else {
                hi = Some(allowance);
            }
            allowance = match (lo, hi) {
                (Some(l), Some(h)) => {
                    if h / l < 1.02 {
                        break;
                    }
                    (l + h) / 2.0
                }
                (Some(l), None) => l * (target / t.max(1) as f64).clamp(1.05, 4.0),
                (None, _) => allowance * (target / t as f64).clamp(0.1, 0.95),
            };
            if allowance < 1.0 {
                break;
            }
        }
        if let Some(b) = best {
            return Ok(b);
        }
        let plan = self.plan(root, 0.0, ratio);
        let smallest = self.render(root, &plan);
        if smallest.tokens <= budget {
            Ok(smallest)
        } else {
            Err(smallest.tokens)
        }
    }

    /// Exact tokens of the smallest rendering: tags, text and placeholders.
    pub fn smallest(&mut self, root: NodeId) -> usize {
        let (_, ratio) = self.whole_if_fits(root, 0);
        let plan = self.plan(root, 0.0, ratio);
        self.render(root, &plan).tokens
    }

    /// Estimated tokens of one placeholder among `parent`'s children. An
    /// element without an id answers for its siblings alike (same tag and
    /// classes): their selectors differ at most in a position's digits, and
    /// planning on a list of 100,000 items builds one selector, not one
    /// per item it weighs.
    fn placeholder_cost(&mut self, parent: NodeId) -> f64 {
        if let Some(&c) = self.placeholder.get(&parent) {
            return c;
        }
        let page = self.page;
        let alike = page
            .element(parent)
            .filter(|e| e.id().is_none())
            .zip(page.parent(parent))
            .map(|(e, up)| (up, &e.name.local, e.attr("class").unwrap_or("")));
        if let Some(&c) = alike.as_ref().and_then(|k| self.alike.get(k)) {
            return c;
        }
        let sel = self.uniq.selector(parent).unwrap_or_default();
        let sample = range_placeholder(
            &format!("{sel} > :nth-child(n+10)"),
            100,
            10_000,
            Some("div.item"),
            self.surface,
        );
        let c = tokens::count(&sample, self.enc) as f64;
        match alike {
            Some(key) => self.alike.insert(key, c),
            None => self.placeholder.insert(parent, c),
        };
        c
    }

    /// Fewer tokens than any placeholder costs: one with no selector, less
    /// a token for the rare merge a selector's first characters make.
    fn placeholder_floor(&mut self) -> f64 {
        *self.floor.get_or_insert_with(|| {
            let sample = range_placeholder(
                " > :nth-child(n+10)",
                100,
                10_000,
                Some("div.item"),
                self.surface,
            );
            tokens::count(&sample, self.enc).saturating_sub(1) as f64
        })
    }

    /// `n`'s element children as folding reads them, gathered once.
    fn kids(&mut self, n: NodeId) -> Rc<Kids> {
        let (page, sizes) = (self.page, self.sizes());
        self.kids
            .entry(n)
            .or_insert_with(|| Rc::new(Kids::of(page, sizes, n)))
            .clone()
    }

    /// Change in placeholder tokens when the kid at `i` stops being folded.
    fn unfold_delta(&mut self, plan: &Plan, kids: &Kids, i: usize) -> f64 {
        let unit = self.placeholder_cost(kids.parent);
        match kids.folded_neighbours(i, |n| plan.shown(n)) {
            (true, true) => unit,
            (false, false) => -unit,
            _ => 0.0,
        }
    }

    /// Estimated tokens of `n` opened with all its children folded.
    fn open_cost(&mut self, n: NodeId, ratio: f64) -> f64 {
        let (page, sizes) = (self.page, self.sizes());
        let known = match self.kids.get(&n) {
            Some(kids) => Some((kids.text_bytes, kids.runs)),
            None => match self.held.get(&n) {
                Some(&held) => Some(held),
                // Most elements weighed are never opened: walked, not
                // gathered, unless they hold a long list.
                None => kids::held(page, sizes, n, WALKED_KIDS).inspect(|&h| {
                    self.held.insert(n, h);
                }),
            },
        };
        let (text, runs) = known.unwrap_or_else(|| {
            let kids = self.kids(n);
            (kids.text_bytes, kids.runs)
        });
        let text = sizes.own(n) + text;
        text as f64 * ratio + runs as f64 * self.placeholder_cost(n)
    }

    fn openable(&self, n: NodeId) -> bool {
        self.page.element(n).is_some_and(|e| !e.is_template)
            && self.page.element_children(n).next().is_some()
    }

    fn plan(&mut self, root: NodeId, allowance: f64, ratio: f64) -> Plan {
        let page = self.page;
        // Placeholders will want selectors of elements anywhere in the root.
        self.uniq.cover_page();
        let mut plan = Plan::new(page);
        plan.open(root);
        let mut used = self.open_cost(root, ratio);
        let mut candidates = Candidates::default();
        candidates.add(page, self.kids(root));
        // What a person does not see (scripts, styles, hidden parts) waits
        // until everything visible has had its turn; the root itself may be
        // hidden (chunk of a <script>), then its children are not deferred.
        let defer = |c: NodeId| page.is_rendered(root) && !page.is_rendered(c);
        let mut deferred: Vec<(u64, NodeId, Rc<Kids>, usize)> = Vec::new();
        loop {
            while let Some((kids, i)) = candidates.smallest() {
                let (c, size) = (kids.list[i].id, kids.list[i].subtree);
                if plan.shown(c) {
                    candidates.pass_smallest();
                    continue;
                }
                if defer(c) {
                    deferred.push((size, c, kids, i));
                    candidates.pass_smallest();
                    continue;
                }
                let delta = size as f64 * ratio + self.unfold_delta(&plan, &kids, i);
                if delta <= 0.0 || used + delta <= allowance {
                    used += delta;
                    plan.show(c);
                    candidates.pass_smallest();
                } else {
                    break;
                }
            }
            let mut opened = false;
            while let Some((kids, i)) = candidates.shallowest() {
                let c = kids.list[i].id;
                if plan.shown(c) {
                    continue;
                }
                // Most candidates on a long list come after the budget is
                // spent: pass them over on what they cost at least before
                // looking at them in the page or building a selector.
                let unfold = self.unfold_delta(&plan, &kids, i);
                let tags = kids.list[i].own as f64 * ratio;
                if used + tags + self.placeholder_floor() + unfold > allowance {
                    continue;
                }
                // Opened, it shows at least its tags and one placeholder.
                let unit = match kids.list[i].unit.get() {
                    Some(u) => u,
                    None => {
                        let u = self.placeholder_cost(c);
                        kids.list[i].unit.set(Some(u));
                        u
                    }
                };
                if used + tags + unit + unfold > allowance || !self.openable(c) || defer(c) {
                    continue;
                }
                let delta = self.open_cost(c, ratio) + unfold;
                if used + delta <= allowance {
                    used += delta;
                    plan.open(c);
                    candidates.add(page, self.kids(c));
                    opened = true;
                    break;
                }
            }
            if !opened {
                break;
            }
        }
        deferred.sort_unstable_by_key(|&(size, c, ..)| (size, c));
        for (size, c, kids, i) in deferred {
            let delta = size as f64 * ratio + self.unfold_delta(&plan, &kids, i);
            if delta <= 0.0 || used + delta <= allowance {
                used += delta;
                plan.show(c);
            }
        }
        plan
    }

    /// Render a plan: placeholders for folded runs, exact token counts.
    fn render(&mut self, root: NodeId, plan: &Plan) -> Fitted {
        let page = self.page;
        // A run's placeholder is keyed by its first element and stands for
        // it through its last: the serializer skips the run without walking
        // it, and nothing is kept per node left out.
        let mut replace: HashMap<NodeId, Replacement> = HashMap::new();
        let mut folded = Vec::new();
        // Open elements in document order, so parts come out in reading order.
        let mut open = plan.open.clone();
        open.sort_unstable();
        for &p in &open {
            let kids = self.kids(p);
            for run in folded_runs(&kids, plan) {
                let part = self.part(p, &run, kids.list.len());
                let text = placeholder_text(page, &part, run.first, self.surface);
                // A placeholder longer than what it stands for saves nothing:
                // such a run is shown as it is.
                if part.bytes <= text.len() as u64 {
                    continue;
                }
                replace.insert(
                    run.first,
                    Replacement {
                        text,
                        through: run.last,
                    },
                );
                folded.push(part);
            }
        }
        let mut html = String::new();
        page.write_html(root, &mut html, &mut |n| replace.remove(&n));
        let tokens = tokens::count(&html, self.enc);
        Fitted {
            html,
            tokens,
            folded,
        }
    }

    /// The folded part for `run`, among `total` element children of `parent`.
    fn part(&mut self, parent: NodeId, run: &Run, total: usize) -> FoldedPart {
        if run.elements == 1 {
            return FoldedPart {
                selector: self.uniq.selector(run.first).unwrap_or_default(),
                node_id: run.first,
                elements: 1,
                all: false,
                bytes: run.bytes,
            };
        }
        let (first, last) = (run.position, run.position + run.elements - 1);
        let parent_sel = self.uniq.selector(parent).unwrap_or_default();
        let range = if last == total {
            format!(":nth-child(n+{first})")
        } else if first == 1 {
            format!(":nth-child(-n+{last})")
        } else {
            format!(":nth-child(n+{first}):nth-child(-n+{last})")
        };
        FoldedPart {
            selector: format!("{parent_sel} > {range}"),
            node_id: run.first,
            elements: run.elements,
            all: true,
            bytes: run.bytes,
        }
    }
}

/// Consecutive folded element children of an open element, with only
/// whitespace or comments between them: one placeholder each.
struct Run {
    first: NodeId,
    last: NodeId,
    /// 1-based place of `first` among the parent's element children.
    position: usize,
    elements: usize,
    /// Bytes of the members' `outerHTML`, what lies between not counted.
    bytes: u64,
}

/// The runs of folded kids.
fn folded_runs(kids: &Kids, plan: &Plan) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    // Whether the run last pushed may still grow.
    let mut growing = false;
    for (i, kid) in kids.list.iter().enumerate() {
        if plan.shown(kid.id) {
            growing = false;
        } else if let (true, true, Some(run)) = (growing, kid.joins_previous, runs.last_mut()) {
            run.last = kid.id;
            run.elements += 1;
            run.bytes += kid.subtree;
        } else {
            runs.push(Run {
                first: kid.id,
                last: kid.id,
                position: i + 1,
                elements: 1,
                bytes: kid.subtree,
            });
            growing = true;
        }
    }
    runs
}

/// Candidates to show or open, from the open elements' kids: smallest
/// subtree first in `by_size`, shallowest (then first) in `by_depth`. An
/// open element's kids come sorted both ways already, so each heap holds one
/// cursor per open element, not an entry per kid.
#[derive(Default)]
struct Candidates {
    lists: Vec<Rc<Kids>>,
    /// (subtree bytes, kid, list, place in the list's `by_size`).
    by_size: BinaryHeap<Reverse<(u64, NodeId, u32, u32)>>,
    /// (depth, kid, list, place in the list).
    by_depth: BinaryHeap<Reverse<(u16, NodeId, u32, u32)>>,
}

impl Candidates {
    fn add(&mut self, page: &Page, kids: Rc<Kids>) {
        let l = self.lists.len() as u32;
        if let (Some(first), Some(&smallest)) = (kids.list.first(), kids.by_size.first()) {
            let s = &kids.list[smallest as usize];
            self.by_size.push(Reverse((s.subtree, s.id, l, 0)));
            self.by_depth
                .push(Reverse((page.node(first.id).depth, first.id, l, 0)));
        }
        self.lists.push(kids);
    }

    /// The smallest candidate, left in place.
    fn smallest(&self) -> Option<(Rc<Kids>, usize)> {
        let &Reverse((_, _, l, k)) = self.by_size.peek()?;
        let kids = &self.lists[l as usize];
        Some((kids.clone(), kids.by_size[k as usize] as usize))
    }

    /// Done with the smallest candidate: its list's next takes its place.
    fn pass_smallest(&mut self) {
        let Some(Reverse((_, _, l, k))) = self.by_size.pop() else {
            return;
        };
        let kids = &self.lists[l as usize];
        if let Some(&i) = kids.by_size.get(k as usize + 1) {
            let s = &kids.list[i as usize];
            self.by_size.push(Reverse((s.subtree, s.id, l, k + 1)));
        }
    }

    /// The shallowest candidate, taken.
    fn shallowest(&mut self) -> Option<(Rc<Kids>, usize)> {
        let Reverse((depth, _, l, i)) = self.by_depth.pop()?;
        let kids = &self.lists[l as usize];
        if let Some(next) = kids.list.get(i as usize + 1) {
            self.by_depth.push(Reverse((depth, next.id, l, i + 1)));
        }
        Some((kids.clone(), i as usize))
    }
}

fn placeholder_text(page: &Page, part: &FoldedPart, first: NodeId, surface: Surface) -> String {
    if part.all {
        let same = shared_label(page, first, part.elements);
        return range_placeholder(
            &part.selector,
            part.elements,
            part.bytes,
            same.as_deref(),
            surface,
        );
    }
    let children = match page.element_children(first).count() {
        0 => String::new(),
        1 => "1 child, ".to_string(),
        c => format!("{c} children, "),
    };
    format!(
        "<!-- folded {} ({children}{}): {} -->",
        label(page, first, true),
        human_bytes(part.bytes),
        Hint::Chunk(Handle::Selector(part.selector.clone()), false).spell(surface)
    )
}

fn range_placeholder(
    selector: &str,
    elements: usize,
    bytes: u64,
    same: Option<&str>,
    surface: Surface,
) -> String {
    let what = match same {
        Some(l) => format!("{l} ×{elements}"),
        None => format!("{elements} elements"),
    };
    format!(
        "<!-- folded {what} ({}): {} -->",
        human_bytes(bytes),
        Hint::Chunk(Handle::Selector(selector.to_string()), true).spell(surface)
    )
}

/// `830 B`, `48.2 KB`, `3.1 MB`: a size a reader weighs at a glance.
fn human_bytes(b: u64) -> String {
    match b {
        0..1_000 => format!("{b} B"),
        1_000..1_000_000 => format!("{:.1} KB", b as f64 / 1e3),
        _ => format!("{:.1} MB", b as f64 / 1e6),
    }
}

/// The label all `count` elements from `first` share, if they do.
fn shared_label(page: &Page, first: NodeId, count: usize) -> Option<String> {
    let l = label(page, first, false);
    let e = page.element(first)?;
    // Same name and classes make the same label without writing it out.
    let alike = |n| {
        page.element(n)
            .is_some_and(|o| o.name == e.name && o.classes().eq(e.classes()))
    };
    let mut cur = Some(first);
    let mut seen = 0;
    while let Some(n) = cur {
        if page.is_element(n) {
            if !alike(n) && label(page, n, false) != l {
                return None;
            }
            seen += 1;
            if seen == count {
                return Some(l);
            }
        }
        cur = page.node(n).next_sibling;
    }
    Some(l)
}
