//! Diffs (seed 001's differ): a second snapshot of the same URL in a session
//! prints only what changed, and every line of it is a snapshot line whose
//! ref parses.

use webfold_core::Page;
use webfold_core::snapshot::diff::{self, DiffStats};
use webfold_core::snapshot::{self, LineKind, Scope, SnapshotOptions, SnapshotSession, ViewKind};

const V1: &str = "<body><main><h1>Cart</h1><ul><li><a href=/a>Apple</a></li><li><a href=/b>Banana</a></li></ul>\
<label><input type=checkbox> Gift wrap</label><p id=s>2 items</p><button>Checkout</button></main>\
<footer><a href=/help>Help</a></footer></body>";
const V2: &str = "<body><main><h1>Cart</h1><ul><li><a href=/a>Apple</a></li><li><a href=/c>Cherry</a></li></ul>\
<label><input type=checkbox checked> Gift wrap</label><p id=s>3 items</p><button>Checkout</button><button>Save for later</button></main>\
<footer><a href=/help>Help</a></footer></body>";

fn take(html: &str, opts: &SnapshotOptions, s: &mut SnapshotSession) -> snapshot::Snapshot {
    snapshot::snapshot(
        &Page::parse(html),
        "https://shop.example/cart",
        &Scope::Page,
        opts,
        Some(s),
        webfold_core::contract::Ctx::default(),
    )
    .unwrap()
}

/// Every `[ref=…]` in `text`, read the naive way agents' ref parsers do.
fn naive_refs(text: &str) -> Vec<String> {
    text.split("[ref=")
        .skip(1)
        .filter_map(|r| r.split(']').next().map(str::to_string))
        .collect()
}

#[test]
fn second_snapshot_of_a_url_shows_only_the_changes() {
    let mut s = SnapshotSession::new();
    let first = take(V1, &diffing(), &mut s);
    assert_eq!(first.kind, ViewKind::Budgeted);
    let d = take(V2, &diffing(), &mut s);
    assert_eq!(d.kind, ViewKind::Diff, "{}", d.text);
    let stats = d.diff.unwrap();
    // Cherry's link and list item, Save for later: added. Banana's: removed.
    // The checkbox (now checked) and the status text: changed.
    assert_eq!(
        stats,
        DiffStats {
            added: 2,
            removed: 1,
            changed: 2
        },
        "{}",
        d.text
    );
    assert!(
        d.text.contains(
            "# Changes since the last snapshot of this page: 2 added, 1 removed, 2 changed"
        )
    );
    let tree = snapshot::parse(&d.text).unwrap();
    let mark = |name: &str| {
        tree.lines
            .iter()
            .find(|l| l.name.as_deref() == Some(name) || l.value() == Some(name))
            .and_then(|l| l.comment().map(String::from))
    };
    assert_eq!(mark("Save for later").as_deref(), Some(diff::ADDED));
    assert_eq!(mark("Banana").as_deref(), Some(diff::REMOVED));
    assert_eq!(mark("3 items").as_deref(), Some(diff::CHANGED));
    let checkbox = tree.lines.iter().find(|l| l.role() == "checkbox").unwrap();
    assert_eq!(checkbox.comment(), Some(diff::CHANGED));
    assert!(checkbox.attrs().iter().any(|(k, _)| k == "checked"));
    // Unchanged elements are not listed; their ancestors give the path.
    assert!(!d.text.contains("Checkout") && !d.text.contains("Help") && !d.text.contains("Apple"));
    assert!(
        tree.lines
            .iter()
            .any(|l| l.role() == "main" && l.comment().is_none())
    );
    // Refs are the session's: unchanged elements kept theirs, so the diff's
    // refs mean the same elements as the first view's.
    let first_tree = snapshot::parse(&first.text).unwrap();
    let main_ref = |t: &snapshot::SnapTree| {
        t.lines
            .iter()
            .find(|l| l.role() == "main")
            .unwrap()
            .aria_ref
            .clone()
    };
    assert_eq!(main_ref(&tree), main_ref(&first_tree));
}

#[test]
fn every_diff_line_is_a_snapshot_line_with_a_parsable_ref() {
    let mut s = SnapshotSession::new();
    take(V1, &diffing(), &mut s);
    let d = take(V2, &diffing(), &mut s);
    let tree = snapshot::parse(&d.text).unwrap();
    assert_eq!(
        tree.render(),
        d.text,
        "the diff round-trips through the reader"
    );
    for line in d.text.lines().filter(|l| !l.starts_with('#')) {
        let one = snapshot::parse(line.trim_start()).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(one.len(), 1, "{line}");
    }
    let refs = naive_refs(&d.text);
    assert!(!refs.is_empty());
    for r in &refs {
        assert!(
            r.starts_with('e') && r[1..].parse::<u32>().is_ok(),
            "ref {r:?} does not parse"
        );
    }
    let parsed: Vec<String> = tree
        .lines
        .iter()
        .filter_map(|l| l.aria_ref.as_deref().map(String::from))
        .collect();
    assert_eq!(parsed, refs);
    assert!(
        tree.lines
            .iter()
            .all(|l| l.kind != LineKind::Element || l.aria_ref.is_some())
    );
}

#[test]
fn no_changes_and_forcing_the_full_view() {
    let mut s = SnapshotSession::new();
    let first = take(V1, &diffing(), &mut s);
    let same = take(V1, &diffing(), &mut s);
    assert_eq!(same.kind, ViewKind::Diff);
    assert!(
        same.text.ends_with(
            "# No changes since the last snapshot of this page (--no-diff prints it whole)"
        ),
        "{}",
        same.text
    );
    let whole = take(
        V1,
        &SnapshotOptions {
            diff: false,
            ..SnapshotOptions::default()
        },
        &mut s,
    );
    assert_eq!(whole.kind, ViewKind::Budgeted);
    // Same content and refs as the first view; only the breadcrumb differs.
    assert_eq!(whole.text, first.text);
    let full = take(
        V2,
        &SnapshotOptions {
            full_snapshot: true,
            ..SnapshotOptions::default()
        },
        &mut s,
    );
    assert_eq!(full.kind, ViewKind::Full);
}

#[test]
fn a_diff_longer_than_the_view_gives_the_view() {
    let mut s = SnapshotSession::new();
    let many = |p: &str| {
        format!(
            "<body>{}</body>",
            (0..200)
                .map(|i| format!("<a href=/{p}{i}>{p} {i}</a>"))
                .collect::<String>()
        )
    };
    take(&many("old"), &diffing(), &mut s);
    let v = take(&many("new"), &diffing(), &mut s);
    assert_eq!(v.kind, ViewKind::Budgeted);
    assert!(v.text.contains("200 added, 200 removed, 0 changed since the last snapshot of this page; the whole view is shorter"), "{}", &v.text[..300]);
    assert!(v.tokens <= 8000);
}

#[test]
fn diff_of_corpus_pages_round_trips() {
    // Remove every other link of real pages and diff: removed lines parse,
    // sit under their surviving parents, and the diff reads back as written.
    for p in webfold_corpus::sample(40) {
        let html = p.html();
        let page = Page::parse(&html);
        let (old, _) = snapshot::prepare(&page, webfold_core::aria::Mode::Ai, "", None).unwrap();
        let mut new = old.tree.clone();
        let drop: Vec<usize> = (0..new.len())
            .filter(|&i| new.lines[i].role() == "link")
            .step_by(2)
            .collect();
        let keep: Vec<_> = (0..new.len())
            .filter(|i| {
                !drop
                    .iter()
                    .any(|&d| *i >= d && *i < old.tree.lines[d].subtree_end())
            })
            .map(|i| new.lines[i].clone())
            .collect();
        new = snapshot::SnapTree::from_lines(Vec::new(), keep, Vec::new());
        let (changes, stats) = diff::diff(&old.tree, &new);
        let text = changes.render();
        let back = snapshot::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert_eq!(back.render(), text, "{}", p.id);
        let top_links = drop
            .iter()
            .filter(|&&d| {
                !drop
                    .iter()
                    .any(|&o| o < d && d < old.tree.lines[o].subtree_end())
            })
            .count();
        assert_eq!(stats.removed, top_links, "{}", p.id);
        assert_eq!(stats.added, 0, "{}", p.id);
        assert_eq!(
            back.lines
                .iter()
                .filter(|l| l.comment() == Some(diff::REMOVED))
                .count(),
            top_links
        );
    }
}

/// The default view, asking for a diff when the session has seen the page.
fn diffing() -> SnapshotOptions {
    SnapshotOptions {
        diff: true,
        ..SnapshotOptions::default()
    }
}
