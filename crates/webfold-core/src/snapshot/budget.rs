//! Cutting a snapshot to `max_elements` and an exact token budget.
//!
//! The candidates (interactive elements, headings and live regions, or every
//! element with `interactive_only` off) are ranked by
//! [`priority`](super::priority), and
//! the first `max_elements` are considered in that order. Each is kept if it
//! still fits the token budget together with the ancestors it needs (kept
//! elements keep their ancestors, so the YAML stays a tree; a candidate that
//! comes along as an ancestor counts as kept). An element too large for what
//! is left is skipped rather than ending the walk, so one long text cannot
//! starve everything ranked after it. A second pass spends what is left on
//! the kept elements' details (`/url`, `/placeholder`, text children), in the
//! same order: on a crowded page a ref to act on is worth more than the next
//! link's URL.
//!
//! Interactive-only, a live region (`status`, `alert`, `log`) comes with its
//! text in the first pass, ahead of every other element: after "Place
//! order" the agent's next view must say what the page answered. Its lines
//! are capped at an eighth of the budget, all regions together, so a long
//! log or an alert-styled banner cannot cost the controls; a `log` keeps its
//! newest (last) lines, the others their first ones, and a region whose text
//! was cut counts in the details note, and `viewport_only` keeps regions
//! outside the viewport (they are announced wherever they are). Headings
//! come as the ranks of
//! [`context_priority`] put them, their own text as details.
//!
//! The tree it cuts is the compact one ([`compact`](super::compact)); cut
//! elements are still grouped under the containers of the full tree, so the
//! closing line can name a list whose line the compact view leaves out. A
//! link that repeats a higher-ranked link of the same landmark (same name and
//! URL) is not a candidate: a closing note counts those.
//!
//! Costs are exact: o200k/cl100k pre-tokenization never joins text across a
//! line break (the break ends the line's last piece), so the tokens of
//! `line + "\n"` add up to the tokens of the whole output. The final text is
//! counted (header apart from the rest, by the same property; the tests check
//! it against a whole count), and details, then elements, are given back from
//! the end until it fits.

use std::cell::Cell;

use super::front::Front;
use super::parse::{Line, LineKind, SnapTree, push_line};
use super::priority::{
    PURPOSE_BONUS, context_priority, element_priority, front_priority, is_context_role,
    is_interactive_role, is_live_region_role, order_by_priority,
};
use crate::contract::{Handle, Hint, Limit, Surface, Switch};
use crate::purpose::{FOCUSED, Place, Purposes, TaskFocus};
use crate::tokens::{self, Encoding};

/// What the budget works with, besides the tree.
#[derive(Clone, Debug)]
pub struct BudgetParams {
    pub interactive_only: bool,
    pub viewport_only: bool,
    pub max_elements: usize,
    pub max_tokens: usize,
    pub encoding: Encoding,
    /// Whose words the notes say how to get more in.
    pub surface: Surface,
    /// The task whose elements rank first.
    pub focus: Option<TaskFocus>,
    /// Per line: in the modal dialog or a popup, ranked over the page
    /// ([`front`](super::front)); empty when nothing is open.
    pub front: Vec<Front>,
}

/// Why elements were cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Truncation {
    /// More candidates than `max_elements`.
    ElementLimit,
    /// The token budget ran out first.
    TokenBudget,
}

impl Truncation {
    pub fn header_words(self) -> &'static str {
        match self {
            Truncation::ElementLimit => "element limit",
            Truncation::TokenBudget => "token budget",
        }
    }
}

/// A subtree holding cut elements: where to look for them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CutGroup {
    /// `role "name"` of the container.
    pub label: String,
    pub aria_ref: Option<String>,
    pub count: usize,
}

/// A budgeted rendering.
#[derive(Clone, Debug)]
pub struct Budgeted {
    pub text: String,
    /// Exact tokens of `text`.
    pub tokens: usize,
    /// Candidates (elements the view counts), N in the header.
    pub total: usize,
    /// Candidates kept, K in the header.
    pub kept: usize,
    pub truncation: Option<Truncation>,
    /// Candidates left out by `viewport_only`.
    pub outside_viewport: usize,
    pub cut_groups: Vec<CutGroup>,
    /// Links left out because an equal link (same name and URL) stands for them.
    pub repeated: usize,
    /// Lines of the tree that were printed.
    pub shown: Vec<usize>,
}

/// What [`compact`](super::compact) did to the tree `fit` is given.
#[derive(Clone, Copy, Debug)]
pub struct Compaction<'a> {
    /// Where the lines of the tree before compaction are: its wrappers
    /// still name where cut elements are.
    pub containers: &'a Containers,
    /// Line of the compacted tree → line of the tree before compaction.
    pub source: &'a [u32],
    /// Per line of the compacted tree: its name or URL was cut with `…`.
    pub shortened: &'a [bool],
}

/// The lines around the YAML: breadcrumbs and notes that count toward the budget.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    /// Printed after the truncation header, before the YAML (`# Navigation: …`).
    pub preamble: Vec<String>,
    /// Printed after the YAML.
    pub notes: Vec<String>,
    /// A line printed before line `k` of the tree, where the page behind
    /// an open modal dialog starts (at the end when none of it is printed).
    pub behind: Option<(usize, String)>,
}

/// Regions of a page a reader tells apart: repeated links count only within one.
const LANDMARK_ROLES: &[&str] = &[
    "banner",
    "complementary",
    "contentinfo",
    "form",
    "main",
    "navigation",
    "region",
    "search",
    "article",
    "dialog",
    "alertdialog",
];

/// Roles whose subtree makes a good handle for "the elements cut in here".
const CONTAINER_ROLES: &[&str] = &[
    "navigation",
    "banner",
    "contentinfo",
    "main",
    "complementary",
    "search",
    "form",
    "region",
    "article",
    "dialog",
    "alertdialog",
    "list",
    "table",
    "grid",
    "treegrid",
    "tree",
    "menu",
    "menubar",
    "tablist",
    "tabpanel",
    "toolbar",
    "listbox",
    "radiogroup",
    "group",
];

/// Share of the budget the live regions' lines may take, all together: an
/// eighth (1,000 tokens of the default 8,000) holds any status or alert
/// message and a log's last few dozen lines.
const LIVE_SHARE: usize = 8;

/// Is line `i` a candidate: an element the view counts? Interactive-only,
/// the interactive elements, headings and live regions.
pub fn is_candidate(line: &Line, interactive_only: bool) -> bool {
    line.kind == LineKind::Element
        && (!interactive_only || is_interactive(line) || is_context_role(line.role()))
}

/// An element an agent acts on: an interactive role, or a pointer cursor.
fn is_interactive(line: &Line) -> bool {
    line.kind == LineKind::Element && (is_interactive_role(line.role()) || line.cursor_pointer)
}

/// A heading's `[level=N]`.
fn heading_level(line: &Line) -> Option<u32> {
    line.attrs()
        .iter()
        .find(|(a, _)| a == "level")
        .and_then(|(_, v)| v.as_deref()?.parse().ok())
}

/// Cut `tree` to the budget. `in_viewport[i]` says whether line `i`'s element
/// is in the viewport (absent without a live layout). `forced` lines are
/// always printed (with their ancestors): the dedup's one-line summaries.
/// `compaction` says how `tree` was rewritten for the view, if it was.
///
/// Links equal to a higher-ranked one in the same landmark (same name, same
/// URL, nothing interactive inside) are left out before anything else:
/// clicking either does the same, and pages repeat them (a teaser's image and
/// headline, a tag list's "more" links). They are counted in a closing note,
/// not in K of N, as `viewport_only` does with what it leaves out.
///
/// Two passes: first the elements themselves (their own line and the
/// ancestors they need), in priority order; then, with what budget is left,
/// their details (props such as `/url`, and text children), in the same
/// order. A ref to act on is worth more than the next element's URL.
pub fn fit(
    tree: &SnapTree,
    in_viewport: Option<&[bool]>,
    forced: &[usize],
    params: &BudgetParams,
    frame: &Frame,
    compaction: Option<&Compaction<'_>>,
) -> Budgeted {
    let (mut ranked, outside_viewport) = rank_candidates(tree, in_viewport, forced, params);
    let repeated = drop_repeated_links(tree, &mut ranked, params.interactive_only);
    let considered = ranked.len().min(params.max_elements);

    // Reserve room for the header and closing lines, then fill greedily.
    let frame_cost: usize = frame
        .preamble
        .iter()
        .chain(&frame.notes)
        .chain(frame.behind.iter().map(|(_, l)| l))
        .map(|l| count_line(l, params.encoding))
        .sum();
    let reserve = header_reserve(params) + closing_reserve(params);
    let mut is_ranked = vec![false; tree.lines.len()];
    for &c in &ranked {
        is_ranked[c] = true;
    }
    let fitter = Fitter {
        tree,
        params,
        frame,
        compaction,
        forced,
        ranked,
        considered,
        is_ranked,
        costs: LineCosts::new(tree, params.encoding),
        frame_cost,
        left: Left {
            outside_viewport,
            repeated,
        },
    };

    let mut limit = params.max_tokens.saturating_sub(reserve);
    let mut best = fitter.fitted(fitter.fill(limit));
    // The reserve is for the longest header and notes. Under a small budget
    // it is most of the budget, so what it did not take goes to more
    // elements, while that shows more.
    if reserve > params.max_tokens / 2 {
        for _ in 0..4 {
            let slack = params.max_tokens.saturating_sub(best.tokens);
            if best.truncation.is_none() || slack < 2 {
                break;
            }
            limit += slack;
            let next = fitter.fitted(fitter.fill(limit));
            if next.tokens > params.max_tokens || next.shown.len() <= best.shown.len() {
                break;
            }
            best = next;
        }
    }
    best
}

/// The candidates the view may show, most important first, and how many
/// `viewport_only` left out.
fn rank_candidates(
    tree: &SnapTree,
    in_viewport: Option<&[bool]>,
    forced: &[usize],
    params: &BudgetParams,
) -> (Vec<usize>, usize) {
    let vp = |i: usize| in_viewport.is_some_and(|v| v.get(i).copied().unwrap_or(false));
    let mut outside_viewport = 0;
    let mut candidates = Vec::new();
    for (i, line) in tree.lines.iter().enumerate() {
        if !is_candidate(line, params.interactive_only) || forced.contains(&i) {
            continue;
        }
        // A live region is announced wherever it is on the page (screen
        // readers do not scroll to it), so the viewport does not hide it.
        let announced = params.interactive_only && is_live_region_role(line.role());
        if params.viewport_only && !vp(i) && !announced {
            outside_viewport += 1;
            continue;
        }
        candidates.push(i);
    }
    let priorities: Vec<u32> = candidates
        .iter()
        .map(|&i| {
            let l = &tree.lines[i];
            let p = if let Some(score) = params.focus.as_ref().and_then(|f| focus_score(tree, i, f))
            {
                FOCUS_PRIORITY + score
            } else if params.interactive_only && is_context_role(l.role()) {
                context_priority(l.role(), heading_level(l), vp(i))
            } else {
                element_priority(l.role(), vp(i)) + purpose_bonus(tree, i)
            };
            p + front_priority(params.front.get(i).copied().unwrap_or_default())
        })
        .collect();
    let mut order = order_by_priority(&priorities);
    if params.focus.as_ref().is_some_and(TaskFocus::prefers_later) {
        // "The link below the article": of equally focused elements, the later.
        order.sort_by(|&a, &b| {
            let focused = priorities[a] >= FOCUS_PRIORITY;
            priorities[b]
                .cmp(&priorities[a])
                .then(if focused { b.cmp(&a) } else { a.cmp(&b) })
        });
    }
    let ranked = order.into_iter().map(|k| candidates[k]).collect();
    (ranked, outside_viewport)
}

/// Elements a task points at rank over everything else, live regions
/// included: the view was asked for them.
const FOCUS_PRIORITY: u32 = 10_000;

/// How strongly `focus` points at line `i`, if it does.
pub(crate) fn focus_score(tree: &SnapTree, i: usize, focus: &TaskFocus) -> Option<u32> {
    let line = &tree.lines[i];
    let place = tree
        .ancestors(i)
        .find_map(|a| Place::of_landmark(tree.lines[a].role()))
        .unwrap_or_default();
    let name = line.name.as_deref().unwrap_or_default();
    let score = focus.score(line.role(), name, link_url(tree, i), place);
    (score >= FOCUSED).then_some(score)
}

/// A link that says what it is for ([`Purposes`]): sign in, legal pages,
/// next page, share, the author, cookie settings. Pages keep these in their
/// furniture, far below hundreds of equal links in document order, and they
/// are what an agent's task most often needs: they rank over other links
/// and the top headings, under the form controls.
fn purpose_bonus(tree: &SnapTree, i: usize) -> u32 {
    let line = &tree.lines[i];
    if line.role() != "link" {
        return 0;
    }
    let mut purposes = Purposes::of_label(line.name.as_deref().unwrap_or_default());
    if let Some(url) = link_url(tree, i) {
        purposes = purposes.union(Purposes::of_url(url));
    }
    if purposes.is_empty() {
        0
    } else {
        PURPOSE_BONUS
    }
}

/// A link's `/url` prop.
fn link_url(tree: &SnapTree, i: usize) -> Option<&str> {
    tree.children(i)
        .find(|&k| tree.lines[k].kind == LineKind::Prop && tree.lines[k].role() == "/url")
        .and_then(|k| tree.lines[k].value())
}

/// Everything one `fit` call works with, so filling a plan and fitting it
/// can be tried at several limits.
struct Fitter<'a> {
    tree: &'a SnapTree,
    params: &'a BudgetParams,
    frame: &'a Frame,
    compaction: Option<&'a Compaction<'a>>,
    forced: &'a [usize],
    /// Candidates, most important first.
    ranked: Vec<usize>,
    /// How many of `ranked` `max_elements` lets in.
    considered: usize,
    is_ranked: Vec<bool>,
    costs: LineCosts<'a>,
    /// Tokens of the preamble and notes.
    frame_cost: usize,
    left: Left,
}

/// The tokens live regions may still take.
struct LiveRoom {
    cap: usize,
    used: usize,
}

impl Fitter<'_> {
    fn selection(&self, plan: &Plan) -> Selection<'_> {
        Selection::build(
            self.tree,
            &self.costs,
            plan,
            self.frame_cost,
            self.params.interactive_only,
        )
    }

    fn shown_candidates(&self, sel: &Selection<'_>) -> usize {
        self.ranked.iter().filter(|&&r| sel.shown[r]).count()
    }

    /// The plan that fills `limit` tokens: elements in priority order (a
    /// live region with its latest text), then their details.
    fn fill(&self, limit: usize) -> Plan {
        let tree = self.tree;
        let max_elements = self.params.max_elements;
        let mut plan = Plan {
            forced: self.forced.to_vec(),
            kept: Vec::new(),
            detailed: Vec::new(),
        };
        let mut sel = self.selection(&plan);
        let mut shown_candidates = self.shown_candidates(&sel);
        let mut live = LiveRoom {
            cap: self.params.max_tokens / LIVE_SHARE,
            used: 0,
        };
        // Lines printed as a live region's text: their details were its to give.
        let mut is_content = vec![false; tree.lines.len()];
        for &c in &self.ranked[..self.considered] {
            // Candidates that come along as ancestors count toward the limit too.
            let new_candidates = std::iter::once(c)
                .chain(tree.ancestors(c))
                .take_while(|&a| !sel.shown[a])
                .filter(|&a| self.is_ranked[a])
                .count();
            if shown_candidates >= max_elements {
                break;
            }
            if shown_candidates + new_candidates > max_elements {
                continue;
            }
            let delta = sel.element_delta(c);
            let is_live = sel.is_live(c);
            if is_live && live.used + delta > live.cap {
                continue;
            }
            if sel.total() + delta <= limit {
                sel.add_element(c);
                plan.kept.push(c);
                shown_candidates += new_candidates;
                if is_live {
                    live.used += delta;
                    let content = self.live_text(&mut sel, c, limit, &mut live);
                    for k in content {
                        plan.kept.push(k);
                        is_content[k] = true;
                    }
                    // Candidates printed as its text are kept like any ancestor.
                    shown_candidates = self.shown_candidates(&sel);
                }
            } else if limit.saturating_sub(sel.total()) < 4 {
                break;
            }
        }
        for &c in &plan.kept {
            if !self.is_ranked[c] || is_content[c] || sel.is_live(c) || !sel.has_details(c) {
                continue;
            }
            if sel.total() + sel.details_delta(c) <= limit {
                sel.add_details(c);
                plan.detailed.push(c);
            }
        }
        plan
    }

    /// Show live region `c`'s text, newest first for a log, as far as the
    /// live share and `limit` allow; returns the lines shown.
    fn live_text(
        &self,
        sel: &mut Selection<'_>,
        c: usize,
        limit: usize,
        live: &mut LiveRoom,
    ) -> Vec<usize> {
        let mut content = sel.live_content(c);
        if self.tree.lines[c].role() == "log" {
            content.reverse();
        }
        let mut shown = Vec::new();
        // A contiguous run: a message with a hole in it misleads.
        for k in content {
            let d = sel.element_delta(k);
            if live.used + d > live.cap || sel.total() + d > limit {
                break;
            }
            sel.add_element(k);
            shown.push(k);
            live.used += d;
        }
        shown
    }

    /// Render, count the whole, and give back details, then elements, until it fits.
    fn fitted(&self, mut plan: Plan) -> Budgeted {
        let mut sel = self.selection(&plan);
        loop {
            let out = self.finish(&sel);
            if out.tokens <= self.params.max_tokens {
                return out;
            }
            if plan.detailed.pop().is_none() && plan.kept.pop().is_none() {
                if plan.forced.is_empty() {
                    // The frame alone is over budget.
                    return header_only(out, self.params);
                }
                // The one-line summaries alone do not fit: print none of them.
                plan.forced.clear();
            }
            sel = self.selection(&plan);
        }
    }
}

/// Remove from `ranked` the links that repeat a higher-ranked link's name
/// and URL; returns how many.
fn drop_repeated_links(tree: &SnapTree, ranked: &mut Vec<usize>, interactive_only: bool) -> usize {
    // The first link of each (landmark, name, URL) by a hash of the three,
    // checked on a match: a key holding them took 48 bytes a link.
    let mut seen: std::collections::HashMap<u64, usize> = Default::default();
    let key = |c: usize, url| {
        let landmark = tree
            .ancestors(c)
            .find(|&a| LANDMARK_ROLES.contains(&tree.lines[a].role()));
        (landmark, tree.lines[c].name.as_deref(), url)
    };
    let hasher =
        std::hash::BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default();
    let before = ranked.len();
    ranked.retain(|&c| {
        let l = &tree.lines[c];
        if l.role() != "link" {
            return true;
        }
        let Some(url) = link_url(tree, c) else {
            return true;
        };
        // A link holding other candidates is not interchangeable with another
        // (and a heading kept inside it would print it anyway).
        if tree.lines[c + 1..l.subtree_end()]
            .iter()
            .any(|d| is_candidate(d, interactive_only))
        {
            return true;
        }
        // Only within one landmark, the nearest: a footer's copy of a header
        // link is where a task looks for it (counting repeats page-wide lost 7
        // of the 60 survival targets at 8K, per top-level region 2).
        let this = key(c, url);
        let hash = std::hash::BuildHasher::hash_one(&hasher, this);
        match seen.get(&hash) {
            Some(&first) if link_url(tree, first).is_some_and(|u| key(first, u) == this) => false,
            Some(_) => true,
            None => {
                seen.insert(hash, c);
                true
            }
        }
    });
    before - ranked.len()
}

/// Candidates left out before the budget, each reported by its own note.
#[derive(Clone, Copy)]
struct Left {
    outside_viewport: usize,
    repeated: usize,
}

/// What is printed: forced lines, kept elements, and the kept elements whose
/// details are printed too.
struct Plan {
    forced: Vec<usize>,
    kept: Vec<usize>,
    detailed: Vec<usize>,
}

/// The smallest view: what was cut and how to get it. Its text does not
/// name the budget, so its count is a budget that works whatever was asked.
fn header_only(mut out: Budgeted, params: &BudgetParams) -> Budgeted {
    let s = params.surface;
    let text = format!(
        "# Elements: 0 of {} (truncated: token budget)\n# Not one element fits the budget; raise {} or snapshot a subtree with {} or {}",
        out.total,
        Hint::Raise(Limit::MaxTokens, None).spell(s),
        Hint::Snapshot(Handle::Ref("REF".into())).spell(s),
        Hint::Snapshot(Handle::Selector("SEL".into())).spell(s),
    );
    out.tokens = tokens::count(&text, params.encoding);
    out.text = text;
    out.kept = 0;
    out.shown.clear();
    out.truncation = Some(Truncation::TokenBudget);
    out
}

fn count_line(line: &str, enc: Encoding) -> usize {
    let mut s = String::with_capacity(line.len() + 1);
    s.push_str(line);
    s.push('\n');
    tokens::count(&s, enc)
}

/// Tokens the two header lines can take at most.
fn header_reserve(params: &BudgetParams) -> usize {
    let n = params.max_elements.max(100_000);
    let text = format!(
        "# Elements: {n} of {n} (truncated: element limit)\n# Tokens: ~{}\n",
        params.max_tokens
    );
    tokens::count(&text, params.encoding) + 2
}

/// Tokens the closing lines can take: three groups with moderate names, and
/// the details, repeated-links and shortened notes.
fn closing_reserve(params: &BudgetParams) -> usize {
    let group = CutGroup {
        label: "navigation \"Some fairly long region name here\"".into(),
        aria_ref: Some("e99999".into()),
        count: 99999,
    };
    let text = format!(
        "{}\n{}\n{}\n{}\n",
        closing_line(
            99999,
            &[group.clone(), group.clone(), group],
            params.surface
        ),
        details_note(99999, params.surface),
        repeated_note(99999, params.surface),
        shortened_note(params.surface)
    );
    tokens::count(&text, params.encoding) + 8
}

/// Says how many links were left out as repeats, and how to list them.
pub fn repeated_note(n: usize, s: Surface) -> String {
    format!(
        "# {n} repeated links not listed again (same name and URL as a listed link): {} lists each with its ref",
        Hint::Find.spell(s)
    )
}

/// Printed when a shown name or URL was cut with `…`.
pub fn shortened_note(s: Surface) -> String {
    format!(
        "# Names and URLs ending in … are cut short: {} or {} prints them whole",
        Hint::Find.spell(s),
        Hint::Switch(Switch::FullSnapshot, true).spell(s)
    )
}

/// Says that some printed elements lack their props or text, and how to get them.
pub fn details_note(n: usize, s: Surface) -> String {
    format!(
        "# {n} elements shown without their /url or text to fit the budget: {} or {} prints them",
        Hint::Snapshot(Handle::Ref("REF".into())).spell(s),
        Hint::Find.spell(s)
    )
}

/// Token cost of each line, with and without a trailing `:`, counted once.
struct LineCosts<'a> {
    tree: &'a SnapTree,
    enc: Encoding,
    cells: Vec<[Cell<u32>; 2]>,
}

impl<'a> LineCosts<'a> {
    fn new(tree: &'a SnapTree, enc: Encoding) -> Self {
        LineCosts {
            tree,
            enc,
            cells: (0..tree.lines.len())
                .map(|_| [Cell::new(u32::MAX), Cell::new(u32::MAX)])
                .collect(),
        }
    }

    fn get(&self, i: usize, has_children: bool) -> usize {
        let cell = &self.cells[i][has_children as usize];
        if cell.get() == u32::MAX {
            let mut s = String::new();
            push_line(&mut s, &self.tree.lines[i], has_children);
            s.push('\n');
            cell.set(u32::try_from(tokens::count(&s, self.enc)).unwrap_or(u32::MAX - 1));
        }
        cell.get() as usize
    }
}

/// The lines shown so far and what they cost.
struct Selection<'a> {
    tree: &'a SnapTree,
    costs: &'a LineCosts<'a>,
    shown: Vec<bool>,
    shown_children: Vec<u32>,
    /// Tokens of each shown line (32-bit: a line per node of the page).
    cost: Vec<u32>,
    lines_total: usize,
    /// Preamble and notes.
    fixed: usize,
    /// Live regions carry their text as content (interactive-only views).
    live_regions: bool,
}

impl<'a> Selection<'a> {
    fn build(
        tree: &'a SnapTree,
        costs: &'a LineCosts<'a>,
        plan: &Plan,
        fixed: usize,
        live_regions: bool,
    ) -> Self {
        let n = tree.lines.len();
        let mut sel = Selection {
            tree,
            costs,
            shown: vec![false; n],
            shown_children: vec![0; n],
            cost: vec![0; n],
            lines_total: 0,
            fixed,
            live_regions,
        };
        for &f in &plan.forced {
            sel.add_element(f);
        }
        for &k in &plan.kept {
            sel.add_element(k);
        }
        for &d in &plan.detailed {
            sel.add_details(d);
        }
        sel
    }

    fn total(&self) -> usize {
        self.lines_total + self.fixed
    }

    fn line_cost(&self, i: usize, has_children: bool) -> usize {
        self.costs.get(i, has_children)
    }

    /// An element's details: its props and text children.
    fn details(&self, c: usize) -> impl Iterator<Item = usize> + '_ {
        self.tree
            .children(c)
            .filter(|&k| self.tree.lines[k].kind != LineKind::Element)
    }

    fn has_details(&self, c: usize) -> bool {
        self.details(c).next().is_some()
    }

    /// Whether `c`'s details are printed.
    fn details_shown(&self, c: usize) -> bool {
        self.details(c).any(|k| self.shown[k])
    }

    /// Whether `c` is a live region whose text goes with it.
    fn is_live(&self, c: usize) -> bool {
        self.live_regions && is_live_region_role(self.tree.lines[c].role())
    }

    /// A live region's text: the lines under it, in document order, but for
    /// the elements to act on inside it (each ranked, with its details, on
    /// its own).
    fn live_content(&self, c: usize) -> Vec<usize> {
        let end = self.tree.lines[c].subtree_end();
        let mut out = Vec::new();
        let mut i = c + 1;
        while i < end {
            if is_interactive(&self.tree.lines[i]) {
                i = self.tree.lines[i].subtree_end();
                continue;
            }
            out.push(i);
            i += 1;
        }
        out
    }

    /// `c` is printed with less than it has: a live region with part of its
    /// text, an element without its props and text.
    fn missing_details(&self, c: usize) -> bool {
        if self.is_live(c) {
            self.live_content(c).iter().any(|&k| !self.shown[k])
        } else {
            self.has_details(c) && !self.details_shown(c)
        }
    }

    /// What a line's cost becomes when it gains its first printed child.
    fn colon_delta(&self, i: usize) -> usize {
        if self.shown[i] && self.shown_children[i] == 0 {
            self.line_cost(i, true)
                .saturating_sub(self.cost[i] as usize)
        } else {
            0
        }
    }

    /// Extra tokens for printing element `c` and the ancestors it needs.
    fn element_delta(&self, c: usize) -> usize {
        if self.shown[c] {
            return 0;
        }
        let mut extra = self.line_cost(c, false);
        for a in self.tree.ancestors(c) {
            if self.shown[a] {
                extra += self.colon_delta(a);
                break;
            }
            extra += self.line_cost(a, true);
        }
        extra
    }

    /// Extra tokens for printing `c`'s details under it.
    fn details_delta(&self, c: usize) -> usize {
        let lines: usize = self
            .details(c)
            .filter(|&k| !self.shown[k])
            .map(|k| self.line_cost(k, false))
            .sum();
        if lines == 0 {
            0
        } else {
            lines + self.colon_delta(c)
        }
    }

    fn show_line(&mut self, i: usize) {
        if self.shown[i] {
            return;
        }
        self.shown[i] = true;
        let cost = self.line_cost(i, self.shown_children[i] > 0);
        self.cost[i] = u32::try_from(cost).unwrap_or(u32::MAX);
        self.lines_total += cost;
        if let Some(p) = self.tree.lines[i].parent() {
            self.shown_children[p] += 1;
            if self.shown_children[p] == 1 && self.shown[p] {
                let new = self.line_cost(p, true);
                self.lines_total = self.lines_total + new - self.cost[p] as usize;
                self.cost[p] = u32::try_from(new).unwrap_or(u32::MAX);
            }
        }
    }

    /// Show `c` and every ancestor, top down.
    fn add_element(&mut self, c: usize) {
        let mut chain: Vec<usize> = self
            .tree
            .ancestors(c)
            .take_while(|&a| !self.shown[a])
            .collect();
        chain.reverse();
        for a in chain {
            self.show_line(a);
        }
        self.show_line(c);
    }

    fn add_details(&mut self, c: usize) {
        let details: Vec<usize> = self.details(c).collect();
        for k in details {
            self.show_line(k);
        }
    }
}

impl Fitter<'_> {
    /// The view of the lines `sel` shows: the header (when something was
    /// cut), the preamble, the lines, the closing notes.
    fn finish(&self, sel: &Selection<'_>) -> Budgeted {
        let Left {
            outside_viewport,
            repeated,
        } = self.left;
        let ranked = &self.ranked;
        // Candidates printed as ancestors of kept ones count as kept: they are there, with refs.
        let total = ranked.len();
        let shown_count = self.shown_candidates(sel);
        let truncation = if shown_count == total {
            None
        } else if ranked[..self.considered].iter().any(|&c| !sel.shown[c]) {
            Some(Truncation::TokenBudget)
        } else {
            Some(Truncation::ElementLimit)
        };
        let mut body = String::new();
        let mut shown = Vec::new();
        let mut behind = self.frame.behind.as_ref();
        for (i, line) in self.tree.lines.iter().enumerate() {
            if sel.shown[i] {
                if let Some((_, note)) = behind.filter(|(at, _)| i >= *at) {
                    body.push_str(note);
                    body.push('\n');
                    behind = None;
                }
                push_line(&mut body, line, sel.shown_children[i] > 0);
                body.push('\n');
                shown.push(i);
            }
        }
        if let Some((_, note)) = behind {
            body.push_str(note);
            body.push('\n');
        }
        let (tail, cut_groups) = self.closing(sel, truncation.is_some(), &shown);
        let mut rest = String::new();
        for line in &self.frame.preamble {
            rest.push_str(line);
            rest.push('\n');
        }
        rest.push_str(&body);
        rest.push_str(&tail);
        while rest.ends_with('\n') {
            rest.pop();
        }
        // Pre-tokenization never joins text across a line break (the break ends
        // the previous line's last piece), so header and rest count apart.
        let rest_tokens = tokens::count(&rest, self.params.encoding);
        let (text, count) = match truncation {
            None => (rest, rest_tokens),
            Some(tr) => {
                let header = |t: usize| {
                    format!(
                        "# Elements: {shown_count} of {total} (truncated: {})\n# Tokens: ~{t}\n",
                        tr.header_words()
                    )
                };
                let t = header_fixpoint(&header, rest_tokens, self.params.encoding);
                let mut text = header(t);
                text.push_str(&rest);
                (text, t)
            }
        };
        Budgeted {
            text,
            tokens: count,
            total,
            kept: shown_count,
            truncation,
            outside_viewport,
            cut_groups,
            repeated,
            shown,
        }
    }

    /// The closing lines after the tree: where the cut elements are (when
    /// `truncated`), then one note for each kind of thing left out or
    /// shortened, then the frame's notes. Also the groups of cut elements.
    fn closing(
        &self,
        sel: &Selection<'_>,
        truncated: bool,
        shown: &[usize],
    ) -> (String, Vec<CutGroup>) {
        let surface = self.params.surface;
        let ranked = &self.ranked;
        let mut tail = String::new();
        let mut cut_groups = Vec::new();
        if truncated {
            // One list of what was cut, in the lines the containers know.
            let cut = ranked.iter().copied().filter(|&c| !sel.shown[c]);
            let cut: Vec<usize> = match self.compaction {
                Some(c) => cut.map(|k| c.source[k] as usize).collect(),
                None => cut.collect(),
            };
            cut_groups = match self.compaction {
                Some(c) => c.containers.group(&cut),
                None => Containers::of_tree(self.tree).group(&cut),
            };
            tail.push_str(&closing_line(cut.len(), &cut_groups, surface));
            tail.push('\n');
        }
        let bare = ranked
            .iter()
            .filter(|&&k| sel.shown[k] && sel.missing_details(k))
            .count();
        if bare > 0 {
            tail.push_str(&details_note(bare, surface));
            tail.push('\n');
        }
        if self.left.repeated > 0 {
            tail.push_str(&repeated_note(self.left.repeated, surface));
            tail.push('\n');
        }
        if let Some(c) = self.compaction
            && shown
                .iter()
                .any(|&i| c.shortened.get(i).copied().unwrap_or(false))
        {
            tail.push_str(&shortened_note(surface));
            tail.push('\n');
        }
        let outside_viewport = self.left.outside_viewport;
        if outside_viewport > 0 {
            tail.push_str(&format!(
                "# {outside_viewport} more elements are outside the viewport: {} includes them\n",
                Hint::Switch(Switch::ViewportOnly, false).spell(surface)
            ));
        }
        for note in &self.frame.notes {
            tail.push_str(note);
            tail.push('\n');
        }
        (tail, cut_groups)
    }
}

/// The `# Tokens: ~T` header counts the output it is part of: find T with
/// `count(header(T)) + rest == T`. The header's count moves only with T's
/// digit count, so a few rounds settle it.
fn header_fixpoint(header: &dyn Fn(usize) -> String, rest: usize, enc: Encoding) -> usize {
    let total = |t: usize| tokens::count(&header(t), enc) + rest;
    let mut t = total(rest);
    for _ in 0..8 {
        let n = total(t);
        if n == t {
            return t;
        }
        t = n;
    }
    // Oscillating across a digit boundary: search near it.
    (t.saturating_sub(8)..t + 8)
        .find(|&c| total(c) == c)
        .unwrap_or(t)
}

/// Each line's nearest ancestor that names where cut elements are (a
/// landmark, list or table with a ref): what the closing line needs of a
/// tree, kept apart so a compacted view can let the lines it came from go.
#[derive(Clone, Debug, Default)]
pub struct Containers {
    /// Per line: an index into `list`, or `NONE`.
    of: Vec<u32>,
    /// The containers in document order: (label, ref).
    list: Vec<(String, Option<String>)>,
}

impl Containers {
    const NONE: u32 = u32::MAX;

    pub fn of_tree(tree: &SnapTree) -> Containers {
        let mut c = Containers {
            of: Vec::with_capacity(tree.lines.len()),
            list: Vec::new(),
        };
        // Per line: its own index in `list`, if it is a container. Lines
        // are in preorder, so a parent's entries are set before its children's.
        let mut own_index = Vec::with_capacity(tree.lines.len());
        for l in &tree.lines {
            let nearest =
                l.parent()
                    .map_or(Containers::NONE, |p| match own_index.get(p).copied() {
                        Some(k) if k != Containers::NONE => k,
                        _ => c.of.get(p).copied().unwrap_or(Containers::NONE),
                    });
            c.of.push(nearest);
            let is_container = l.aria_ref.is_some() && CONTAINER_ROLES.contains(&l.role());
            let own = if is_container {
                c.list
                    .push((label(l), l.aria_ref.as_deref().map(String::from)));
                (c.list.len() - 1) as u32
            } else {
                Containers::NONE
            };
            own_index.push(own);
        }
        c
    }

    /// The biggest groups of `cut` (lines) by container, at most three.
    fn group(&self, cut: &[usize]) -> Vec<CutGroup> {
        // Counted by container in a map: a page of many small lists (a spec
        // list per product card) has as many groups as cut elements.
        let mut counts: std::collections::HashMap<u32, usize> = Default::default();
        let mut loose = 0usize;
        for &c in cut {
            match self.of.get(c).copied().unwrap_or(Containers::NONE) {
                Containers::NONE => loose += 1,
                k => *counts.entry(k).or_default() += 1,
            }
        }
        let mut groups: Vec<(u32, usize)> = counts.into_iter().collect(); // (container, count)
        // Biggest groups first; equal counts in document order.
        groups.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut out: Vec<CutGroup> = groups
            .into_iter()
            .take(3)
            .map(|(k, count)| {
                let (label, aria_ref) = &self.list[k as usize];
                CutGroup {
                    label: label.clone(),
                    aria_ref: aria_ref.clone(),
                    count,
                }
            })
            .collect();
        if out.is_empty() && loose > 0 {
            out.push(CutGroup {
                label: "the page".into(),
                aria_ref: None,
                count: loose,
            });
        }
        out
    }
}

/// `role "name"` with the name shortened for a one-line note.
pub(crate) fn label(l: &Line) -> String {
    match &l.name {
        Some(n) if !n.is_empty() => {
            let short: String = n.chars().take(40).collect();
            let ell = if n.chars().count() > 40 { "…" } else { "" };
            format!("{} {:?}", l.role(), format!("{short}{ell}"))
        }
        _ => l.role().to_string(),
    }
}

/// Says how many were cut, where most of them are, and how to get them.
pub fn closing_line(cut: usize, groups: &[CutGroup], surface: Surface) -> String {
    let mut s = format!("# {cut} lower-priority elements not shown");
    let located: Vec<String> = groups
        .iter()
        .filter_map(|g| {
            g.aria_ref
                .as_ref()
                .map(|r| format!("{} in {} [ref={r}]", g.count, g.label))
        })
        .collect();
    if !located.is_empty() {
        s.push_str(" (");
        s.push_str(&located.join(", "));
        s.push(')');
    }
    let say = |h: Hint| h.spell(surface);
    s.push_str(&format!(
        ". To see them: {} (one subtree) or {}, raise {} or {}; {} gives an element's HTML",
        say(Hint::Snapshot(Handle::Ref("REF".into()))),
        say(Hint::Snapshot(Handle::Selector("SEL".into()))),
        say(Hint::Raise(Limit::MaxElements, None)),
        say(Hint::Raise(Limit::MaxTokens, None)),
        say(Hint::Chunk(Handle::Ref("REF".into()), false)),
    ));
    s
}
