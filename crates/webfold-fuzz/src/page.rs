//! Bytes → decode → parse → every view at several budgets.
//!
//! An input is a plan ([`PLAN`] bytes, one a view: which of its budgets and
//! options to ask for) and the page's bytes. Every input asks every view once,
//! so each costs a handful of views rather than thirty; the fuzzer steers the
//! budgets as it steers the page, and a run covers all of them.
//!
//! Invariants: nothing panics; the parse builds the tree html5ever's own
//! tokenizer would; a view that answers `Ok` is within its budget
//! by the core's exact count (and reports that count); every handle a view
//! prints (outline `@N` and node ids, CNT node and marker ids, snapshot and
//! find refs) resolves on the same page.

use std::collections::HashSet;

use webfold_core::chunk::{self, ChunkOptions, ChunkTarget};
use webfold_core::cnt::{Cnt, CntId, ViewOptions};
use webfold_core::fetch_view::{self, MarkdownRequest};
use webfold_core::outline::{self, DomNode, OutlineOptions};
use webfold_core::snapshot::find::FindOptions;
use webfold_core::snapshot::{self, Prepared, Scope, SnapshotOptions, SnapshotSession};
use webfold_core::tokens::{self, Encoding};
use webfold_core::{Error, NodeId, Page, decode};

use crate::handles;

/// The address every view is asked about the page under.
pub const URL: &str = "https://fuzz.example/dir/page.html";

/// Content types the decoder is also asked with: a declared charset beats
/// the `<meta>` prescan and sniffing, so each takes another path.
const CONTENT_TYPES: [&str; 3] = [
    "text/html; charset=utf-16le",
    "text/html; charset=shift_jis",
    "application/xhtml+xml; charset=\"windows-1252\"",
];

/// Bytes of plan before the page: one a view, at these places.
pub const PLAN: usize = 7;
const OUTLINE: usize = 0;
const CHUNK_TARGET: usize = 1;
const CHUNK_BUDGET: usize = 2;
const MARKDOWN: usize = 3;
const SNAPSHOT: usize = 4;
const FIND: usize = 5;
const CNT: usize = 6;

/// Which case of each view an input asks for: its plan byte modulo the
/// number of cases.
struct Plan([u8; PLAN]);

impl Plan {
    fn case(&self, view: usize, count: usize) -> usize {
        usize::from(self.0[view]) % count
    }

    fn pick<'c, T>(&self, view: usize, cases: &'c [T]) -> &'c T {
        &cases[self.case(view, cases.len())]
    }
}

/// Splits an input into its plan and its page; a short input has a page of
/// nothing and the rest of its plan zero.
fn split(input: &[u8]) -> (Plan, &[u8]) {
    let mut plan = [0; PLAN];
    let n = input.len().min(PLAN);
    plan[..n].copy_from_slice(&input[..n]);
    (Plan(plan), &input[n..])
}

/// A starting input: `page` under the `n`-th plan, so that consecutive
/// starting inputs go through every case of every view.
pub fn starting_input(n: usize, page: &[u8]) -> Vec<u8> {
    let plan = (0..PLAN).map(|view| (n + view) as u8);
    plan.chain(page.iter().copied()).collect()
}

pub fn check(input: &[u8]) {
    let (plan, bytes) = split(input);
    for ct in CONTENT_TYPES {
        let _ = decode::decode_html(bytes, Some(ct));
    }
    let text = decode::decode_html(bytes, None).text;
    let page = Page::parse(&text);
    same_tree(&page, &Page::parse_with_html5ever_tokenizer(&text));
    let mut resolver = Resolver::new(&page);
    outline_view(&mut resolver, &plan);
    chunk_view(&page, &plan);
    markdown(&page, &plan);
    snapshot_view(&mut resolver, &plan);
    find_view(&mut resolver, &plan);
    cnt(&mut resolver, &plan);
}

/// The parse reads the tokens html5ever's own tokenizer would: the trees
/// are the same, node for node.
fn same_tree(ours: &Page, reference: &Page) {
    let tree = |p: &Page| format!("{:?} quirks={}", p.nodes(), p.quirks_mode());
    let (ours, reference) = (tree(ours), tree(reference));
    assert!(
        ours == reference,
        "the parse differs from html5ever's tokenizer:\nours:      {ours}\nreference: {reference}"
    );
}

/// Resolves the handles views print, each once per page: the views print
/// the same ids and selectors again and again, and resolving one costs a
/// view of its own.
struct Resolver<'p> {
    page: &'p Page,
    ids: HashSet<u32>,
    selectors: HashSet<(u32, String)>,
    /// The snapshots `chunk --ref` builds (without a session) to read a ref
    /// from, what a person sees and then Playwright's own, built once here
    /// instead of once a ref.
    prepared: Option<[Prepared; 2]>,
}

impl<'p> Resolver<'p> {
    fn new(page: &'p Page) -> Self {
        Resolver {
            page,
            ids: HashSet::new(),
            selectors: HashSet::new(),
            prepared: None,
        }
    }

    /// `chunk --id` finds each element of `ids` a view printed. The first
    /// new one is rendered whole (without a budget); the others only
    /// resolved as chunk resolves them, since rendering is the same code
    /// over and over and costs a page's worth of tokens each.
    fn ids(&mut self, ids: impl IntoIterator<Item = u32>, what: &str) {
        let mut rendered = false;
        for id in ids {
            if !self.ids.insert(id) {
                continue;
            }
            let target = ChunkTarget::Id(NodeId::new(id));
            let found = if rendered {
                chunk::resolve(self.page, &target, false)
            } else {
                rendered = true;
                let opts = ChunkOptions {
                    max_tokens: None,
                    ..Default::default()
                };
                chunk::chunk(
                    self.page,
                    &target,
                    &opts,
                    webfold_core::contract::Ctx::default(),
                )
                .map(|c| c.chunks.iter().map(|c| c.node_id).collect())
            };
            match found {
                Ok(found) => assert_eq!(found.first(), Some(&NodeId::new(id))),
                Err(e) => panic!("{what} printed node id {id}, and chunk says: {e}"),
            }
        }
    }

    /// An outline's `selector` selects its element and nothing else.
    fn unique_selector(&mut self, selector: &str, id: NodeId, what: &str) {
        // The root line stands for the document when there is no <body>.
        if selector.is_empty() || !self.page.is_element(id) {
            return;
        }
        if !self.selectors.insert((id.get(), selector.to_string())) {
            return;
        }
        match self.page.query_all(selector) {
            Ok(found) => assert_eq!(
                found,
                [id],
                "{what}: selector {selector:?} of node {id} matches {found:?}"
            ),
            Err(e) => panic!("{what}: selector {selector:?} of node {id}: {e}"),
        }
    }

    /// `chunk --ref` finds the element each printed `[ref=r]` is for. The
    /// first goes the whole way through `chunk --ref`; the others are
    /// resolved as it resolves them (through the session's ref table), or,
    /// without a session, read from the snapshot `chunk --ref` would build
    /// for each, built once.
    fn refs(&mut self, text: &str, session: Option<&SnapshotSession>, what: &str) {
        let refs = handles::snapshot_refs(text);
        let Some((first, rest)) = refs.split_first() else {
            return;
        };
        chunk_ref(self.page, first, session, what);
        if session.is_some() {
            for r in rest {
                let found = snapshot::resolve_ref(self.page, r, URL, session)
                    .and_then(|id| chunk::resolve(self.page, &ChunkTarget::Id(id), false));
                if let Err(e) = found {
                    panic!("{what} printed [ref={r}], and chunk says: {e}");
                }
            }
            return;
        }
        let page = self.page;
        let prepared = self.prepared.get_or_insert_with(|| {
            [true, false].map(|seen_only| {
                snapshot::prepare_for(page, (webfold_core::aria::Mode::Ai, seen_only), URL, None)
                    .unwrap_or_else(|e| {
                        panic!("{what}: chunk --ref cannot build the snapshot: {e}")
                    })
                    .0
            })
        });
        for r in rest {
            let (tree, line) = prepared
                .iter()
                .find_map(|p| Some((p, p.tree.find_ref(r)?)))
                .unwrap_or_else(|| panic!("{what} printed [ref={r}], which chunk cannot find"));
            let node = tree.nodes[line]
                .unwrap_or_else(|| panic!("{what} printed [ref={r}] for a line with no element"));
            assert!(page.is_element(node), "{what}: ref {r} is not an element");
        }
    }
}

/// `result` is a view's text and its reported count: both must agree with the
/// exact count, within `budget`.
fn within(view: &str, text: &str, reported: usize, budget: Option<usize>, enc: Encoding) {
    let exact = tokens::count(text, enc);
    assert_eq!(
        exact, reported,
        "{view}: reported {reported} tokens, the text has {exact}"
    );
    if let Some(b) = budget {
        assert!(
            exact <= b,
            "{view}: {exact} tokens over a budget of {b}:\n{text}"
        );
    }
}

fn outline_view(resolver: &mut Resolver, plan: &Plan) {
    let page = resolver.page;
    let &(budget, enc) = plan.pick(
        OUTLINE,
        &[
            (1, Encoding::O200kBase),
            (60, Encoding::Cl100kBase),
            (400, Encoding::O200kBase),
            (8000, Encoding::O200kBase),
        ],
    );
    let opts = OutlineOptions {
        max_tokens: Some(budget),
        max_depth: if budget == 8000 { 64 } else { 4 },
        ..Default::default()
    };
    let ctx = webfold_core::contract::Ctx::new(webfold_core::contract::Surface::Cli, enc);
    let Ok(o) = outline::outline(page, &opts, ctx) else {
        return;
    };
    let what = format!("outline at {budget}");
    within(&what, &o.text, o.tokens, Some(budget), enc);
    let mut ids = handles::outline_at_ids(&o.text);
    let mut stack: Vec<&DomNode> = vec![&o.root];
    while let Some(n) = stack.pop() {
        ids.push(n.node_id.get());
        resolver.unique_selector(&n.selector, n.node_id, &what);
        stack.extend(n.children.iter());
    }
    resolver.ids(ids, &what);
}

fn chunk_view(page: &Page, plan: &Plan) {
    let (target, all) = match plan.case(CHUNK_TARGET, 4) {
        0 => (ChunkTarget::Selector("body".into()), false),
        1 => (ChunkTarget::Selector("p, li, a".into()), true),
        2 => (ChunkTarget::Id(NodeId::new(page.len() as u32)), false),
        _ => match (0..page.len() as u32)
            .map(NodeId::new)
            .find(|&n| page.is_element(n))
        {
            Some(first_element) => (ChunkTarget::Id(first_element), false),
            None => return,
        },
    };
    let budget = *plan.pick(CHUNK_BUDGET, &[1, 50, 500]);
    let opts = ChunkOptions {
        all,
        max_tokens: Some(budget),
        ..Default::default()
    };
    match chunk::chunk(page, &target, &opts, webfold_core::contract::Ctx::default()) {
        Ok(c) => {
            let what = format!("chunk {target:?} at {budget}");
            within(
                &what,
                &c.text,
                c.tokens,
                Some(budget),
                webfold_core::tokens::Encoding::default(),
            );
            for part in c.chunks.iter().flat_map(|c| &c.folded) {
                folded_resolves(page, &part.selector, part.node_id, &what);
            }
        }
        Err(Error::ElementNotFound { .. })
        | Err(Error::UnknownNodeId(_))
        | Err(Error::BudgetTooSmall { .. }) => {}
        Err(e) => panic!("chunk {target:?} at {budget}: {e}"),
    }
}

/// A fold placeholder's selector finds the part it folded first.
fn folded_resolves(page: &Page, selector: &str, first: NodeId, what: &str) {
    match page.query_all(selector) {
        Ok(found) => assert_eq!(
            found.first(),
            Some(&first),
            "{what}: fold selector {selector:?} matches {found:?}"
        ),
        Err(e) => panic!("{what}: fold selector {selector:?}: {e}"),
    }
}

fn markdown(page: &Page, plan: &Plan) {
    let &(main, budget, max_lines) = plan.pick(
        MARKDOWN,
        &[
            (true, Some(1), 0),
            (true, Some(200), 20),
            (false, Some(40), 0),
            (false, None, 5),
        ],
    );
    let req = MarkdownRequest {
        main,
        max_tokens: budget,
        max_lines,
        ..Default::default()
    };
    let Ok(view) = fetch_view::markdown(
        page,
        &req,
        Some(URL),
        webfold_core::contract::Ctx::default(),
    ) else {
        return;
    };
    let p = &view.paged;
    if let Some(b) = budget {
        // Uncounted: the text is no longer in bytes than the budget.
        let reported = p.tokens.unwrap_or_else(|| {
            assert!(
                p.text.len() <= b,
                "markdown: uncounted past its budget's bytes"
            );
            webfold_core::tokens::count(&p.text, webfold_core::tokens::Encoding::default())
        });
        within(
            "markdown",
            &p.text,
            reported,
            Some(b),
            webfold_core::tokens::Encoding::default(),
        );
    }
    assert!(p.first_line >= 1 && p.last_line + 1 >= p.first_line);
    assert!(p.last_line <= p.total_lines.max(p.first_line - 1));
}

fn snapshot_view(resolver: &mut Resolver, plan: &Plan) {
    let page = resolver.page;
    let plain = SnapshotOptions::default();
    let (opts, with_session) = match plan.case(SNAPSHOT, 4) {
        0 => (plain, false),
        1 => (
            SnapshotOptions {
                max_tokens: 1,
                max_elements: 3,
                interactive_only: false,
                ..plain
            },
            true,
        ),
        2 => (
            SnapshotOptions {
                full_snapshot: true,
                ..plain
            },
            false,
        ),
        _ => (
            SnapshotOptions {
                full_snapshot: true,
                mode: webfold_core::aria::Mode::Aria,
                ..plain
            },
            false,
        ),
    };
    let what = format!(
        "snapshot (full {}, mode {:?}, max_tokens {})",
        opts.full_snapshot, opts.mode, opts.max_tokens
    );
    let mut session = with_session.then(SnapshotSession::new);
    let Ok(snap) = snapshot::snapshot(
        page,
        URL,
        &Scope::Page,
        &opts,
        session.as_mut(),
        webfold_core::contract::Ctx::default(),
    ) else {
        return;
    };
    let budget = (!opts.full_snapshot).then_some(opts.max_tokens);
    within(
        &what,
        &snap.text,
        snap.tokens,
        budget,
        webfold_core::tokens::Encoding::default(),
    );
    resolver.refs(&snap.text, session.as_ref(), &what);
    // A second snapshot of the same page in the session: deduped, diffed.
    if let Some(s) = session.as_mut() {
        let diff = SnapshotOptions {
            diff: true,
            ..opts.clone()
        };
        if let Ok(snap) = snapshot::snapshot(
            page,
            URL,
            &Scope::Page,
            &diff,
            Some(s),
            webfold_core::contract::Ctx::default(),
        ) {
            within(
                &what,
                &snap.text,
                snap.tokens,
                budget,
                webfold_core::tokens::Encoding::default(),
            );
            resolver.refs(&snap.text, Some(s), &what);
        }
    }
}

fn find_view(resolver: &mut Resolver, plan: &Plan) {
    let &(query, budget) = plan.pick(FIND, &[("a", 1), ("/[a-z]+/i", 60), ("e", 2000)]);
    let opts = FindOptions {
        query: query.into(),
        max_tokens: budget,
        ..Default::default()
    };
    let Ok(found) = snapshot::find(
        resolver.page,
        URL,
        &opts,
        None,
        webfold_core::contract::Ctx::default(),
    ) else {
        return;
    };
    let what = format!("find {query} at {budget}");
    within(
        &what,
        &found.text,
        found.tokens,
        Some(budget),
        webfold_core::tokens::Encoding::default(),
    );
    resolver.refs(&found.text, None, &what);
}

/// `chunk --ref` finds the element a snapshot printed `[ref=r]` for.
fn chunk_ref(page: &Page, r: &str, session: Option<&SnapshotSession>, what: &str) {
    let opts = ChunkOptions {
        r#ref: Some(r.to_string()),
        max_tokens: None,
        ..Default::default()
    };
    match chunk::view(
        page,
        &opts,
        URL,
        session,
        webfold_core::contract::Ctx::default(),
    ) {
        Ok(c) => assert!(
            c.chunks.iter().all(|c| page.is_element(c.node_id)),
            "{what}: ref {r} is not an element"
        ),
        Err(e) => panic!("{what} printed [ref={r}], and chunk says: {e}"),
    }
}

fn cnt(resolver: &mut Resolver, plan: &Plan) {
    let cnt = Cnt::build(resolver.page);
    let budget: usize = *plan.pick(CNT, &[1, 30, 300, 3000]);
    // Half the views are focused on a task: another ranking of the
    // controls they pin, the same promises.
    let focus = budget
        .is_multiple_of(2)
        .then(|| "Sign in, then search for \"news\"".to_string());
    let opts = ViewOptions {
        max_tokens: budget,
        focus: focus.clone(),
        ..Default::default()
    };
    let Ok(view) = cnt.view(&opts, webfold_core::contract::Ctx::default()) else {
        return;
    };
    let what = format!("cnt at {budget}");
    within(
        &what,
        &view.text,
        view.tokens,
        Some(budget),
        webfold_core::tokens::Encoding::default(),
    );
    let h = handles::cnt_handles(&view.to_json());
    resolver.ids(h.nodes, &what);
    for marker in h.markers {
        let id: CntId = serde_json::from_value(serde_json::Value::String(marker.clone()))
            .unwrap_or_else(|e| panic!("{what} printed marker {marker}: {e}"));
        let expand = ViewOptions {
            max_tokens: budget.max(300),
            expand: Some(id),
            focus: focus.clone(),
        };
        match cnt.view(&expand, webfold_core::contract::Ctx::default()) {
            Ok(v) => within(
                &what,
                &v.text,
                v.tokens,
                Some(expand.max_tokens),
                webfold_core::tokens::Encoding::default(),
            ),
            Err(Error::BudgetTooSmall { .. }) => {}
            Err(e) => panic!("{what} printed marker {marker}; expanding it: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_starting_inputs_ask_every_case_of_every_view() {
        let cases = [0, 1, 2, 3];
        for view in 0..PLAN {
            for count in 1..=cases.len() {
                let seen: HashSet<usize> = (0..count)
                    .map(|n| {
                        *split(&starting_input(n, b"<p>"))
                            .0
                            .pick(view, &cases[..count])
                    })
                    .collect();
                assert_eq!(seen.len(), count, "view {view}, {count} cases");
            }
        }
    }

    #[test]
    fn the_page_follows_the_plan_and_a_short_input_is_all_plan() {
        let bytes = starting_input(5, b"<p>hi");
        let (plan, page) = split(&bytes);
        assert_eq!(page, b"<p>hi");
        assert_eq!(*plan.pick(OUTLINE, &[0, 1, 2, 3]), 1);
        let (plan, page) = split(&[9, 9]);
        assert!(page.is_empty());
        assert_eq!(plan.0, [9, 9, 0, 0, 0, 0, 0]);
    }
}
