//! `find`: the few snapshot nodes matching a text or /regex/, with refs and paths.

use webfold_core::Page;
use webfold_core::aria::Mode;
use webfold_core::snapshot::find::{FindOptions, Query};
use webfold_core::snapshot::{self, Scope, SnapshotOptions};

const PAGE: &str = "<body><nav aria-label=Main><ul><li><a href=/signin>Sign in</a></li><li><a href=/help>Help</a></li></ul></nav>\
<main><h1>Orders</h1><form aria-label=Search><input type=search placeholder='Find orders'><button>Go</button></form>\
<p>Need help? <a href=/contact>Contact us</a></p><nav aria-label=Pages><a href=?p=2 rel=next>Next page</a></nav></main></body>";

fn find(q: &str, opts: &FindOptions) -> snapshot::find::FindResult {
    find_with(&Page::parse(PAGE), "", q, Mode::Ai, opts, None).unwrap()
}

#[test]
fn text_queries_match_names_values_and_props() {
    let r = find("help", &FindOptions::default());
    // The Help link by name, the paragraph by its text, /contact? no: "Contact us" has no "help".
    let names: Vec<_> = r
        .matches
        .iter()
        .map(|m| (m.role.as_str(), m.name.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        names,
        vec![("link", "Help"), ("paragraph", "")],
        "{}",
        r.text
    );
    assert_eq!(r.total, 2);
    let help = &r.matches[0];
    let strip = |p: &[String]| {
        p.iter()
            .map(|s| s.split(" [ref=").next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    // Nameless generic wrappers (here <body>) are left out of paths.
    assert_eq!(
        strip(&help.path),
        vec!["navigation \"Main\"", "list", "listitem"]
    );
    assert!(help.path.iter().all(|s| s.contains(" [ref=e")));
    assert!(help.aria_ref.is_some());
    assert!(help.lines[0].starts_with("- link \"Help\" [ref="));
    assert!(
        help.lines.iter().any(|l| l == "  - /url: /help"),
        "{:?}",
        help.lines
    );
    // A prop matches: the URL of the sign-in link.
    let r = find("/signin", &FindOptions::default());
    assert_eq!(r.matches.len(), 1);
    assert_eq!(r.matches[0].name.as_deref(), Some("Sign in"));
    // Case and whitespace do not matter for text.
    assert_eq!(
        find("  NEXT   page ", &FindOptions::default())
            .matches
            .len(),
        1
    );
}

#[test]
fn regex_queries_and_errors() {
    let r = find("/^(next|previous) page$/i", &FindOptions::default());
    assert_eq!(r.matches.len(), 1);
    assert_eq!(r.matches[0].role, "link");
    assert!(
        r.matches[0].path[0].starts_with("main [ref="),
        "{:?}",
        r.matches[0].path
    );
    assert!(
        r.matches[0].path[1].starts_with("navigation \"Pages\" [ref="),
        "{:?}",
        r.matches[0].path
    );
    assert_eq!(
        find("/^next page$/", &FindOptions::default()).matches.len(),
        0,
        "case-sensitive without i"
    );
    let err = find_with(
        &Page::parse(PAGE),
        "",
        "/(unclosed/",
        Mode::Ai,
        &FindOptions::default(),
        None,
    )
    .unwrap_err();
    assert!(err.to_string().contains("invalid regex"), "{err}");
    assert!(Query::parse("   ").is_err());
    // A lone slash is text, not a regex.
    assert!(matches!(Query::parse("/").unwrap(), Query::Text(_)));
}

#[test]
fn output_is_snapshot_lines_with_refs_that_snapshot_accepts() {
    let r = find("orders", &FindOptions::default());
    assert!(
        r.text.starts_with("# 2 matches for \"orders\""),
        "{}",
        r.text
    );
    for line in r.text.lines().filter(|l| !l.starts_with('#')) {
        snapshot::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    // The refs are the page snapshot's: --ref on them works.
    let page = Page::parse(PAGE);
    for m in &r.matches {
        let Some(aria_ref) = &m.aria_ref else {
            continue;
        };
        let sub = snapshot::snapshot(
            &page,
            "",
            &Scope::Ref(aria_ref.clone()),
            &SnapshotOptions {
                full_snapshot: true,
                ..SnapshotOptions::default()
            },
            None,
            webfold_core::contract::Ctx::default(),
        )
        .unwrap();
        assert_eq!(sub.text.lines().next(), m.lines.first().map(String::as_str));
    }
}

#[test]
fn a_match_inside_an_earlier_match_is_not_repeated() {
    let html = "<body><form aria-label='Post your comment'><label>Your comment <textarea></textarea></label><button>Post comment</button></form></body>";
    let r = find_with(
        &Page::parse(html),
        "",
        "comment",
        Mode::Ai,
        &FindOptions {
            lines_per_match: 10,
            ..FindOptions::default()
        },
        None,
    )
    .unwrap();
    assert_eq!(r.total, 4, "{}", r.text);
    assert_eq!(r.matches.len(), 1, "{}", r.text);
    assert_eq!(r.matches[0].role, "form");
    assert!(!r.text.contains("more not shown"));
}

#[test]
fn limits_are_kept() {
    let many = format!(
        "<body>{}</body>",
        (0..500)
            .map(|i| format!("<a href=/item/{i}>Item number {i}</a>"))
            .collect::<String>()
    );
    let page = Page::parse(&many);
    let r = find_with(&page, "", "item", Mode::Ai, &FindOptions::default(), None).unwrap();
    assert_eq!(r.total, 500);
    assert_eq!(r.matches.len(), 20);
    assert!(
        r.text
            .ends_with("# 480 more not shown: narrow the query, or raise --max-matches"),
        "{}",
        r.text
    );
    let opts = FindOptions {
        max_matches: 500,
        lines_per_match: 2,
        max_tokens: 1000,
        ..FindOptions::default()
    };
    let r = find_with(&page, "", "item", Mode::Ai, &opts, None).unwrap();
    assert!(r.tokens <= 1000, "{}", r.tokens);
    assert_eq!(r.tokens, webfold_core::tokens::count_default(&r.text));
    assert!(r.matches.len() < 500 && r.matches.len() > 10);
    assert!(r.matches.iter().all(|m| m.lines.len() <= 3));
}

#[test]
fn a_budget_too_small_for_the_header_is_an_error_not_an_overrun() {
    let page = Page::parse(PAGE);
    let opts = FindOptions {
        max_tokens: 1,
        ..FindOptions::default()
    };
    match find_with(&page, "", "e", Mode::Ai, &opts, None) {
        Err(webfold_core::Error::BudgetTooSmall {
            needed, max_tokens, ..
        }) => assert!(needed > 1 && max_tokens == 1, "{needed}"),
        other => panic!("{other:?}"),
    }
    // The smallest budget that fits the header and the closing note fits.
    let needed = match find_with(&page, "", "e", Mode::Ai, &opts, None) {
        Err(webfold_core::Error::BudgetTooSmall { needed, .. }) => needed,
        other => panic!("{other:?}"),
    };
    let opts = FindOptions {
        max_tokens: needed,
        ..opts
    };
    let r = find_with(&page, "", "e", Mode::Ai, &opts, None).unwrap();
    assert!(
        r.tokens <= needed && r.matches.is_empty() && r.total > 0,
        "{}",
        r.text
    );
}

/// The find view with `query` and `mode` set on `opts`.
fn find_with(
    page: &Page,
    url: &str,
    query: &str,
    mode: Mode,
    opts: &FindOptions,
    session: Option<&webfold_core::snapshot::SnapshotSession>,
) -> Result<webfold_core::snapshot::find::FindResult, webfold_core::Error> {
    let opts = FindOptions {
        query: query.to_string(),
        mode,
        ..opts.clone()
    };
    snapshot::find(
        page,
        url,
        &opts,
        session,
        webfold_core::contract::Ctx::default(),
    )
}
