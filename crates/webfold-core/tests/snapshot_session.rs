//! The snapshot session (seed 001): history, breadcrumbs, stable refs, and
//! that a session survives a round trip through JSON (the CLI's --session FILE).

use webfold_core::Page;
use webfold_core::snapshot::session::{BREADCRUMB_SIZE, HISTORY_SIZE};
use webfold_core::snapshot::{self, Scope, SnapshotOptions, SnapshotSession, ViewKind};

fn full() -> SnapshotOptions {
    SnapshotOptions {
        full_snapshot: true,
        ..SnapshotOptions::default()
    }
}

fn take(
    html: &str,
    url: &str,
    opts: &SnapshotOptions,
    s: &mut SnapshotSession,
) -> snapshot::Snapshot {
    snapshot::snapshot(
        &Page::parse(html),
        url,
        &Scope::Page,
        opts,
        Some(s),
        webfold_core::contract::Ctx::default(),
    )
    .unwrap()
}

/// `role "name"` → ref, for every ref'd line of a snapshot.
fn refs(text: &str) -> Vec<(String, String)> {
    let t = snapshot::parse(text).unwrap();
    t.lines
        .iter()
        .filter_map(|l| {
            l.aria_ref.clone().map(|r| {
                (
                    format!("{} {:?}", l.role(), l.name.as_deref().unwrap_or("")),
                    r.into(),
                )
            })
        })
        .collect()
}

fn ref_of(text: &str, key: &str) -> String {
    refs(text)
        .into_iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("{key} not in\n{text}"))
        .1
}

#[test]
fn history_keeps_ten_and_breadcrumbs_show_five() {
    let mut s = SnapshotSession::new();
    assert_eq!(s.breadcrumbs(), None);
    s.record_navigation("https://a.example/home", Some("Home"));
    assert_eq!(s.breadcrumbs().as_deref(), Some("# Currently on: Home"));
    s.record_navigation("https://a.example/home", Some("Home"));
    assert_eq!(s.history.len(), 1, "a repeated URL is not a navigation");
    for i in 1..15 {
        s.record_navigation(
            &format!("https://a.example/p{i}"),
            Some(&format!("Page {i}")),
        );
    }
    assert_eq!(s.history.len(), HISTORY_SIZE);
    assert_eq!(HISTORY_SIZE, 10);
    assert_eq!(BREADCRUMB_SIZE, 5);
    assert_eq!(s.history[0].url, "https://a.example/p5");
    assert_eq!(
        s.breadcrumbs().as_deref(),
        Some("# Navigation: Page 10 → Page 11 → Page 12 → Page 13 → Page 14")
    );
    // No title: the URL's path.
    s.record_navigation("https://a.example/docs/intro?x=1", None);
    assert!(s.breadcrumbs().unwrap().ends_with("Page 14 → /docs/intro"));
}

#[test]
fn breadcrumbs_head_the_view_in_a_session() {
    let mut s = SnapshotSession::new();
    let a = take(
        "<title>Start</title><button>Go</button>",
        "https://a.example/",
        &SnapshotOptions::default(),
        &mut s,
    );
    assert!(a.text.starts_with("# Currently on: Start\n"), "{}", a.text);
    let b = take(
        "<button>Go</button>",
        "https://a.example/next/page",
        &full(),
        &mut s,
    );
    assert!(
        b.text.starts_with("# Navigation: Start → /next/page\n"),
        "{}",
        b.text
    );
    let no_history = SnapshotOptions {
        include_history: false,
        ..full()
    };
    let c = take(
        "<button>Go</button>",
        "https://a.example/third",
        &no_history,
        &mut s,
    );
    assert!(!c.text.contains("# Navigation"), "{}", c.text);
    // Without a session, nothing but the tree.
    let d = snapshot::snapshot(
        &Page::parse("<button>Go</button>"),
        "https://a.example/",
        &Scope::Page,
        &full(),
        None,
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    assert_eq!(d.text, "- button \"Go\" [ref=e2]");
}

#[test]
fn refs_are_stable_while_role_and_name_are_unchanged() {
    let v1 = "<body><nav><a href=/a>Alpha</a> <a href=/b>Beta</a></nav><main><button>Buy</button><input aria-label=Qty></main></body>";
    // Something inserted before everything, a name changed, the rest the same.
    let v2 = "<body><div><button>New</button></div><nav><a href=/a>Alpha</a> <a href=/b>Beta</a></nav><main><button>Buy now</button><input aria-label=Qty></main></body>";
    let url = "https://shop.example/item";
    let mut s = SnapshotSession::new();
    let opts = SnapshotOptions {
        diff: false,
        ..full()
    };
    let first = take(v1, url, &opts, &mut s);
    // The first snapshot numbers refs as Playwright does on a fresh page.
    let fresh = snapshot::snapshot(
        &Page::parse(v1),
        url,
        &Scope::Page,
        &full(),
        None,
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    assert_eq!(refs(&first.text), refs(&fresh.text));
    let again = take(v1, url, &opts, &mut s);
    assert_eq!(refs(&again.text), refs(&first.text), "same page, same refs");
    let second = take(v2, url, &opts, &mut s);
    for key in [
        "link \"Alpha\"",
        "link \"Beta\"",
        "textbox \"Qty\"",
        "navigation \"\"",
        "main \"\"",
    ] {
        assert_eq!(ref_of(&second.text, key), ref_of(&first.text, key), "{key}");
    }
    // New elements and renamed ones get numbers never used before.
    let max_before = refs(&first.text)
        .iter()
        .map(|(_, r)| r[1..].parse::<u64>().unwrap())
        .max()
        .unwrap();
    for key in ["button \"New\"", "button \"Buy now\""] {
        let n: u64 = ref_of(&second.text, key)[1..].parse().unwrap();
        assert!(n > max_before, "{key} got e{n}");
    }
    assert_ne!(
        ref_of(&second.text, "button \"Buy now\""),
        ref_of(&first.text, "button \"Buy\"")
    );
}

#[test]
fn session_round_trips_through_json() {
    let mut s = SnapshotSession::new();
    let url = "https://a.example/x";
    let html = "<title>X</title><a href=/y>Y</a><button>Z</button>";
    let first = take(html, url, &full(), &mut s);
    let json = serde_json::to_string(&s).unwrap();
    let mut back: SnapshotSession = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    let mut kept = s.clone();
    let diff = SnapshotOptions {
        diff: true,
        ..SnapshotOptions::default()
    };
    let a = take(html, url, &diff, &mut back);
    let b = take(html, url, &diff, &mut kept);
    assert_eq!(a.text, b.text);
    assert_eq!(a.kind, ViewKind::Diff);
    assert_eq!(refs(&first.text).len(), 3);
}

#[test]
fn scoped_views_use_session_refs_without_moving_it() {
    let mut s = SnapshotSession::new();
    let url = "https://a.example/";
    let html = "<main><ul><li><a href=/1>One</a></li><li><a href=/2>Two</a></li></ul></main><footer><a href=/c>Contact</a></footer>";
    let page_view = take(html, url, &full(), &mut s);
    let list_ref = refs(&page_view.text)
        .into_iter()
        .find(|(k, _)| k.starts_with("list "))
        .unwrap()
        .1;
    let before = s.clone();
    let sub = snapshot::snapshot(
        &Page::parse(html),
        url,
        &Scope::Ref(list_ref.clone()),
        &SnapshotOptions {
            include_history: false,
            ..full()
        },
        Some(&mut s),
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    assert_eq!(s, before);
    assert!(
        sub.text.starts_with(&format!("- list [ref={list_ref}]:")),
        "{}",
        sub.text
    );
    assert!(sub.text.contains("link \"Two\"") && !sub.text.contains("Contact"));
    let by_sel = snapshot::snapshot(
        &Page::parse(html),
        url,
        &Scope::Selector("footer".into()),
        &SnapshotOptions {
            include_history: false,
            ..full()
        },
        Some(&mut s),
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    assert!(
        by_sel.text.starts_with("- contentinfo [ref="),
        "{}",
        by_sel.text
    );
    let err = snapshot::snapshot(
        &Page::parse(html),
        url,
        &Scope::Ref("e999".into()),
        &full(),
        Some(&mut s),
        webfold_core::contract::Ctx::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "no element e999 in the last snapshot; take a new snapshot and use one of its refs"
    );
}

#[test]
fn resolve_ref_finds_the_dom_element() {
    let html = "<main><p>x</p><button id=b>Buy</button></main>";
    let page = Page::parse(html);
    let view = snapshot::snapshot(
        &page,
        "",
        &Scope::Page,
        &full(),
        None,
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    let r = ref_of(&view.text, "button \"Buy\"");
    let node = snapshot::resolve_ref(&page, &r, "", None).unwrap();
    assert_eq!(page.element(node).unwrap().id(), Some("b"));
    assert!(snapshot::resolve_ref(&page, "e404", "", None).is_err());
}

/// HTML given inline has neither address nor title: no breadcrumb line
/// names nothing ("# Currently on: "), and a titled page is still named.
#[test]
fn a_page_with_no_name_has_no_breadcrumb() {
    let mut s = SnapshotSession::new();
    let html = "<body><a href=/a>Home</a></body>";
    let view = take(html, "", &SnapshotOptions::default(), &mut s);
    assert!(!view.text.contains("Currently on"), "{}", view.text);
    let titled = "<title>Shop</title><body><a href=/a>Home</a></body>";
    let view = take(titled, "", &SnapshotOptions::default(), &mut s);
    assert!(view.text.contains("# Currently on: Shop"), "{}", view.text);
}
