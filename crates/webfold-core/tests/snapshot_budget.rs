//! The budget layer (seed 001): role priorities, option defaults and clamps,
//! the truncation header, ancestors, and budget adherence over the corpus.

use std::time::Instant;

use webfold_core::Page;
use webfold_core::aria::{self, Mode};
use webfold_core::snapshot::budget::{self, is_candidate};
use webfold_core::snapshot::priority::{
    self, ROLE_PRIORITIES, element_priority, is_interactive_role, order_by_priority,
};
use webfold_core::snapshot::{self, Scope, SnapshotOptions, Truncation, ViewKind};
use webfold_core::tokens;

fn snap(html: &str, opts: &SnapshotOptions) -> snapshot::Snapshot {
    snapshot::snapshot(
        &Page::parse(html),
        "https://example.com/",
        &Scope::Page,
        opts,
        None,
    )
    .unwrap()
}

fn repeat(n: usize, f: impl Fn(usize) -> String) -> String {
    (0..n).map(f).collect()
}

#[test]
fn role_priorities_are_the_seeds_table() {
    let expected = [
        ("button", 100),
        ("textbox", 95),
        ("searchbox", 95),
        ("checkbox", 90),
        ("radio", 90),
        ("switch", 90),
        ("combobox", 85),
        ("listbox", 85),
        ("slider", 85),
        ("spinbutton", 85),
        ("link", 80),
        ("tab", 75),
        ("menuitem", 70),
        ("menuitemcheckbox", 70),
        ("menuitemradio", 70),
        ("option", 70),
        ("navigation", 60),
        ("menu", 60),
        ("tablist", 55),
        ("form", 50),
        ("dialog", 50),
        ("alertdialog", 50),
    ];
    assert_eq!(ROLE_PRIORITIES, &expected[..]);
    // The seed's own tests.
    assert_eq!(element_priority("button", true), 150);
    assert_eq!(element_priority("textbox", true), 145);
    assert_eq!(
        element_priority("link", true) - element_priority("link", false),
        50
    );
    assert_eq!(element_priority("unknown-role", false), 50);
    assert_eq!(
        element_priority("generic", false),
        priority::DEFAULT_PRIORITY
    );
    assert!(element_priority("button", false) > element_priority("navigation", false));
    for role in [
        "button", "link", "textbox", "checkbox", "radio", "combobox", "listbox", "option", "tab",
        "menuitem",
    ] {
        assert!(element_priority(role, false) > 0);
        assert!(is_interactive_role(role), "{role}");
    }
    for role in [
        "navigation",
        "menu",
        "form",
        "dialog",
        "generic",
        "heading",
        "paragraph",
    ] {
        assert!(!is_interactive_role(role), "{role}");
    }
}

#[test]
fn ties_keep_document_order() {
    // Scores in document order: link, button, link, button, textbox.
    let order = order_by_priority(&[80, 100, 80, 100, 95]);
    assert_eq!(order, vec![1, 3, 4, 0, 2]);
}

#[test]
fn options_have_the_seeds_defaults_and_clamps() {
    let d = SnapshotOptions::default();
    assert!(d.interactive_only);
    assert!(!d.full_snapshot);
    assert_eq!(d.max_elements, 300);
    assert_eq!(d.max_tokens, 8000);
    assert!(!d.viewport_only);
    assert!(d.include_history);
    assert_eq!(d.mode, Mode::Ai);
    let c = |e: usize, t: usize| {
        let o = SnapshotOptions {
            max_elements: e,
            max_tokens: t,
            ..d.clone()
        }
        .clamped();
        (o.max_elements, o.max_tokens)
    };
    assert_eq!(c(0, 0), (1, 1000));
    assert_eq!(c(5000, 99_999), (1000, 50_000));
    assert_eq!(c(42, 4242), (42, 4242));
    // Clamps apply inside the view too: 0 elements still shows one.
    let html = format!(
        "<body>{}</body>",
        repeat(5, |i| format!("<button>b{i}</button>"))
    );
    let s = snap(
        &html,
        &SnapshotOptions {
            max_elements: 0,
            ..d.clone()
        },
    );
    assert_eq!(s.kept_elements, 1);
    assert!(
        s.text
            .starts_with("# Elements: 1 of 5 (truncated: element limit)\n"),
        "{}",
        s.text
    );
}

#[test]
fn viewport_only_needs_a_live_page() {
    let opts = SnapshotOptions {
        viewport_only: true,
        ..SnapshotOptions::default()
    };
    let err = snapshot::snapshot(
        &Page::parse("<button>x</button>"),
        "",
        &Scope::Page,
        &opts,
        None,
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("needs a live page") && msg.contains("--viewport-only"),
        "{msg}"
    );
}

/// A page with a live-capture layout: elements whose id starts with `in`
/// are in the viewport, the rest below it.
fn live_page(html: &str) -> Page {
    use webfold_core::page::{Layout, LayoutBox, NodeData};
    let mut page = Page::parse(html);
    let layout = page
        .nodes()
        .iter()
        .map(|n| match &n.data {
            NodeData::Element(e) => {
                let in_viewport = !e.id().is_some_and(|id| id.starts_with("out"));
                Some(Layout {
                    rendered: true,
                    bounds: Some(LayoutBox {
                        x: 0.0,
                        y: if in_viewport { 10.0 } else { 5000.0 },
                        width: 100.0,
                        height: 20.0,
                    }),
                    in_viewport,
                    cursor: (e.local_name() == "a").then(|| "pointer".to_string()),
                    receives_pointer_events: true,
                    display: Some("block".into()),
                    ..Layout::default()
                })
            }
            _ => None,
        })
        .collect();
    page.set_layout(layout);
    page
}

#[test]
fn viewport_bonus_and_viewport_only_on_a_live_page() {
    let html = format!(
        "<body><main>{}{}</main></body>",
        repeat(5, |i| format!("<button id=out{i}>below {i}</button>")),
        repeat(5, |i| format!("<a id=in{i} href=/{i}>above {i}</a>")),
    );
    let page = live_page(&html);
    // Links in the viewport (80 + 50) outrank buttons below it (100).
    let opts = SnapshotOptions {
        max_elements: 5,
        ..SnapshotOptions::default()
    };
    let s = snapshot::snapshot(&page, "", &Scope::Page, &opts, None).unwrap();
    let tree = snapshot::parse(&s.text).unwrap();
    let kept: Vec<_> = tree
        .lines
        .iter()
        .filter(|l| is_candidate(l, true))
        .map(|l| l.role.as_str())
        .collect();
    assert_eq!(kept, vec!["link"; 5], "{}", s.text);
    // Only what is in the viewport, and a note for the rest.
    let only = SnapshotOptions {
        viewport_only: true,
        ..SnapshotOptions::default()
    };
    let s = snapshot::snapshot(&page, "", &Scope::Page, &only, None).unwrap();
    assert_eq!((s.kept_elements, s.total_elements), (5, 5));
    assert!(!s.text.contains("button"), "{}", s.text);
    assert!(
        s.text.contains(
            "# 5 more elements are outside the viewport: --no-viewport-only includes them"
        ),
        "{}",
        s.text
    );
}

#[test]
fn element_limit_header_and_closing_line() {
    let html = format!(
        "<body><nav aria-label=Main>{}</nav><main>{}</main></body>",
        repeat(100, |i| format!("<a href=/l{i}>link {i}</a>")),
        repeat(100, |i| format!("<button>button {i}</button>")),
    );
    let s = snap(
        &html,
        &SnapshotOptions {
            max_elements: 50,
            ..SnapshotOptions::default()
        },
    );
    let mut lines = s.text.lines();
    assert_eq!(
        lines.next(),
        Some("# Elements: 50 of 200 (truncated: element limit)")
    );
    assert_eq!(
        lines.next(),
        Some(format!("# Tokens: ~{}", s.tokens).as_str())
    );
    assert_eq!(s.tokens, tokens::count_default(&s.text));
    assert_eq!((s.kept_elements, s.total_elements), (50, 200));
    assert_eq!(s.truncation, Some(Truncation::ElementLimit));
    // Buttons outrank links: every kept element is a button, the first 50 in order.
    let tree = snapshot::parse(&s.text).unwrap();
    let kept: Vec<_> = tree
        .lines
        .iter()
        .filter(|l| is_candidate(l, true))
        .collect();
    assert_eq!(kept.len(), 50);
    assert!(kept.iter().all(|l| l.role == "button"));
    assert_eq!(kept[49].name.as_deref(), Some("button 49"));
    // The closing line counts the cut and names where they are and how to get them.
    let closing = s
        .text
        .lines()
        .find(|l| l.starts_with("# 150 lower-priority elements not shown"))
        .expect(&s.text);
    assert!(
        closing.contains("100 in navigation \"Main\" [ref="),
        "{closing}"
    );
    assert!(closing.contains("50 in main [ref="), "{closing}");
    for how in ["--ref", "--selector", "--max-elements", "chunk --ref"] {
        assert!(closing.contains(how), "{how}: {closing}");
    }
}

#[test]
fn token_budget_header_and_exact_count() {
    let html = format!(
        "<body><ul>{}</ul></body>",
        repeat(1000, |i| format!(
            "<li><a href=/a/very/long/path/{i}>a rather long link name number {i}</a></li>"
        ))
    );
    let s = snap(
        &html,
        &SnapshotOptions {
            max_tokens: 1000,
            max_elements: 1000,
            ..SnapshotOptions::default()
        },
    );
    assert!(s.tokens <= 1000);
    assert_eq!(s.tokens, tokens::count_default(&s.text));
    assert_eq!(s.truncation, Some(Truncation::TokenBudget));
    let first = s.text.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "# Elements: {} of 1000 (truncated: token budget)",
            s.kept_elements
        )
    );
    assert!(s.kept_elements > 10 && s.kept_elements < 1000);
    // Elements first, details after: links beyond the details budget print without /url.
    assert!(
        s.text
            .contains("without their /url or text to fit the budget"),
        "{}",
        s.text
    );
}

#[test]
fn nothing_cut_means_no_header() {
    let s = snap(
        "<body><button>OK</button><a href=/x>x</a><p>text</p></body>",
        &SnapshotOptions::default(),
    );
    assert_eq!(s.truncation, None);
    assert!(!s.text.contains("# Elements"), "{}", s.text);
    assert_eq!((s.kept_elements, s.total_elements), (2, 2));
    assert!(s.text.contains("button \"OK\" [ref="));
    assert!(s.text.contains("- /url: /x"));
    // Interactive only: the paragraph is left out, and the view says so.
    assert!(!s.text.contains("paragraph"));
    assert!(
        s.text.ends_with(
            "# Interactive elements only; all roles (--all-roles) add text and structure"
        )
    );
    let all = snap(
        "<body><button>OK</button><p>text</p></body>",
        &SnapshotOptions {
            interactive_only: false,
            ..SnapshotOptions::default()
        },
    );
    assert!(
        all.text.contains("paragraph [ref=e3]: text"),
        "{}",
        all.text
    );
}

#[test]
fn full_is_playwrights_text_without_header() {
    for (html, mode) in [
        (
            "<body><h1>T</h1><button>B</button><a href=/x>x</a></body>",
            Mode::Ai,
        ),
        ("<body><h1>T</h1><button>B</button></body>", Mode::Aria),
    ] {
        let page = Page::parse(html);
        let opts = SnapshotOptions {
            full_snapshot: true,
            mode,
            ..SnapshotOptions::default()
        };
        let s = snapshot::snapshot(&page, "", &Scope::Page, &opts, None).unwrap();
        assert_eq!(s.text, aria::snapshot(&page, mode));
        assert_eq!(s.kind, ViewKind::Full);
    }
}

#[test]
fn kept_elements_keep_their_ancestors() {
    let html = format!(
        "<body><main><section aria-label=S><ul>{}</ul></section></main><footer><a href=/f>f</a></footer></body>",
        repeat(30, |i| format!("<li><div><a href=/{i}>n{i}</a></div></li>"))
    );
    let page = Page::parse(&html);
    let (full, _) = snapshot::prepare(&page, Mode::Ai, "", None).unwrap();
    let chain = |t: &snapshot::SnapTree, i: usize| -> Vec<(String, Option<String>)> {
        t.ancestors(i)
            .map(|a| (t.lines[a].role.clone(), t.lines[a].aria_ref.clone()))
            .collect()
    };
    for interactive_only in [true, false] {
        let s = snapshot::snapshot(
            &page,
            "",
            &Scope::Page,
            &SnapshotOptions {
                max_elements: 7,
                interactive_only,
                ..SnapshotOptions::default()
            },
            None,
        )
        .unwrap();
        let out = snapshot::parse(&s.text).unwrap();
        let mut checked = 0;
        for (i, l) in out.lines.iter().enumerate() {
            if !is_candidate(l, interactive_only) || l.role != "link" {
                continue;
            }
            let r = l.aria_ref.as_deref().unwrap();
            let j = full.tree.find_ref(r).unwrap();
            let mut expected = chain(&full.tree, j);
            if interactive_only {
                // The nameless list and listitem hold nothing but a ref there;
                // the named region, the landmark and the body stay.
                assert_eq!(
                    expected.iter().map(|(r, _)| r.as_str()).collect::<Vec<_>>(),
                    ["listitem", "list", "region", "main", "generic"]
                );
                expected.drain(..2);
            }
            assert_eq!(chain(&out, i), expected, "ancestors of {r}");
            checked += 1;
        }
        assert!(checked >= 1, "{}", s.text);
    }
}

/// Budget adherence over a corpus sample at several budgets, in both
/// candidate modes: the whole output is within max_tokens, `# Tokens: ~T` is
/// the exact count, and cuts are always announced.
#[test]
fn budget_holds_over_the_corpus() {
    let pages = webfold_corpus::sample(9);
    let budgets = [1000usize, 2000, 4000, 8000, 20_000];
    let mut checked = 0;
    let mut truncated = 0;
    for p in &pages {
        let page = Page::parse(&p.html());
        let url = p.url.clone().unwrap_or_default();
        for &max_tokens in &budgets {
            for interactive_only in [true, false] {
                let opts = SnapshotOptions {
                    max_tokens,
                    interactive_only,
                    ..SnapshotOptions::default()
                };
                let s = snapshot::snapshot(&page, &url, &Scope::Page, &opts, None).unwrap();
                let exact = tokens::count_default(&s.text);
                assert_eq!(s.tokens, exact, "{}", p.id);
                assert!(exact <= max_tokens, "{} at {max_tokens}: {exact}", p.id);
                assert!(s.kept_elements <= 300);
                let tree = snapshot::parse(&s.text).unwrap_or_else(|e| panic!("{}: {e}", p.id));
                let printed = tree
                    .lines
                    .iter()
                    .filter(|l| is_candidate(l, interactive_only))
                    .count();
                assert_eq!(printed, s.kept_elements, "{} at {max_tokens}", p.id);
                if let Some(t) = s.truncation {
                    truncated += 1;
                    assert_eq!(
                        tree.header[0],
                        format!(
                            "# Elements: {} of {} (truncated: {})",
                            s.kept_elements,
                            s.total_elements,
                            t.header_words()
                        )
                    );
                    assert_eq!(tree.header[1], format!("# Tokens: ~{exact}"));
                    let cut = s.total_elements - s.kept_elements;
                    assert!(
                        tree.footer.iter().any(|l| l
                            .starts_with(&format!("# {cut} lower-priority elements not shown"))),
                        "{}",
                        p.id
                    );
                } else {
                    assert_eq!(s.kept_elements, s.total_elements);
                }
                checked += 1;
            }
        }
    }
    println!(
        "budget adherence: {checked} views of {} pages, {truncated} truncated",
        pages.len()
    );
    assert!(
        truncated > checked / 4,
        "the sample should exercise cutting"
    );
}

/// Tokens at default options vs the full AI snapshot vs raw HTML, and time
/// per page. Printed for the closing note; asserts only what must hold.
#[test]
fn token_and_speed_figures() {
    let pages = webfold_corpus::sample(4);
    let mut rows = Vec::new();
    let mut times = Vec::new();
    for p in &pages {
        let html = p.html();
        let page = Page::parse(&html);
        let url = p.url.clone().unwrap_or_default();
        let t0 = Instant::now();
        let s = snapshot::snapshot(&page, &url, &Scope::Page, &SnapshotOptions::default(), None)
            .unwrap();
        times.push(t0.elapsed().as_secs_f64() * 1000.0);
        let full = aria::snapshot(&page, Mode::Ai);
        rows.push((
            tokens::count_default(&html),
            tokens::count_default(&full),
            s.tokens,
        ));
    }
    let sum = |f: fn(&(usize, usize, usize)) -> usize| rows.iter().map(f).sum::<usize>();
    let (html, full, def) = (sum(|r| r.0), sum(|r| r.1), sum(|r| r.2));
    let mut ratios: Vec<f64> = rows
        .iter()
        .filter(|r| r.1 > 0)
        .map(|r| r.2 as f64 / r.1 as f64)
        .collect();
    ratios.sort_by(f64::total_cmp);
    times.sort_by(f64::total_cmp);
    let pct = |v: &[f64], q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    println!("pages: {}", rows.len());
    println!("tokens total: raw HTML {html}, full AI snapshot {full}, default view {def}");
    println!(
        "default vs full: {:.1}% fewer overall; per page median {:.1}% fewer",
        100.0 * (1.0 - def as f64 / full as f64),
        100.0 * (1.0 - pct(&ratios, 0.5))
    );
    println!(
        "default vs raw HTML: {:.1}% fewer",
        100.0 * (1.0 - def as f64 / html as f64)
    );
    let big: Vec<_> = rows.iter().filter(|r| r.1 > 16_000).collect();
    let (bf, bd) = (
        big.iter().map(|r| r.1).sum::<usize>(),
        big.iter().map(|r| r.2).sum::<usize>(),
    );
    println!(
        "pages whose full snapshot is over 16K tokens: {}, default is {:.1}% fewer",
        big.len(),
        100.0 * (1.0 - bd as f64 / bf.max(1) as f64)
    );
    println!(
        "snapshot time per page (default options, incl. tree build): p50 {:.1} ms, p99 {:.1} ms",
        pct(&times, 0.5),
        pct(&times, 0.99)
    );
    assert!(def < full && full < html);
    assert!(rows.iter().all(|r| r.2 <= 8000));
}

#[test]
fn closing_line_lists_groups_with_refs() {
    let groups = vec![budget::CutGroup {
        label: "list".into(),
        aria_ref: Some("e7".into()),
        count: 3,
    }];
    assert_eq!(
        budget::closing_line(3, &groups, webfold_core::contract::Surface::Cli),
        "# 3 lower-priority elements not shown (3 in list [ref=e7]). To see them: snapshot --ref REF (one subtree) or snapshot --selector SEL, raise --max-elements or --max-tokens; chunk --ref REF gives an element's HTML"
    );
    assert_eq!(
        budget::closing_line(3, &groups, webfold_core::contract::Surface::Mcp),
        "# 3 lower-priority elements not shown (3 in list [ref=e7]). To see them: page_snapshot {ref: REF} (one subtree) or page_snapshot {selector: SEL}, raise max_elements or max_tokens; get_html_chunk {ref: REF} gives an element's HTML"
    );
}
