//! Compression: which children and how much text a view shows, and the search
//! for the largest cut that fits a token budget.
//!
//! A view has one [`Cut`] per tier of [`focus`](super::focus) (a [`Plan`]),
//! and the search gives each tier in turn, content first, the largest cut
//! that fits with the tiers before it fixed and the ones after it at their
//! smallest: the page's furniture gets what the article leaves.

use std::cell::RefCell;

use super::actions::Actions;
use super::focus::{OTHER, TIERS};
use super::id::HiddenRange;
use super::{Cnt, CntNode, CutStats, render};
use crate::contract::Surface;
use crate::fit;
use crate::tokens::{self, Encoding};
use crate::{Error, NodeId};

/// How much of the tree a view shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    /// A node with more children than this shows its first `ceil(width/2)`
    /// and last `floor(width/2)` children around one marker.
    pub width: usize,
    /// Texts and attribute values longer than this many characters are cut.
    pub text_limit: usize,
    /// Lists at depths below this one get one more child than `width`: how
    /// the search spends a budget that lies between two widths, giving the
    /// overview (the shallow levels) the extra room first.
    pub wide_depths: usize,
}

/// Characters of text a view may show per unit of width. The search moves
/// both together so that structure and text shrink in step: at width 10 a
/// text shows ~440 characters, at width 50 ~2,000.
const TEXT_CHARS_PER_LEVEL: usize = 40;

/// See [`fit`]: o200k and cl100k average 3–5 bytes per token on web text.
const MAX_BYTES_PER_TOKEN: usize = 32;

impl Cut {
    /// Nothing cut.
    pub const NONE: Cut = Cut {
        width: usize::MAX,
        text_limit: usize::MAX,
        wide_depths: 0,
    };

    /// The cut at `level` of the budget search: width `level`, text
    /// `40 × (level + 1)` characters.
    pub fn level(level: usize) -> Cut {
        Cut {
            width: level,
            text_limit: TEXT_CHARS_PER_LEVEL.saturating_mul(level + 1),
            wide_depths: 0,
        }
    }

    /// This cut with width + 1 for lists at depths below `depths`.
    pub fn widened(self, depths: usize) -> Cut {
        Cut {
            wide_depths: depths,
            ..self
        }
    }

    /// The split of the children an expanded marker shows: at least one,
    /// so that expanding always makes progress.
    pub(crate) fn split_expanded(&self, len: usize) -> Option<(usize, usize)> {
        Cut {
            width: self.width.max(1),
            ..*self
        }
        .split(len, 0)
    }

    /// Where a list of `len` children at `depth` is split:
    /// `(head_end, tail_start)`, the hidden ones being `head_end..tail_start`.
    pub(crate) fn split(&self, len: usize, depth: usize) -> Option<(usize, usize)> {
        let width = if depth < self.wide_depths {
            self.width.saturating_add(1)
        } else {
            self.width
        };
        if len <= width {
            return None;
        }
        let head = width.div_ceil(2);
        let tail = width / 2;
        Some((head, len - tail))
    }
}

/// The cuts of a view: one per tier (indexed by tier, see
/// [`focus`](super::focus)), and whether the ancestors of the main content
/// always show the child leading to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub cuts: [Cut; TIERS],
    pub pins: bool,
    /// How many of the best-ranked [`actions`](super::actions) are pinned:
    /// shown, with the path to each, whatever the cuts hide.
    pub actions: u32,
}

impl Plan {
    /// The same cut everywhere and no pinned children: a view as the seed
    /// defines it, for explicit cuts.
    pub(crate) fn uniform(cut: Cut) -> Plan {
        Plan {
            cuts: [cut; TIERS],
            pins: false,
            actions: 0,
        }
    }

    /// The cut of CNT node `i`.
    pub(crate) fn cut_of(&self, cnt: &Cnt, i: usize) -> Cut {
        self.cuts[cnt.focus.tier(i)]
    }

    /// Appends to `out` the hidden runs of a list of `len` children of
    /// node `i` at `depth`: the width's middle, split around the pinned
    /// children that fall there (the one leading to the main content, those
    /// leading to pinned actions).
    fn gaps_into(
        &self,
        (cnt, ranks): (&Cnt, &Actions),
        i: usize,
        (len, depth): (usize, usize),
        out: &mut Vec<Run>,
    ) {
        let Some((h, t)) = self.cut_of(cnt, i).split(len, depth) else {
            return;
        };
        let inside = |p: &usize| h <= *p && *p < t;
        let mut content = self.pins.then(|| cnt.focus.pin(i)).flatten().filter(inside);
        let mut from = h;
        let mut keep = |p: usize, out: &mut Vec<Run>| {
            if from < p {
                out.push((from, p));
            }
            from = from.max(p + 1);
        };
        // Both in position order: merge them.
        for p in ranks.pinned_kids(i, self.actions).filter(inside) {
            if let Some(c) = content.filter(|&c| c <= p) {
                keep(c, out);
                content = None;
            }
            keep(p, out);
        }
        if let Some(c) = content {
            keep(c, out);
        }
        keep(t, out);
    }
}

/// A hidden run `(first, end)` of list positions.
pub(crate) type Run = (usize, usize);

/// The hidden runs of an opened node's children, in order.
#[derive(Clone, Copy)]
pub(crate) struct Hidden<'r> {
    parent: NodeId,
    runs: &'r [Run],
}

impl Hidden<'_> {
    pub(crate) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = HiddenRange> + '_ {
        self.runs.iter().map(|&(h, t)| HiddenRange {
            parent: self.parent,
            first: h as u32,
            last: t as u32 - 1,
        })
    }
}

/// What a view shows: the whole page, a node's subtree, or the children
/// behind a marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    Whole,
    Node(u32),
    Range { parent: u32, first: u32, last: u32 },
}

impl Scope {
    pub(crate) fn label(&self, cnt: &Cnt) -> String {
        match *self {
            Scope::Whole => "page".to_string(),
            Scope::Node(i) => cnt.nodes[i as usize].id.to_string(),
            Scope::Range {
                parent,
                first,
                last,
            } => HiddenRange {
                parent: cnt.nodes[parent as usize].id,
                first,
                last,
            }
            .to_string(),
        }
    }

    /// The hidden part of the top-level list of a range scope.
    pub(crate) fn top_hidden(&self, cnt: &Cnt, plan: &Plan) -> Option<HiddenRange> {
        let Scope::Range {
            parent,
            first,
            last,
        } = *self
        else {
            return None;
        };
        let cut = plan.cut_of(cnt, parent as usize);
        let (h, t) = cut.split_expanded((last - first + 1) as usize)?;
        Some(HiddenRange {
            parent: cnt.nodes[parent as usize].id,
            first: first + h as u32,
            last: first + t as u32 - 1,
        })
    }
}

/// A step of the walk over what a view shows, in document order.
pub(crate) enum Event<'c, 'r> {
    /// A node, shown under `cut`; `hidden` is the part of its children
    /// behind markers (several runs when pinned children split them).
    Open {
        node: &'c CntNode,
        depth: usize,
        hidden: Hidden<'r>,
        cut: Cut,
    },
    /// After a node's shown descendants.
    Close { node: &'c CntNode },
    /// The marker standing for hidden children, at their depth.
    Marker { hidden: HiddenRange, depth: usize },
}

struct Frame<'c> {
    list: &'c [u32],
    /// Position of `list[0]` among the owner's children (ranges start late).
    base: u32,
    pos: usize,
    /// Where this list's hidden runs start in the walk's run stack, and the
    /// next one to reach.
    runs_from: usize,
    next_run: usize,
    owner: Option<&'c CntNode>,
    depth: usize,
}

/// Calls `f` for every shown node and marker: an explicit stack, no
/// recursion, and the hidden runs of open lists on one stack of their own
/// (no allocation per node).
pub(crate) fn walk<'c>(
    cnt: &'c Cnt,
    ranks: &Actions,
    scope: Scope,
    plan: &Plan,
    f: &mut dyn FnMut(Event<'c, '_>),
) {
    let mut runs: Vec<Run> = Vec::new();
    let mut stack = vec![top_frame(cnt, scope, plan, &mut runs)];
    while let Some(fr) = stack.last_mut() {
        if fr.pos == fr.list.len() {
            let owner = fr.owner;
            runs.truncate(fr.runs_from);
            stack.pop();
            // Frames below the top one belong to an opened node.
            if let Some(node) = owner
                && !stack.is_empty()
            {
                f(Event::Close { node });
            }
            continue;
        }
        if let Some(&(h, t)) = runs.get(fr.next_run).filter(|r| r.0 == fr.pos) {
            if let Some(owner) = fr.owner {
                let hidden = HiddenRange {
                    parent: owner.id,
                    first: fr.base + h as u32,
                    last: fr.base + t as u32 - 1,
                };
                f(Event::Marker {
                    hidden,
                    depth: fr.depth,
                });
            }
            fr.pos = t;
            fr.next_run += 1;
            continue;
        }
        let idx = fr.list[fr.pos];
        fr.pos += 1;
        let depth = fr.depth;
        let node = &cnt.nodes[idx as usize];
        let from = runs.len();
        let list = (node.children.len(), depth + 1);
        plan.gaps_into((cnt, ranks), idx as usize, list, &mut runs);
        f(Event::Open {
            node,
            depth,
            hidden: Hidden {
                parent: node.id,
                runs: &runs[from..],
            },
            cut: plan.cut_of(cnt, idx as usize),
        });
        if node.children.is_empty() {
            runs.truncate(from);
            f(Event::Close { node });
        } else {
            stack.push(Frame {
                list: &node.children,
                base: 0,
                pos: 0,
                runs_from: from,
                next_run: from,
                owner: Some(node),
                depth: depth + 1,
            });
        }
    }
}

/// The frame the walk starts from: the root, one node, or a run of a
/// node's children (with the markers its cut puts among them).
fn top_frame<'c>(cnt: &'c Cnt, scope: Scope, plan: &Plan, runs: &mut Vec<Run>) -> Frame<'c> {
    let lone = |list: &'c [u32]| Frame {
        list,
        base: 0,
        pos: 0,
        runs_from: 0,
        next_run: 0,
        owner: None,
        depth: 0,
    };
    match scope {
        Scope::Whole => lone(&[0]),
        Scope::Node(i) => lone(single(cnt, i)),
        Scope::Range {
            parent,
            first,
            last,
        } => {
            let p = &cnt.nodes[parent as usize];
            let list = &p.children[first as usize..=last as usize];
            runs.extend(plan.cut_of(cnt, parent as usize).split_expanded(list.len()));
            Frame {
                list,
                base: first,
                pos: 0,
                runs_from: 0,
                next_run: 0,
                owner: Some(p),
                depth: 0,
            }
        }
    }
}

/// A one-element slice holding node index `i`, borrowed from the tree.
fn single(cnt: &Cnt, i: u32) -> &[u32] {
    let Some(p) = cnt.nodes[i as usize].parent else {
        return &[0];
    };
    let siblings = &cnt.nodes[p as usize].children;
    match siblings.iter().position(|&c| c == i) {
        Some(at) => &siblings[at..=at],
        None => &[0],
    }
}

/// `text` cut to at most `limit` characters (at a word break when one is
/// near), and how many characters were left out.
pub(crate) fn cut_text(text: &str, limit: usize) -> (&str, usize) {
    let Some((byte, _)) = text.char_indices().nth(limit) else {
        return (text, 0);
    };
    let mut shown = &text[..byte];
    if let Some(space) = shown.rfind(' ')
        && shown[space..].chars().count() <= 16
    {
        shown = &shown[..space];
    }
    let shown = shown.trim_end();
    let hidden = text[shown.len()..].chars().count();
    (shown, hidden)
}

/// The result of the budget search.
pub(crate) struct Fitted {
    pub plan: Plan,
    /// The cut of the tier served first (all of them for a uniform plan).
    pub cut: Cut,
    pub text: String,
    pub tokens: usize,
    pub stats: CutStats,
}

/// The largest plan whose rendering fits `budget`: tier by tier (content,
/// the rest, furniture), the largest level of [`Cut::level`] with the tiers
/// before fixed and those after at level 0, then that tier's shallow lists
/// widened by one child as far as the budget allows.
///
/// Galloping up from level 0 and then bisecting keeps every rendering we
/// tokenize within a small factor of the budget, so a 3 MB page costs a few
/// budget-sized renders instead of tokenizing its whole tree repeatedly.
pub(crate) fn fit<'r>(
    cnt: &'r Cnt,
    ranks: impl FnOnce() -> &'r Actions,
    scope: Scope,
    budget: usize,
    enc: Encoding,
    surface: Surface,
) -> Result<Fitted, Error> {
    // No tokenizer packs more than this many bytes into a token on text like
    // ours; a rendering past it is rejected unread. Rejecting a cut that would
    // have fit only costs detail, never the budget: fits are always counted.
    // Nothing is pinned in a view that shows everything: the ranking is
    // read only when the page does not fit whole.
    let unranked = Actions::default();
    let renderer = Renderer {
        cnt,
        ranks: &unranked,
        scope,
        budget,
        max_bytes: budget
            .saturating_mul(MAX_BYTES_PER_TOKEN)
            .saturating_add(1024),
        memo: RefCell::new(tokens::Memo::new(enc)),
        surface,
    };
    let (full, fits) = renderer.attempt(Plan::uniform(Cut::NONE));
    if fits {
        return Ok(full);
    }
    let ranks = ranks();
    let renderer = Renderer { ranks, ..renderer };
    let attempt = |plan: Plan| renderer.attempt(plan);
    let depth = max_depth(cnt);
    let smallest = Plan {
        cuts: [Cut::level(0); TIERS],
        pins: true,
        actions: 0,
    };
    let (best, fits) = attempt(smallest);
    if fits {
        let best = pin_actions(ranks, &renderer, best, budget);
        return Ok(fit_tiers(cnt, scope, &renderer, best, depth));
    }
    // Even the smallest view with the path to the content shown does not
    // fit: the seed's uniform cut, which can hide more.
    let (best, fits) = attempt(Plan::uniform(Cut::level(0)));
    if !fits {
        let (text, _) = render::text(cnt, ranks, scope, &Plan::uniform(Cut::level(0)), surface);
        return Err(Error::BudgetTooSmall {
            what: format!("the smallest CNT of {}", scope.label(cnt)),
            needed: tokens::count(&text, enc),
            max_tokens: budget,
            // `Cnt::view` words the advice for the surface that asked.
            advice: String::new(),
        });
    }
    Ok(search(
        &renderer,
        Plan::uniform,
        best,
        max_level(cnt, None),
        depth,
    ))
}

/// Renders a plan and counts it against the budget.
struct Renderer<'c> {
    cnt: &'c Cnt,
    ranks: &'c Actions,
    scope: Scope,
    budget: usize,
    /// Renderings longer than this are rejected unread.
    max_bytes: usize,
    /// Renderings repeat most lines of the ones before.
    memo: RefCell<tokens::Memo>,
    surface: Surface,
}

impl Renderer<'_> {
    /// The length of `plan`'s rendering, not counted in tokens (`None`
    /// past the byte cap).
    fn bytes(&self, plan: Plan) -> Option<usize> {
        self.render(plan).map(|(text, _)| text.len())
    }

    /// The text of `plan`, or `None` past the byte cap.
    fn render(&self, plan: Plan) -> Option<(String, CutStats)> {
        let (cnt, ranks) = (self.cnt, self.ranks);
        render::text_capped(cnt, ranks, self.scope, &plan, self.max_bytes, self.surface)
    }

    /// The rendering of `plan`, and whether it fits.
    fn attempt(&self, plan: Plan) -> (Fitted, bool) {
        match self.render(plan) {
            Some((text, stats)) => {
                let tokens = self.memo.borrow_mut().count(&text);
                let fits = tokens <= self.budget;
                (
                    Fitted {
                        plan,
                        cut: plan.cuts[0],
                        text,
                        tokens,
                        stats,
                    },
                    fits,
                )
            }
            None => (
                Fitted {
                    plan,
                    cut: plan.cuts[0],
                    text: String::new(),
                    tokens: usize::MAX,
                    stats: CutStats::default(),
                },
                false,
            ),
        }
    }
}

/// What the pinned actions may take, with the paths to them, before the
/// tiers divide the rest: three quarters of the budget, at most 2,500
/// tokens. Measured on the corpus's labelled tasks (`tests/target_recall.rs`)
/// and the article recall of the default view (`tests/cnt_recall.rs`):
/// with these, the target is in the view 84% of the time at 2,000 tokens,
/// 94% at 4,000 and 95% at 8,000 (7%, 28% and 52% without pins), and the
/// default view shows 97.6% of the article text (97.9% without); a third
/// of the budget, uncapped, gave 54%, 73% and 92%.
const ACTION_SHARE_PERMILLE: usize = 750;
const ACTION_CAP: usize = 2500;

/// `best` (the smallest plan, which fits) with as many of the best-ranked
/// actions pinned as fit in [`ACTION_SHARE_PERMILLE`] of the budget.
fn pin_actions(ranks: &Actions, renderer: &Renderer<'_>, best: Fitted, budget: usize) -> Fitted {
    let total = ranks.count as usize;
    if total == 0 || best.text.is_empty() {
        return best;
    }
    let room = best
        .tokens
        .saturating_add((budget.saturating_mul(ACTION_SHARE_PERMILLE) / 1000).min(ACTION_CAP));
    let base = best.plan;
    let with = |k: usize| {
        let mut p = base;
        p.actions = k as u32;
        p
    };
    // The share is a target, not the budget: the search estimates each
    // rendering's tokens from its bytes instead of counting them, at the
    // smallest plan's rate, then again at the rate of the plan it found,
    // and only the plans it settles on are counted.
    let search = |per_byte: f64| {
        let estimate = |k: usize| {
            renderer
                .bytes(with(k))
                .map(|b| (b as f64 * per_byte).ceil() as usize)
                .filter(|&t| t <= room)
        };
        // A pinned action costs some 40 tokens with its path and markers.
        let guess = (room - best.tokens) / 40;
        fit::largest_fitting((0, ()), guess.max(1), total + 1, |k| {
            estimate(k).map(|_| ())
        })
        .0
    };
    let first = search(best.tokens as f64 / best.text.len() as f64);
    if first == 0 {
        return best;
    }
    let (found, _) = renderer.attempt(with(first));
    let mut k = search(found.tokens as f64 / found.text.len().max(1) as f64);
    while k > 0 {
        let (f, fits) = renderer.attempt(with(k));
        if fits && f.tokens <= room {
            return f;
        }
        k = k * 9 / 10;
    }
    best
}

/// Tier by tier from `best` (every tier at level 0, which fits): each tier
/// whole if that fits, else its largest level, the tiers before it fixed.
fn fit_tiers(
    cnt: &Cnt,
    scope: Scope,
    renderer: &Renderer<'_>,
    mut best: Fitted,
    depth: usize,
) -> Fitted {
    let present = tiers_in(cnt, scope);
    for tier in (0..TIERS).filter(|&t| present[t]) {
        let fixed = best.plan;
        let with = move |cut: Cut| {
            let mut p = fixed;
            p.cuts[tier] = cut;
            p
        };
        let (whole, fits) = renderer.attempt(with(Cut::NONE));
        if fits {
            best = whole;
            continue;
        }
        best = search(renderer, with, best, max_level(cnt, Some(tier)), depth);
    }
    // The cut a view reports: the one of the tier served first.
    if let Some(first) = (0..TIERS).find(|&t| present[t]) {
        best.cut = best.plan.cuts[first];
    }
    best
}

/// The largest level (then widening) of one cut, the rest of the plan as
/// `with` fixes it. `best` is `with(Cut::level(0))`, which fits;
/// `with(Cut::level(top))` does not.
fn search(
    renderer: &Renderer<'_>,
    with: impl Fn(Cut) -> Plan,
    best: Fitted,
    top: usize,
    depth: usize,
) -> Fitted {
    let (level, best) = largest_counted(renderer, best, 1, top, |k| with(Cut::level(k)));
    // Width `level + 1` does not fit; widen the shallowest lists by one as
    // deep as the budget allows. Output grows with width to the power of
    // depth, so without this a page could get half its budget.
    let base = Cut::level(level);
    let guess = (depth + 2) / 2;
    let (_, best) = largest_counted(renderer, best, guess, depth + 2, |k| with(base.widened(k)));
    best
}

/// [`fit::largest_fitting`] over `plan(k)` for `k` below `end`, `best`
/// being `plan(0)`'s rendering, which fits. Counting tokens is most of a
/// view's cost, so the search runs on an estimate (bytes at the rate of the
/// last counted rendering) and counts only where it lands: if that fits and
/// the next does not, done; otherwise the exact search takes over from
/// there. The answer is the one the exact search alone would give.
fn largest_counted(
    renderer: &Renderer<'_>,
    best: Fitted,
    guess: usize,
    end: usize,
    plan: impl Fn(usize) -> Plan,
) -> (usize, Fitted) {
    let exact = |k: usize| {
        let (f, fits) = renderer.attempt(plan(k));
        fits.then_some(f)
    };
    let rate = best.tokens as f64 / best.text.len().max(1) as f64;
    let (landed, _) = fit::largest_fitting((0, ()), guess, end, |k| {
        let bytes = renderer.bytes(plan(k))?;
        (bytes as f64 * rate <= renderer.budget as f64).then_some(())
    });
    if landed == 0 {
        return fit::largest_fitting((0, best), guess, end, exact);
    }
    match exact(landed) {
        Some(f) if landed + 1 >= end || exact(landed + 1).is_none() => (landed, f),
        Some(f) => fit::largest_fitting((landed, f), landed + 1, end, exact),
        None => fit::largest_fitting((0, best), landed - 1, landed, exact),
    }
}

/// Which tiers have nodes in `scope`.
fn tiers_in(cnt: &Cnt, scope: Scope) -> [bool; TIERS] {
    let mut present = [false; TIERS];
    walk(
        cnt,
        // A uniform plan pins nothing: no ranking needed.
        &Actions::default(),
        scope,
        &Plan::uniform(Cut::NONE),
        &mut |ev| {
            if let Event::Open { node, .. } = ev {
                let t = cnt
                    .find(node.id)
                    .map_or(OTHER as usize, |i| cnt.focus.tier(i));
                present[t] = true;
            }
        },
    );
    present
}

fn max_depth(cnt: &Cnt) -> usize {
    let mut depth = vec![0usize; cnt.nodes.len()];
    let mut deepest = 0;
    for (i, n) in cnt.nodes.iter().enumerate() {
        if let Some(p) = n.parent {
            depth[i] = depth[p as usize] + 1;
            deepest = deepest.max(depth[i]);
        }
    }
    deepest
}

/// The lowest level at which nothing is cut in the tree (or in one tier).
fn max_level(cnt: &Cnt, tier: Option<usize>) -> usize {
    let mut widest = 0usize;
    let mut longest = 0usize;
    for (i, n) in cnt.nodes.iter().enumerate() {
        if tier.is_some_and(|t| cnt.focus.tier(i) != t) {
            continue;
        }
        widest = widest.max(n.children.len());
        longest = longest.max(n.text.len());
        for (_, v) in &n.attrs {
            longest = longest.max(v.len());
        }
    }
    // Byte lengths bound character counts from above.
    widest.max(longest / TEXT_CHARS_PER_LEVEL) + 1
}
