//! Bytes → decode → parse → every view at several budgets.
//!
//! Invariants: nothing panics; a view that answers `Ok` is within its budget
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

pub fn check(bytes: &[u8]) {
    for ct in CONTENT_TYPES {
        let _ = decode::decode_html(bytes, Some(ct));
    }
    let page = Page::parse_bytes(bytes, None);
    check_page(&page);
}

/// Every view of an already parsed page.
pub fn check_page(page: &Page) {
    let mut resolver = Resolver::new(page);
    outlines(&mut resolver);
    chunks(page);
    markdown(page);
    snapshots(&mut resolver);
    cnt(&mut resolver);
}

/// Resolves the handles views print, each once per page: the views print
/// the same ids and selectors again and again, and resolving one costs a
/// view of its own.
struct Resolver<'p> {
    page: &'p Page,
    ids: HashSet<u32>,
    selectors: HashSet<(u32, String)>,
    /// The snapshot `chunk --ref` builds (without a session) to read a ref
    /// from, built once here instead of once a ref.
    prepared: Option<Prepared>,
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
            let target = ChunkTarget::Id(NodeId(id));
            let found = if rendered {
                chunk::resolve(self.page, &target, false)
            } else {
                rendered = true;
                let opts = ChunkOptions {
                    max_tokens: None,
                    ..Default::default()
                };
                chunk::chunk(self.page, &target, &opts)
                    .map(|c| c.chunks.iter().map(|c| c.node_id).collect())
            };
            match found {
                Ok(found) => assert_eq!(found.first(), Some(&NodeId(id))),
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
        if !self.selectors.insert((id.0, selector.to_string())) {
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
            snapshot::prepare(page, webfold_core::aria::Mode::Ai, URL, None)
                .unwrap_or_else(|e| panic!("{what}: chunk --ref cannot build the snapshot: {e}"))
                .0
        });
        for r in rest {
            let line = prepared
                .tree
                .find_ref(r)
                .unwrap_or_else(|| panic!("{what} printed [ref={r}], which chunk cannot find"));
            let node = prepared.nodes[line]
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

fn outlines(resolver: &mut Resolver) {
    let page = resolver.page;
    for (budget, enc) in [
        (Some(1), Encoding::O200kBase),
        (Some(60), Encoding::Cl100kBase),
        (Some(400), Encoding::O200kBase),
        (Some(8000), Encoding::O200kBase),
    ] {
        let opts = OutlineOptions {
            max_tokens: budget,
            encoding: enc,
            max_depth: if budget == Some(8000) { 64 } else { 4 },
            ..Default::default()
        };
        let Ok(o) = outline::outline(page, &opts) else {
            continue;
        };
        let what = format!("outline at {budget:?}");
        within(&what, &o.text, o.tokens, budget, enc);
        let mut ids = handles::outline_at_ids(&o.text);
        let mut stack: Vec<&DomNode> = vec![&o.root];
        while let Some(n) = stack.pop() {
            ids.push(n.node_id.0);
            resolver.unique_selector(&n.selector, n.node_id, &what);
            stack.extend(n.children.iter());
        }
        resolver.ids(ids, &what);
    }
}

fn chunks(page: &Page) {
    let first_element = (0..page.len() as u32)
        .map(NodeId)
        .find(|&n| page.is_element(n));
    let mut targets = vec![
        (ChunkTarget::Selector("body".into()), false),
        (ChunkTarget::Selector("p, li, a".into()), true),
        (ChunkTarget::Id(NodeId(page.len() as u32)), false),
    ];
    if let Some(n) = first_element {
        targets.push((ChunkTarget::Id(n), false));
    }
    for (target, all) in &targets {
        for budget in [Some(1), Some(50), Some(500)] {
            let opts = ChunkOptions {
                all: *all,
                max_tokens: budget,
                ..Default::default()
            };
            match chunk::chunk(page, target, &opts) {
                Ok(c) => {
                    let what = format!("chunk {target:?} at {budget:?}");
                    within(&what, &c.text, c.tokens, budget, opts.encoding);
                    for part in c.chunks.iter().flat_map(|c| &c.folded) {
                        folded_resolves(page, &part.selector, part.node_id, &what);
                    }
                }
                Err(Error::ElementNotFound { .. })
                | Err(Error::UnknownNodeId(_))
                | Err(Error::BudgetTooSmall { .. }) => {}
                Err(e) => panic!("chunk {target:?} at {budget:?}: {e}"),
            }
        }
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

fn markdown(page: &Page) {
    for (main, budget, max_lines) in [
        (true, Some(1), 0),
        (true, Some(200), 20),
        (false, Some(40), 0),
        (false, None, 5),
    ] {
        let req = MarkdownRequest {
            main,
            max_tokens: budget,
            max_lines,
            ..Default::default()
        };
        let Ok(view) = fetch_view::markdown(page, &req, Some(URL)) else {
            continue;
        };
        let p = &view.paged;
        if let Some(b) = budget {
            let reported = p.tokens.unwrap_or(usize::MAX);
            within("markdown", &p.text, reported, Some(b), req.encoding);
        }
        assert!(p.first_line >= 1 && p.last_line + 1 >= p.first_line);
        assert!(p.last_line <= p.total_lines.max(p.first_line - 1));
    }
}

fn snapshots(resolver: &mut Resolver) {
    let page = resolver.page;
    let plain = SnapshotOptions::default();
    let cases = [
        (plain.clone(), false),
        (
            SnapshotOptions {
                max_tokens: 1,
                max_elements: 3,
                interactive_only: false,
                ..plain.clone()
            },
            true,
        ),
        (
            SnapshotOptions {
                full_snapshot: true,
                ..plain.clone()
            },
            false,
        ),
        (
            SnapshotOptions {
                full_snapshot: true,
                mode: webfold_core::aria::Mode::Aria,
                ..plain.clone()
            },
            false,
        ),
    ];
    for (opts, with_session) in cases {
        let what = format!(
            "snapshot (full {}, mode {:?}, max_tokens {})",
            opts.full_snapshot, opts.mode, opts.max_tokens
        );
        let mut session = with_session.then(SnapshotSession::new);
        let Ok(snap) = snapshot::snapshot(page, URL, &Scope::Page, &opts, session.as_mut()) else {
            continue;
        };
        let budget = (!opts.full_snapshot).then(|| opts.clamped().max_tokens);
        within(&what, &snap.text, snap.tokens, budget, opts.encoding);
        resolver.refs(&snap.text, session.as_ref(), &what);
        // A second snapshot of the same page in the session: deduped, diffed.
        if let Some(s) = session.as_mut() {
            let diff = SnapshotOptions {
                diff: true,
                ..opts.clone()
            };
            if let Ok(snap) = snapshot::snapshot(page, URL, &Scope::Page, &diff, Some(s)) {
                within(&what, &snap.text, snap.tokens, budget, opts.encoding);
                resolver.refs(&snap.text, Some(s), &what);
            }
        }
    }
    for (query, budget) in [("a", 1), ("/[a-z]+/i", 60), ("e", 2000)] {
        let opts = FindOptions {
            query: query.into(),
            max_tokens: budget,
            ..Default::default()
        };
        let Ok(found) = snapshot::find(page, URL, &opts, None) else {
            continue;
        };
        let what = format!("find {query} at {budget}");
        within(
            &what,
            &found.text,
            found.tokens,
            Some(budget),
            opts.encoding,
        );
        resolver.refs(&found.text, None, &what);
    }
}

/// `chunk --ref` finds the element a snapshot printed `[ref=r]` for.
fn chunk_ref(page: &Page, r: &str, session: Option<&SnapshotSession>, what: &str) {
    let opts = ChunkOptions {
        r#ref: Some(r.to_string()),
        max_tokens: None,
        ..Default::default()
    };
    match chunk::view(page, &opts, URL, session) {
        Ok(c) => assert!(
            c.chunks.iter().all(|c| page.is_element(c.node_id)),
            "{what}: ref {r} is not an element"
        ),
        Err(e) => panic!("{what} printed [ref={r}], and chunk says: {e}"),
    }
}

fn cnt(resolver: &mut Resolver) {
    let cnt = Cnt::build(resolver.page);
    for budget in [1, 30, 300, 3000] {
        let opts = ViewOptions {
            max_tokens: budget,
            ..Default::default()
        };
        let Ok(view) = cnt.view(&opts) else { continue };
        let what = format!("cnt at {budget}");
        within(&what, &view.text, view.tokens, Some(budget), opts.encoding);
        let h = handles::cnt_handles(&view.to_json());
        resolver.ids(h.nodes, &what);
        for marker in h.markers {
            let id: CntId = serde_json::from_value(serde_json::Value::String(marker.clone()))
                .unwrap_or_else(|e| panic!("{what} printed marker {marker}: {e}"));
            let expand = ViewOptions {
                max_tokens: budget.max(300),
                expand: Some(id),
                ..Default::default()
            };
            match cnt.view(&expand) {
                Ok(v) => within(
                    &what,
                    &v.text,
                    v.tokens,
                    Some(expand.max_tokens),
                    opts.encoding,
                ),
                Err(Error::BudgetTooSmall { .. }) => {}
                Err(e) => panic!("{what} printed marker {marker}; expanding it: {e}"),
            }
        }
    }
}
