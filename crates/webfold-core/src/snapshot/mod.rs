//! The accessibility snapshot as agents get it: budgeted, stable, deduped, diffed.
//!
//! [`crate::aria`] renders Playwright's YAML for a page. This layer (seed 001)
//! turns it into the view an agent reads, under a budget that is a promise:
//! - [`budget`]: keep the highest-priority elements ([`priority`]) under
//!   `max_elements` and an exact `max_tokens` (header included), keep their
//!   ancestors, and say what was cut and how to get it;
//! - [`session`]: per conversation and page name, history breadcrumbs, stable
//!   refs, and the previous tree;
//! - [`compact`]: the view's lines in fewer tokens (no redundant
//!   `[cursor=pointer]`, page-relative `/url`s, nothing-but-a-ref wrappers
//!   left out), still lines our parser reads back;
//! - [`dedup`]: site chrome unchanged since the previous page of the same site
//!   prints as one line;
//! - [`diff`]: a second snapshot of the same URL prints only what changed;
//! - [`parse`]: the reader for the YAML all of this works on, line by line;
//! - [`find`]: the few nodes matching a text or regex, with their refs;
//! - [`front`]: an open modal dialog first, the page behind it marked as
//!   such, open popups ranked high.
//!
//! `full_snapshot` bypasses every limit: without a session the text is
//! byte-for-byte Playwright's; with one it gains only the breadcrumb line and
//! session-stable refs.

pub mod budget;
pub mod compact;
pub mod dedup;
mod def;
pub mod diff;
pub mod find;
pub mod front;
pub mod parse;
pub mod priority;
pub mod session;

use crate::aria::{self, Mode};
use crate::contract::{Ctx, Handle, Hint, Limit, Request, Surface, Switch};
use crate::error::Error;
use crate::layers::Layers;
use crate::page::{NodeData, NodeId, Page};
use crate::purpose::TaskFocus;
use crate::tokens;

pub use budget::{CutGroup, Truncation};
pub use def::{FindView, NAME, SnapshotView};
pub use diff::DiffStats;
pub use parse::{Line, LineKind, SnapTree, parse};
pub use session::SnapshotSession;

/// Seed 001's defaults, and the element limit's range. The token budget has
/// no range: any budget is honoured, down to the header alone, and one too
/// small for that is refused with the budget that works.
pub const DEFAULT_MAX_ELEMENTS: usize = 300;
pub const MAX_ELEMENTS_RANGE: (usize, usize) = (1, 1000);
use crate::contract::DEFAULT_MAX_TOKENS;

/// The snapshot's request (see [`crate::contract`]): the budget options
/// with their defaults, the mode and the part of the page.
#[derive(
    Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct SnapshotOptions {
    /// ai (with refs) or aria
    pub mode: Mode,
    /// Only interactive elements (with headings and live regions)
    pub interactive_only: bool,
    /// Everything, no limits
    pub full_snapshot: bool,
    /// Elements kept at most
    #[schemars(range(min = 1, max = 1000))]
    pub max_elements: usize,
    /// Token budget
    #[schemars(range(min = 1))]
    pub max_tokens: usize,
    /// Only elements in the viewport (live pages)
    pub viewport_only: bool,
    /// Show navigation breadcrumbs
    pub include_history: bool,
    /// Only changes since the last snapshot
    pub diff: bool,
    /// Only this CSS selector's subtree
    pub selector: Option<String>,
    /// Only this ref's subtree
    #[serde(rename = "ref")]
    pub r#ref: Option<String>,
    /// A task: what it names ranks first
    pub focus: Option<String>,
}

impl Default for SnapshotOptions {
    fn default() -> Self {
        SnapshotOptions {
            mode: Mode::Ai,
            interactive_only: true,
            full_snapshot: false,
            max_elements: DEFAULT_MAX_ELEMENTS,
            max_tokens: DEFAULT_MAX_TOKENS,
            viewport_only: false,
            include_history: true,
            diff: false,
            selector: None,
            r#ref: None,
            focus: None,
        }
    }
}

impl Request for SnapshotOptions {
    fn validate(&self, surface: Surface) -> Result<(), Error> {
        self.scope(surface).map(|_| ())
    }
}

impl SnapshotOptions {
    /// The options with `max_elements` clamped to its range.
    pub fn clamped(&self) -> SnapshotOptions {
        let mut o = self.clone();
        o.max_elements = o
            .max_elements
            .clamp(MAX_ELEMENTS_RANGE.0, MAX_ELEMENTS_RANGE.1);
        o
    }

    /// The part of the page `selector` or `ref` names (the whole page when neither).
    pub fn scope(&self, surface: Surface) -> Result<Scope, Error> {
        match (&self.selector, &self.r#ref) {
            (None, None) => Ok(Scope::Page),
            (Some(s), None) => Ok(Scope::Selector(s.clone())),
            (None, Some(r)) => Ok(Scope::Ref(r.clone())),
            _ => Err(Error::InvalidOption(format!(
                "give {} or {}, not both",
                crate::contract::parse::option_name("selector", surface),
                crate::contract::parse::option_name("ref", surface)
            ))),
        }
    }
}

/// Which part of the page to snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    #[default]
    Page,
    /// The subtree of the first element a CSS selector matches.
    Selector(String),
    /// The subtree of the element with this ref.
    Ref(String),
}

/// What kind of view came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewKind {
    /// Everything, as Playwright prints it.
    Full,
    /// Cut to the budget (or within it without cuts).
    Budgeted,
    /// Only the changes since the previous snapshot of this URL.
    Diff,
}

/// A snapshot view and what it did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Snapshot {
    pub text: String,
    /// Exact tokens of `text`.
    pub tokens: usize,
    pub kind: ViewKind,
    /// Elements the view counts (N of the header).
    pub total_elements: usize,
    /// Elements printed (K of the header).
    pub kept_elements: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncation: Option<Truncation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cut_groups: Vec<CutGroup>,
    /// Links not listed because an equal one (same name and URL) is.
    #[serde(skip_serializing_if = "is_zero")]
    pub repeated_links: usize,
    /// Refs of subtrees printed as `(unchanged since previous page)`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unchanged: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<DiffStats>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The open modal dialog the view leads with: the rest of the page is
    /// inert until it closes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modal_dialog: Option<ModalDialog>,
}

/// An open modal dialog, as a view names it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ModalDialog {
    pub name: String,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub aria_ref: Option<String>,
}

impl Snapshot {
    /// A full view of nothing: each view sets the fields it has.
    fn empty() -> Snapshot {
        Snapshot {
            text: String::new(),
            tokens: 0,
            kind: ViewKind::Full,
            total_elements: 0,
            kept_elements: 0,
            truncation: None,
            cut_groups: Vec::new(),
            repeated_links: 0,
            unchanged: Vec::new(),
            diff: None,
            url: None,
            title: None,
            modal_dialog: None,
        }
    }
}

/// The page's full tree as parsed lines, with the DOM facts behind each line.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub tree: SnapTree,
    /// Per line: the DOM element behind it (elements only).
    pub nodes: Vec<Option<NodeId>>,
    /// Per line: in the viewport of a live capture.
    pub in_viewport: Vec<bool>,
    /// Per line: DOM position hash (0 for text and props).
    pub dom: Vec<u64>,
}

/// Build and render the page's full tree and read it back as lines. With a
/// session, refs are renumbered to the session's (the session remembers them).
pub fn prepare(
    page: &Page,
    mode: Mode,
    url: &str,
    session: Option<&mut SnapshotSession>,
) -> Result<(Prepared, Vec<session::RefIdentity>), Error> {
    prepare_for(page, (mode, false), url, session)
}

/// [`prepare`], or with `seen_only` the tree of what a person can see
/// ([`aria::build_for`]): what every view but Playwright's own reads.
pub fn prepare_for(
    page: &Page,
    (mode, seen_only): (Mode, bool),
    url: &str,
    session: Option<&mut SnapshotSession>,
) -> Result<(Prepared, Vec<session::RefIdentity>), Error> {
    let Some(root) = page.body().or_else(|| page.document_element()) else {
        return Ok((
            Prepared {
                tree: SnapTree::default(),
                nodes: Vec::new(),
                in_viewport: Vec::new(),
                dom: Vec::new(),
            },
            Vec::new(),
        ));
    };
    // The tree, its text and the lines read back are each as large as the
    // page: hold what the lines need of the tree (`Printed`) and let each
    // go before the next is built (the text a block at a time as it is read).
    let (yaml, printed) = {
        let mut aria_tree = aria::build_for(page, root, mode, seen_only);
        if mode == Mode::Ai {
            aria::assign_refs(&mut aria_tree);
        }
        let printed: Vec<Printed> = aria_tree.nodes.iter().skip(1).map(Printed::of).collect();
        (aria::render_yaml_blocks(aria_tree), printed)
    };
    let mut tree = parse::parse_blocks(yaml).map_err(|e| {
        Error::InvalidOption(format!(
            "internal: the snapshot did not read back ({e}); please report this page"
        ))
    })?;

    // Arena nodes after the root are the printed lines (elements and text) in
    // preorder. Props lines have no node, and a line printing its only text
    // child inline (`- strong: Hi`) stands for that child too.
    let n = tree.lines.len();
    let mut nodes = vec![None; n];
    let mut in_viewport = vec![false; n];
    let mut arena = printed.iter();
    for (i, line) in tree.lines.iter().enumerate() {
        if line.kind == LineKind::Prop {
            continue;
        }
        let Some(node) = arena.next() else { break };
        if line.kind == LineKind::Element && line.raw_value().is_some() {
            for _ in 0..node.children {
                arena.next();
            }
        }
        if line.kind != LineKind::Element || node.role != role_hash(line.role()) as u32 {
            continue;
        }
        if let Some(id) = node.node {
            nodes[i] = Some(id);
            in_viewport[i] = page.layout(id).is_some_and(|l| l.in_viewport);
        }
    }
    drop(printed);
    let dom = line_positions(page, &nodes);
    let identities = match session {
        Some(s) if mode == Mode::Ai => {
            let element_dom: Vec<u64> = (0..n)
                .filter(|&i| tree.lines[i].is_element())
                .map(|i| dom[i])
                .collect();
            s.stabilize_refs(&mut tree, url, &element_dom)
        }
        _ => Vec::new(),
    };
    Ok((
        Prepared {
            tree,
            nodes,
            in_viewport,
            dom,
        },
        identities,
    ))
}

/// What matching a printed line to its DOM element needs of an arena node.
struct Printed {
    node: Option<NodeId>,
    children: u32,
    /// The role's hash, cut to 32 bits: it tells a line's node from its
    /// neighbours', and a node per element is held.
    role: u32,
}

impl Printed {
    fn of(n: &aria::AriaNode) -> Printed {
        Printed {
            node: n.node,
            children: n.children.len() as u32,
            role: role_hash(n.role) as u32,
        }
    }
}

/// A role name's hash: compared, never shown.
fn role_hash(role: &str) -> u64 {
    fnv1a(0, role.bytes())
}

/// FNV-1a of `bytes`, from the offset basis mixed with `seed`.
fn fnv1a(seed: u64, bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes
        .into_iter()
        .fold(seed ^ 0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
}

/// A hash per element of its DOM position: the chain of tag names and
/// element sibling indexes from the root. Stable across parses of the same
/// markup and across edits elsewhere on the page. `at` is called with each
/// element and its hash, in document order, until it answers `false`.
///
/// One pass with the open ancestors on a stack (the arena is in preorder,
/// so a node's parent is on it): no table as long as the page.
fn dom_positions(page: &Page, mut at: impl FnMut(NodeId, u64) -> bool) {
    // (node, its hash, element children seen so far)
    let mut open: Vec<(usize, u64, u32)> = Vec::new();
    for (i, node) in page.nodes().iter().enumerate() {
        let parent = node.parent.map(NodeId::index);
        while open.last().is_some_and(|top| Some(top.0) != parent) {
            open.pop();
        }
        let mut hash = 0;
        if let NodeData::Element(e) = &node.data {
            let (parent_hash, index) = match open.last_mut() {
                Some(top) => {
                    top.2 += 1;
                    (top.1, top.2)
                }
                None => (0, 0),
            };
            let name = e.local_name().bytes();
            hash = fnv1a(parent_hash, name.chain(index.to_le_bytes())).max(1);
            if !at(NodeId::new(i as u32), hash) {
                return;
            }
        }
        open.push((i, hash, 0));
    }
}

/// The DOM position hash of each line's element (0 for lines without one).
fn line_positions(page: &Page, nodes: &[Option<NodeId>]) -> Vec<u64> {
    let mut wanted: Vec<(NodeId, u32)> = nodes
        .iter()
        .enumerate()
        .filter_map(|(line, n)| Some(((*n)?, line as u32)))
        .collect();
    // Lines follow the document but for `aria-owns`: mostly sorted already.
    wanted.sort_unstable();
    let mut dom = vec![0u64; nodes.len()];
    let mut next = wanted.iter().peekable();
    dom_positions(page, |id, hash| {
        while let Some(&&(n, line)) = next.peek() {
            if n > id {
                break;
            }
            if n == id {
                dom[line as usize] = hash;
            }
            next.next();
        }
        next.peek().is_some()
    });
    dom
}

/// The snapshot view of `page` (at `url`, for history and same-site dedup).
/// A call that fails leaves the session as it was: the call that follows
/// (with the budget the error names, say) sees the same history and
/// previous snapshot, so it prints the view, not a diff against one never shown.
pub fn snapshot(
    page: &Page,
    url: &str,
    scope: &Scope,
    options: &SnapshotOptions,
    session: Option<&mut SnapshotSession>,
    ctx: Ctx,
) -> Result<Snapshot, Error> {
    match session {
        None => view(page, url, scope, (options, ctx), None),
        Some(s) => {
            let before = s.clone();
            let r = view(page, url, scope, (options, ctx), Some(&mut *s));
            if r.is_err() {
                *s = before;
            }
            r
        }
    }
}

fn view(
    page: &Page,
    url: &str,
    scope: &Scope,
    (options, ctx): (&SnapshotOptions, Ctx),
    mut session: Option<&mut SnapshotSession>,
) -> Result<Snapshot, Error> {
    let opts = options.clamped();
    if opts.viewport_only && !page.has_layout() {
        return Err(viewport_needs_live_page(ctx.surface));
    }
    let title = page.title();
    let scoped = *scope != Scope::Page;
    // A scoped view reads the session (for refs) but does not move it on.
    let mut scratch;
    let sess: Option<&mut SnapshotSession> = match session.as_deref_mut() {
        Some(s) if scoped => {
            scratch = s.clone();
            Some(&mut scratch)
        }
        other => other,
    };
    let seen_only = !opts.full_snapshot;
    let (prepared, identities) = prepare_for(page, (opts.mode, seen_only), url, sess)?;
    // Session bookkeeping first, so breadcrumbs include this page.
    let mut history = session
        .map(|s| History::record(s, page, url, &opts, scoped, &prepared, identities))
        .unwrap_or_default();
    // What is in front of the page: the budgeted view of the whole page leads with it.
    let (front, modal_name) = match scope {
        Scope::Page => front::tag_lines(&prepared, page, &Layers::of(page)),
        _ => (Vec::new(), None),
    };
    let (tree, nodes_vp) = scoped_tree(page, scope, prepared, ctx.surface)?;

    let base = Snapshot {
        url: Some(url.to_string()),
        title,
        ..Snapshot::empty()
    };
    if opts.full_snapshot {
        return Ok(full_view(&tree, &history.preamble, (&opts, ctx), base));
    }

    // Fewer tokens for the same facts (see `compact`); refs and lines stay parseable.
    let urls = compact::PageUrls::new(url, page.base_href());
    // A repeated snapshot of the same URL: only what changed, when that is
    // shorter than the view itself.
    let mut diff_view = None;
    if opts.diff
        && let Some(prev) = &history.previous_same_url
        && let Ok(old) = parse::parse(&prev.yaml)
    {
        diff_view = Some(changes_view(
            &old,
            &tree,
            &mut history.preamble,
            &urls,
            ctx,
            &base,
        ));
    }
    let chrome = match &history.previous_same_site {
        Some(prev) if !scoped => collapse_chrome(tree, nodes_vp, &front, prev),
        _ => Chrome {
            tree,
            in_viewport: nodes_vp,
            front,
            forced: Vec::new(),
            unchanged: Vec::new(),
        },
    };
    let led = front::lead_with_modal(
        chrome.tree,
        chrome.front,
        chrome.in_viewport,
        chrome.forced,
        modal_name.as_deref(),
    );
    let modal_dialog = led.behind.as_ref().and(modal_name).map(|name| ModalDialog {
        name,
        aria_ref: led
            .tree
            .lines
            .first()
            .and_then(|l| l.aria_ref.as_deref().map(String::from)),
    });
    let b = budgeted_view(page, led, &urls, (&opts, ctx), history.preamble);
    let base = Snapshot {
        modal_dialog,
        ..base
    };
    shorter_view(b, diff_view, chrome.unchanged, (&opts, ctx), base)
}

/// The budgeted view `b`, or the diff view when that is shorter and fits;
/// an error when not even `b`'s header fits the budget.
fn shorter_view(
    b: budget::Budgeted,
    diff_view: Option<Snapshot>,
    unchanged: Vec<String>,
    (opts, ctx): (&SnapshotOptions, Ctx),
    base: Snapshot,
) -> Result<Snapshot, Error> {
    if let Some(d) = diff_view
        && d.tokens < b.tokens
        && d.tokens <= opts.max_tokens
    {
        return Ok(d);
    }
    if b.tokens > opts.max_tokens {
        // Not even the header fits. Its text does not depend on the budget,
        // so its count is a budget that works.
        return Err(Error::BudgetTooSmall {
            what: "the snapshot's header".into(),
            needed: b.tokens,
            max_tokens: opts.max_tokens,
            advice: format!(
                "raise {}",
                Hint::Raise(Limit::MaxTokens, Some(b.tokens)).spell(ctx.surface)
            ),
        });
    }
    Ok(Snapshot {
        text: b.text,
        tokens: b.tokens,
        kind: ViewKind::Budgeted,
        total_elements: b.total,
        kept_elements: b.kept,
        truncation: b.truncation,
        cut_groups: b.cut_groups,
        repeated_links: b.repeated,
        unchanged,
        ..base
    })
}

/// The refusal of `viewport_only` on a page without layout.
fn viewport_needs_live_page(surface: Surface) -> Error {
    let name = crate::contract::parse::option_name("viewport_only", surface);
    Error::InvalidOption(format!(
        "{name} needs a live page: static HTML has no viewport. Snapshot a live browser page, or leave out {name} (and snapshot a part of the page with {} or {})",
        crate::contract::parse::option_name("selector", surface),
        crate::contract::parse::option_name("ref", surface),
    ))
}

/// What the session knows before this view: the last snapshots to diff and
/// dedup against, and the breadcrumbs to print first.
#[derive(Default)]
struct History {
    preamble: Vec<String>,
    previous_same_url: Option<session::PreviousSnapshot>,
    previous_same_site: Option<session::PreviousSnapshot>,
}

impl History {
    /// Read the session's previous snapshots, then (for a whole-page view)
    /// record this page as the latest.
    fn record(
        s: &mut SnapshotSession,
        page: &Page,
        url: &str,
        opts: &SnapshotOptions,
        scoped: bool,
        prepared: &Prepared,
        identities: Vec<session::RefIdentity>,
    ) -> History {
        let mode_name = mode_name(opts.mode);
        let mut h = History::default();
        if !scoped {
            h.previous_same_url = s.previous_of(url, mode_name).cloned();
            h.previous_same_site = s
                .previous_same_site(url)
                .filter(|p| p.mode == mode_name)
                .cloned();
            s.record_navigation(url, page.title().as_deref());
            s.previous = Some(session::PreviousSnapshot {
                url: url.to_string(),
                mode: mode_name.to_string(),
                yaml: prepared.tree.render(),
                markup: markup_hash(page),
                refs: identities,
                nav: dedup::nav_pattern(&prepared.tree),
                chrome_refs: session::chrome_refs(&prepared.tree),
            });
        }
        if opts.include_history
            && let Some(b) = s.breadcrumbs()
        {
            h.preamble.push(b);
        }
        h
    }
}

/// The lines the scope asks for, with whether each is in the viewport.
fn scoped_tree(
    page: &Page,
    scope: &Scope,
    prepared: Prepared,
    surface: Surface,
) -> Result<(SnapTree, Vec<bool>), Error> {
    match scope {
        Scope::Page => Ok((prepared.tree, prepared.in_viewport)),
        Scope::Ref(r) => {
            let Some(line) = prepared.tree.find_ref(r) else {
                return Err(Error::UnknownRef(r.clone()));
            };
            Ok(subtree_forest(&prepared, &[line]))
        }
        Scope::Selector(sel) => {
            let target = page.query(sel)?;
            let roots = lines_under(&prepared, page, target);
            if roots.is_empty() {
                return Err(Error::InvalidOption(format!(
                    "'{sel}' matches an element with nothing in the accessibility tree (hidden or presentational): try a parent, or {} for its HTML",
                    Hint::Chunk(Handle::Selector(sel.clone()), false).spell(surface)
                )));
            }
            Ok(subtree_forest(&prepared, &roots))
        }
    }
}

/// The elements a view counts: every candidate line.
fn count_elements(t: &SnapTree, opts: &SnapshotOptions) -> usize {
    t.lines
        .iter()
        .filter(|l| budget::is_candidate(l, opts.interactive_only && !opts.full_snapshot))
        .count()
}

/// `full_snapshot`: the whole tree after the preamble, no budget.
fn full_view(
    tree: &SnapTree,
    preamble: &[String],
    (opts, ctx): (&SnapshotOptions, Ctx),
    base: Snapshot,
) -> Snapshot {
    let mut text = preamble.join("\n");
    if !text.is_empty() && !tree.is_empty() {
        text.push('\n');
    }
    text.push_str(&tree.render());
    let n = count_elements(tree, opts);
    Snapshot {
        tokens: tokens::count(&text, ctx.encoding),
        text,
        total_elements: n,
        kept_elements: n,
        ..base
    }
}

/// The diff view of `tree` against the last snapshot of the same URL. It
/// also notes the change counts in `preamble`, for the budgeted view shown
/// when that is the shorter.
fn changes_view(
    old: &SnapTree,
    tree: &SnapTree,
    preamble: &mut Vec<String>,
    urls: &compact::PageUrls,
    ctx: Ctx,
    base: &Snapshot,
) -> Snapshot {
    let (changes, stats) = diff::diff(old, tree);
    let mut text = preamble.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    let whole = Hint::Switch(Switch::Diff, false).spell(ctx.surface);
    if stats.is_empty() {
        text.push_str(&format!(
            "# No changes since the last snapshot of this page ({whole} prints it whole)"
        ));
    } else {
        text.push_str(&format!(
            "# Changes since the last snapshot of this page: {} added, {} removed, {} changed ({whole} prints it whole)\n",
            stats.added, stats.removed, stats.changed
        ));
        // The same line forms as the view, every changed line and its path kept.
        let c = compact::compact(changes, urls, false);
        text.push_str(&c.tree.render());
        if c.shortened.contains(&true) {
            text.push('\n');
            text.push_str(&budget::shortened_note(ctx.surface));
        }
    }
    let t = tokens::count(&text, ctx.encoding);
    preamble.push(format!(
        "# {} added, {} removed, {} changed since the last snapshot of this page; the whole view is shorter than the list",
        stats.added, stats.removed, stats.changed
    ));
    Snapshot {
        text,
        tokens: t,
        kind: ViewKind::Diff,
        diff: Some(stats),
        ..base.clone()
    }
}

/// The tree with the chrome shared with the last page of the same site
/// collapsed (one line each).
struct Chrome {
    tree: SnapTree,
    in_viewport: Vec<bool>,
    /// Per line: in a dialog or popup in front of the page.
    front: Vec<front::Front>,
    /// Marker lines the budget must keep.
    forced: Vec<usize>,
    /// The refs of the collapsed chrome.
    unchanged: Vec<String>,
}

/// Another page of the same site: unchanged chrome becomes one line each.
fn collapse_chrome(
    tree: SnapTree,
    nodes_vp: Vec<bool>,
    front: &[front::Front],
    prev: &session::PreviousSnapshot,
) -> Chrome {
    let c = dedup::collapse(&tree, &prev.nav);
    let in_viewport: Vec<bool> = c
        .source
        .iter()
        .map(|&s| nodes_vp.get(s).copied().unwrap_or(false))
        .collect();
    let front = c
        .source
        .iter()
        .map(|&s| front.get(s).copied().unwrap_or_default())
        .collect();
    let unchanged = c
        .markers
        .iter()
        .filter_map(|&m| c.tree.lines[m].aria_ref.as_deref().map(String::from))
        .collect();
    Chrome {
        tree: c.tree,
        in_viewport,
        front,
        forced: c.markers,
        unchanged,
    }
}

/// The compacted tree fitted to the budget, after the preamble and notes.
fn budgeted_view(
    page: &Page,
    led: front::Led,
    urls: &compact::PageUrls,
    (opts, ctx): (&SnapshotOptions, Ctx),
    preamble: Vec<String>,
) -> budget::Budgeted {
    let (in_viewport, forced) = (&led.in_viewport, &led.forced);
    let origin_len = led.tree.lines.len();
    let c = compact::compact(led.tree, urls, opts.interactive_only);
    let params = budget::BudgetParams {
        interactive_only: opts.interactive_only,
        viewport_only: opts.viewport_only,
        max_elements: opts.max_elements,
        max_tokens: opts.max_tokens,
        encoding: ctx.encoding,
        surface: ctx.surface,
        focus: opts.focus.as_deref().and_then(TaskFocus::new),
        front: c
            .source
            .iter()
            .map(|&s| led.front.get(s as usize).copied().unwrap_or_default())
            .collect(),
    };
    let mut notes = Vec::new();
    if opts.interactive_only {
        notes.push(format!(
            "# Interactive elements only; all roles ({}) add text and structure",
            Hint::Switch(Switch::InteractiveOnly, false).spell(ctx.surface)
        ));
    }
    let in_viewport: Vec<bool> = c.source.iter().map(|&s| in_viewport[s as usize]).collect();
    let mut is_forced = vec![false; origin_len];
    for &f in forced {
        if let Some(slot) = is_forced.get_mut(f) {
            *slot = true;
        }
    }
    let forced: Vec<usize> = (0..c.source.len())
        .filter(|&k| is_forced[c.source[k] as usize])
        .collect();
    let compaction = budget::Compaction {
        containers: &c.containers,
        source: &c.source,
        shortened: &c.shortened,
    };
    // The note goes before the first line behind the dialog that the compact tree kept.
    let behind = led.behind.as_ref().map(|(first, note)| {
        let at = c.source.iter().position(|&s| s as usize >= *first);
        (at.unwrap_or(c.source.len()), note.clone())
    });
    let frame = budget::Frame {
        preamble,
        notes,
        behind,
    };
    let vp = page.has_layout().then_some(in_viewport.as_slice());
    budget::fit(&c.tree, vp, &forced, &params, &frame, Some(&compaction))
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Ai => "ai",
        Mode::Aria => "aria",
    }
}

/// The top-most element lines whose DOM node is `target` or inside it.
fn lines_under(p: &Prepared, page: &Page, target: NodeId) -> Vec<usize> {
    let mut roots = Vec::new();
    let mut i = 0;
    while i < p.tree.lines.len() {
        if let Some(n) = p.nodes[i]
            && (n == target || page.is_ancestor_of(target, n))
        {
            roots.push(i);
            i = p.tree.lines[i].subtree_end();
            continue;
        }
        i += 1;
    }
    roots
}

/// The subtrees at `roots`, re-indented to the top level, with their viewport flags.
fn subtree_forest(p: &Prepared, roots: &[usize]) -> (SnapTree, Vec<bool>) {
    let mut lines = Vec::new();
    let mut vp = Vec::new();
    for &r in roots {
        let base = p.tree.lines[r].depth();
        for i in r..p.tree.lines[r].subtree_end() {
            let mut l = p.tree.lines[i].clone();
            l.set_depth(l.depth() - base);
            lines.push(l);
            vp.push(p.in_viewport[i]);
        }
    }
    (SnapTree::from_lines(Vec::new(), lines, Vec::new()), vp)
}

/// The DOM element behind `aria_ref` as the page's snapshot numbers it (with
/// the session's numbering when one is given): `chunk --ref` and friends.
pub fn resolve_ref(
    page: &Page,
    aria_ref: &str,
    url: &str,
    session: Option<&SnapshotSession>,
) -> Result<NodeId, Error> {
    if let Some(id) = session.and_then(|s| from_ref_table(page, aria_ref, url, s)) {
        return Ok(id);
    }
    // The views print refs from the tree of what a person sees, the full
    // snapshot from Playwright's own; both number one walk's elements, so
    // a ref printed by either names the same element in each that has it.
    for seen_only in [true, false] {
        let mut scratch = session.cloned();
        let (p, _) = prepare_for(page, (Mode::Ai, seen_only), url, scratch.as_mut())?;
        if let Some(line) = p.tree.find_ref(aria_ref) {
            return p.nodes[line].ok_or_else(|| Error::UnknownRef(aria_ref.to_string()));
        }
    }
    Err(Error::UnknownRef(aria_ref.to_string()))
}

/// The ref the page's snapshot gives `node` (numbered as the session
/// numbers it), if the snapshot prints it: the inverse of [`resolve_ref`].
pub fn ref_of(
    page: &Page,
    node: NodeId,
    url: &str,
    session: Option<&SnapshotSession>,
) -> Option<String> {
    [true, false].into_iter().find_map(|seen_only| {
        let mut scratch = session.cloned();
        let (p, _) = prepare_for(page, (Mode::Ai, seen_only), url, scratch.as_mut()).ok()?;
        let line = p.nodes.iter().position(|&n| n == Some(node))?;
        p.tree.lines[line].aria_ref.as_deref().map(String::from)
    })
}

/// The element a ref of the session's last snapshot names, read from that
/// snapshot's ref table when `page` is the very markup it was taken of: no
/// snapshot is rebuilt. `None` sends the caller to the full resolution.
fn from_ref_table(
    page: &Page,
    aria_ref: &str,
    url: &str,
    session: &SnapshotSession,
) -> Option<NodeId> {
    let prev = session.previous_of(url, mode_name(Mode::Ai))?;
    let dom = prev.refs.iter().find(|r| r.aria_ref == aria_ref)?.dom;
    if dom == 0 || prev.markup == 0 || prev.markup != markup_hash(page) {
        return None;
    }
    let mut found = None;
    dom_positions(page, |id, hash| {
        if hash == dom {
            found = Some(id);
        }
        found.is_none()
    });
    found
}

/// A hash of the page's markup (structure, tags, attributes, text): a ref
/// table recorded for one page applies to another only when they are equal.
fn markup_hash(page: &Page) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for node in page.nodes() {
        node.parent.hash(&mut h);
        match &node.data {
            NodeData::Element(e) => {
                (&*e.name.ns, &*e.name.local).hash(&mut h);
                for a in &e.attrs {
                    (&*a.name.ns, &*a.name.local, &a.value).hash(&mut h);
                }
            }
            NodeData::Text(t) => t.hash(&mut h),
            _ => 0u8.hash(&mut h),
        }
    }
    h.finish().max(1)
}

/// `webfold find`: the elements of `page`'s snapshot matching `query`
/// (text or `/regex/`), numbered as the session numbers them.
pub fn find(
    page: &Page,
    url: &str,
    options: &find::FindOptions,
    session: Option<&SnapshotSession>,
    ctx: Ctx,
) -> Result<find::FindResult, Error> {
    let query = options.query.as_str();
    if query.trim().is_empty() {
        return Err(Error::InvalidOption(
            "say what to find: a text (case-insensitive) or a /regex/".into(),
        ));
    }
    let q = find::Query::parse(query)?;
    let mut scratch = session.cloned();
    let (p, _) = prepare_for(page, (options.mode, true), url, scratch.as_mut())?;
    find::find_in_tree(&p.tree, query, &q, options, ctx)
}

#[cfg(test)]
mod ref_table_tests {
    use super::*;

    const PAGE: &str = "<nav><a href=/a>A</a><a href=/b>B</a></nav>\
        <main><h1>Shop</h1><button>Buy</button><input aria-label=Qty></main>";
    const URL: &str = "https://shop.example/";

    /// The snapshot of `page` with `opts`, and the refs it prints in order.
    fn refs_printed(
        page: &Page,
        opts: &SnapshotOptions,
        session: Option<&mut SnapshotSession>,
    ) -> (String, Vec<String>) {
        let ctx = crate::contract::Ctx::default();
        let text = snapshot(page, URL, &Scope::Page, opts, session, ctx)
            .unwrap()
            .text;
        let refs = (text.split("[ref=").skip(1))
            .filter_map(|s| Some(s.split(']').next()?.to_string()))
            .collect();
        (text, refs)
    }

    #[test]
    fn refs_resolve_from_the_table_while_the_markup_is_unchanged() {
        let page = Page::parse(PAGE);
        let url = URL;
        let mut session = SnapshotSession::default();
        let opts = SnapshotOptions {
            full_snapshot: true,
            ..SnapshotOptions::default()
        };
        let (text, refs) = refs_printed(&page, &opts, Some(&mut session));
        assert!(refs.len() >= 4, "{text}");
        for r in &refs {
            let from_table = from_ref_table(&page, r, url, &session);
            let rebuilt = resolve_ref(&page, r, url, None).ok();
            assert!(from_table.is_some(), "{r} not in the table");
            assert_eq!(from_table, rebuilt, "{r}");
        }
        // Another URL, or changed markup: the table does not apply.
        assert_eq!(
            from_ref_table(&page, &refs[0], "https://x.example/", &session),
            None
        );
        let edited = Page::parse(&PAGE.replace("Buy", "Buy now"));
        assert_eq!(from_ref_table(&edited, &refs[0], url, &session), None);
        assert!(resolve_ref(&edited, &refs[0], url, Some(&session)).is_ok());
    }

    /// A link named by its label whose text says it again: the view (what
    /// a person sees) prints the text's element, Playwright's own form
    /// folds it into the link. Every ref printed resolves all the same, and
    /// back.
    #[test]
    fn refs_the_seen_tree_alone_prints_resolve() {
        let page =
            Page::parse("<a aria-label=Give href=/x>text <span><span>Give</span></span></a>");
        let all_roles = SnapshotOptions {
            interactive_only: false,
            ..SnapshotOptions::default()
        };
        let (text, refs) = refs_printed(&page, &all_roles, None);
        assert!(text.contains("generic"), "{text}");
        assert_eq!(refs.len(), 2, "{text}");
        for r in &refs {
            let node = resolve_ref(&page, r, URL, None).unwrap();
            assert_eq!(ref_of(&page, node, URL, None).as_deref(), Some(r.as_str()));
        }
    }
}
