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
        webfold_core::contract::Ctx::default(),
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
fn options_have_the_seeds_defaults_and_element_clamp() {
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
    // Only the element limit has a range: a budget is honoured as asked.
    assert_eq!(c(0, 0), (1, 0));
    assert_eq!(c(5000, 99_999), (1000, 99_999));
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
        webfold_core::contract::Ctx::default(),
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
    let s = snapshot::snapshot(
        &page,
        "",
        &Scope::Page,
        &opts,
        None,
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    let tree = snapshot::parse(&s.text).unwrap();
    let kept: Vec<_> = tree
        .lines
        .iter()
        .filter(|l| is_candidate(l, true))
        .map(|l| l.role())
        .collect();
    assert_eq!(kept, vec!["link"; 5], "{}", s.text);
    // Only what is in the viewport, and a note for the rest.
    let only = SnapshotOptions {
        viewport_only: true,
        ..SnapshotOptions::default()
    };
    let s = snapshot::snapshot(
        &page,
        "",
        &Scope::Page,
        &only,
        None,
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    assert_eq!((s.kept_elements, s.total_elements), (5, 5));
    assert!(!s.text.contains("button"), "{}", s.text);
    assert!(
        s.text.contains(
            "# 5 more elements are outside the viewport: --no-viewport-only includes them"
        ),
        "{}",
        s.text
    );
    // A status message below the fold is announced all the same.
    let page = live_page(&html.replace(
        "</main>",
        "<div role=status id=out-status>Saved</div></main>",
    ));
    let s = snapshot::snapshot(
        &page,
        "",
        &Scope::Page,
        &only,
        None,
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    assert!(s.text.contains("status [ref="), "{}", s.text);
    assert!(s.text.contains("Saved"), "{}", s.text);
    assert_eq!((s.kept_elements, s.total_elements), (6, 6));
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
    assert!(kept.iter().all(|l| l.role() == "button"));
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
        let s = snapshot::snapshot(
            &page,
            "",
            &Scope::Page,
            &opts,
            None,
            webfold_core::contract::Ctx::default(),
        )
        .unwrap();
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
            .map(|a| {
                (
                    t.lines[a].role().to_string(),
                    t.lines[a].aria_ref.as_deref().map(String::from),
                )
            })
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
            webfold_core::contract::Ctx::default(),
        )
        .unwrap();
        let out = snapshot::parse(&s.text).unwrap();
        let mut checked = 0;
        for (i, l) in out.lines.iter().enumerate() {
            if !is_candidate(l, interactive_only) || l.role() != "link" {
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
                let s = snapshot::snapshot(
                    &page,
                    &url,
                    &Scope::Page,
                    &opts,
                    None,
                    webfold_core::contract::Ctx::default(),
                )
                .unwrap();
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
/// per page. Printed for the issue's closing note; asserts only what must hold.
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
        let s = snapshot::snapshot(
            &page,
            &url,
            &Scope::Page,
            &SnapshotOptions::default(),
            None,
            webfold_core::contract::Ctx::default(),
        )
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

const CHECKOUT: &str = "<title>Checkout</title><body>\
<header><nav aria-label=Main><a href=/>Home</a><a href=/cart>Cart</a></nav></header>\
<main><h1>Checkout</h1><h2>Shipping</h2>\
<form><label>Name <input name=n></label><h3>Gift options</h3>\
<label><input type=checkbox> Gift wrap</label><button>Place order</button></form>\
<div role=status><p>Order placed.</p><div><span>Confirmation number</span> <b>A-12345</b></div></div>\
<div role=alert>Card declined: <a href=/help>get help</a></div>\
</main></body>";

#[test]
fn interactive_view_keeps_headings_and_live_regions_with_their_text() {
    let s = snap(CHECKOUT, &SnapshotOptions::default());
    assert_eq!(
        s.text,
        r#"- generic [active] [ref=e1]:
  - banner [ref=e2]:
    - navigation "Main" [ref=e3]:
      - link "Home" [ref=e4]
      - link "Cart" [ref=e5]:
        - /url: /cart
  - main [ref=e6]:
    - heading "Checkout" [level=1] [ref=e7]
    - heading "Shipping" [level=2] [ref=e8]
    - textbox "Name" [ref=e11]
    - heading "Gift options" [level=3] [ref=e12]
    - checkbox "Gift wrap" [ref=e14]
    - button "Place order" [ref=e15]
    - status [ref=e16]:
      - paragraph [ref=e17]: Order placed.
      - generic [ref=e18]: Confirmation number A-12345
    - alert [ref=e19]:
      - text: "Card declined:"
      - link "get help" [ref=e20]:
        - /url: /help
# Interactive elements only; all roles (--all-roles) add text and structure"#
    );
    // Headings and live regions count as elements: nothing was cut.
    assert_eq!((s.kept_elements, s.total_elements), (11, 11));
    assert_eq!(s.truncation, None);
    // The wrappers inside the status stay: they hold its text.
    let all = snap(
        CHECKOUT,
        &SnapshotOptions {
            interactive_only: false,
            ..SnapshotOptions::default()
        },
    );
    assert!(all.text.contains("- paragraph [ref=e17]: Order placed."));
}

#[test]
fn after_an_action_the_view_shows_what_the_page_answered() {
    // The form before "Place order", and the page after it.
    let before = CHECKOUT
        .replace(
            "<p>Order placed.</p><div><span>Confirmation number</span> <b>A-12345</b></div>",
            "",
        )
        .replace("Card declined: <a href=/help>get help</a>", "");
    let url = "https://shop.example/checkout";
    for diff in [true, false] {
        let mut session = snapshot::SnapshotSession::new();
        let opts = SnapshotOptions {
            diff,
            ..SnapshotOptions::default()
        };
        let take = |html: &str, s: &mut snapshot::SnapshotSession| {
            snapshot::snapshot(
                &Page::parse(html),
                url,
                &Scope::Page,
                &opts,
                Some(s),
                webfold_core::contract::Ctx::default(),
            )
            .unwrap()
        };
        let first = take(&before, &mut session);
        assert!(!first.text.contains("Order placed"), "{}", first.text);
        let after = take(CHECKOUT, &mut session);
        for text in [
            "Order placed.",
            "Confirmation number A-12345",
            "Card declined:",
        ] {
            assert!(
                after.text.contains(text),
                "diff {diff}: {text}\n{}",
                after.text
            );
        }
    }
}

/// A page with `n` of each: buttons, links, top headings, sub-headings.
/// The links say nothing of what they are for (see the next test).
fn ranked_page(n: usize) -> String {
    format!(
        "<body><main>{}{}{}{}<div role=status>Saved</div></main></body>",
        repeat(n, |i| format!("<h3>Sub {i}</h3>")),
        repeat(n, |i| format!("<a href=/p{i}>item {i}</a>")),
        repeat(n, |i| format!("<h2>Section {i}</h2>")),
        repeat(n, |i| format!("<button>act {i}</button>")),
    )
}

#[test]
fn live_regions_then_controls_then_top_headings_then_links_then_sub_headings() {
    let kept_roles = |max_elements: usize| {
        let s = snap(
            &ranked_page(5),
            &SnapshotOptions {
                max_elements,
                ..SnapshotOptions::default()
            },
        );
        let tree = snapshot::parse(&s.text).unwrap();
        let mut roles: Vec<String> = tree
            .lines
            .iter()
            .filter(|l| is_candidate(l, true))
            .map(|l| match l.attrs().first() {
                Some((a, Some(v))) if a == "level" => format!("{}{v}", l.role()),
                _ => l.role().to_string(),
            })
            .collect();
        roles.sort();
        roles.dedup();
        roles
    };
    assert_eq!(kept_roles(1), ["status"]);
    assert_eq!(kept_roles(6), ["button", "status"]);
    assert_eq!(kept_roles(11), ["button", "heading2", "status"]);
    assert_eq!(kept_roles(16), ["button", "heading2", "link", "status"]);
    assert_eq!(
        kept_roles(17),
        ["button", "heading2", "heading3", "link", "status"]
    );
    // The seed's own table is untouched: these ranks apply to the context
    // an interactive-only view adds.
    assert_eq!(
        priority::context_priority("heading", Some(1), false),
        priority::TOP_HEADING_PRIORITY
    );
    assert!(priority::TOP_HEADING_PRIORITY > element_priority("link", false));
    assert!(priority::TOP_HEADING_PRIORITY < element_priority("spinbutton", false));
    // Sub-headings under every interactive role, the clickable generic too.
    assert!(
        priority::context_priority("heading", Some(3), false) < element_priority("generic", false)
    );
    assert!(priority::LIVE_REGION_PRIORITY > element_priority("button", true));
}

/// A link that says what it is for (sign in, privacy, next page…) ranks
/// over the other links and the top headings, under the form controls: pages
/// keep these in their footers, after hundreds of equal links.
#[test]
fn links_that_say_their_purpose_rank_over_other_links_and_top_headings() {
    let html = format!(
        "<body><main>{}{}<button>Buy</button></main><footer>\
         <a href=/datenschutz>Datenschutz</a><a href=/login>Log in</a></footer></body>",
        repeat(40, |i| format!("<a href=/p{i}>item {i}</a>")),
        repeat(5, |i| format!("<h2>Section {i}</h2>")),
    );
    let kept = |max_elements: usize| {
        snap(
            &html,
            &SnapshotOptions {
                max_elements,
                ..SnapshotOptions::default()
            },
        )
        .text
    };
    let three = kept(3);
    for name in ["Buy", "Datenschutz", "Log in"] {
        assert!(three.contains(name), "{name}:\n{three}");
    }
    assert!(!three.contains("Section 0"), "{three}");
    assert!(!three.contains("item 0"), "{three}");
    assert!(kept(4).contains("Section 0"));
}

#[test]
fn live_region_text_is_capped_and_a_log_keeps_its_newest_lines() {
    let lines = repeat(300, |i| format!("<p>message number {i} in the chat</p>"));
    let html = format!(
        "<body><main>{}<div role=log>{lines}</div></main></body>",
        repeat(150, |i| format!("<button>act {i}</button>"))
    );
    let opts = SnapshotOptions {
        max_tokens: 2000,
        ..SnapshotOptions::default()
    };
    let s = snap(&html, &opts);
    assert!(s.tokens <= 2000);
    let tree = snapshot::parse(&s.text).unwrap();
    let log = tree
        .lines
        .iter()
        .position(|l| l.role() == "log")
        .expect(&s.text);
    let log_text: String = tree.lines[log..tree.lines[log].subtree_end()]
        .iter()
        .map(|l| format!("{}{}\n", "  ".repeat(l.depth()), l.item_text(true)))
        .collect();
    // An eighth of the budget, the region's own line included.
    assert!(tokens::count_default(&log_text) <= 2000 / 8, "{log_text}");
    assert!(
        log_text.contains("message number 299 in the chat"),
        "{log_text}"
    );
    assert!(
        !log_text.contains("message number 0 in the chat"),
        "{log_text}"
    );
    // The newest lines run without a hole up to the last one.
    let shown: Vec<usize> = tree.lines[log + 1..tree.lines[log].subtree_end()]
        .iter()
        .filter_map(|l| {
            l.value()?
                .strip_prefix("message number ")?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert!(shown.len() > 3, "{log_text}");
    assert!(shown.windows(2).all(|w| w[1] == w[0] + 1), "{shown:?}");
    // The cut text is reported like any element shown without its details.
    assert!(
        s.text.contains("elements shown without their /url or text"),
        "{}",
        s.text
    );
    // Not at the cost of the controls: the log took at most its share.
    let without_log = snap(&html.replace("role=log", "hidden"), &opts);
    assert!(
        s.kept_elements + 1 >= without_log.kept_elements.saturating_sub(2000 / 8 / 6),
        "{} buttons with the log, {} without",
        s.kept_elements,
        without_log.kept_elements
    );
}

/// Alerts on corpus pages (a fundraising banner, an ad-blocker notice, a
/// news flash) print with their text in the default view.
#[test]
fn alerts_on_real_pages_show_their_text() {
    let pages = webfold_corpus::pages();
    for (id, text) in [
        ("aeb/8380689f358c1e3a", "needs your help!"),
        ("trafilatura/cicero.de.pandemie", "Adblocker"),
        ("trafilatura/wevolver.com.3dprinting", "turbo boost"),
    ] {
        let cp = pages.iter().find(|p| p.id == id).expect(id);
        let page = Page::parse(&cp.html());
        let url = cp.url.clone().unwrap_or_default();
        let s = snapshot::snapshot(
            &page,
            &url,
            &Scope::Page,
            &SnapshotOptions::default(),
            None,
            webfold_core::contract::Ctx::default(),
        )
        .unwrap();
        let tree = snapshot::parse(&s.text).unwrap();
        let alert = tree
            .lines
            .iter()
            .position(|l| l.role() == "alert")
            .unwrap_or_else(|| panic!("{id}: no alert in\n{}", s.text));
        let region: String = tree.lines[alert..tree.lines[alert].subtree_end()]
            .iter()
            .map(|l| l.item_text(false))
            .collect();
        assert!(region.contains(text), "{id}: {region}");
    }
}

/// Over a corpus sample: views that keep links keep the page's top
/// headings (h1, h2) too, and untruncated views keep every heading.
#[test]
fn headings_on_real_pages() {
    let (mut top, mut top_kept, mut untruncated) = (0, 0, 0);
    for p in webfold_corpus::sample(5) {
        let page = Page::parse(&p.html());
        let url = p.url.clone().unwrap_or_default();
        let (full, _) = snapshot::prepare(&page, Mode::Ai, &url, None).unwrap();
        for max_tokens in [2000, 8000] {
            let opts = SnapshotOptions {
                max_tokens,
                ..SnapshotOptions::default()
            };
            let s = snapshot::snapshot(
                &page,
                &url,
                &Scope::Page,
                &opts,
                None,
                webfold_core::contract::Ctx::default(),
            )
            .unwrap();
            let out = snapshot::parse(&s.text).unwrap();
            let printed = |l: &snapshot::Line| {
                l.aria_ref
                    .as_ref()
                    .is_some_and(|r| out.find_ref(r).is_some())
            };
            let headings = full.tree.lines.iter().filter(|l| l.role() == "heading");
            if s.truncation.is_none() {
                untruncated += 1;
                for h in headings.clone().filter(|h| h.aria_ref.is_some()) {
                    assert!(printed(h), "{}: {:?} missing", p.id, h.raw_key());
                }
            }
            if !out.lines.iter().any(|l| l.role() == "link") {
                continue;
            }
            for h in headings.filter(|h| h.aria_ref.is_some()) {
                let level = h.attrs().iter().find(|(a, _)| a == "level");
                if level.is_some_and(|(_, v)| matches!(v.as_deref(), Some("1" | "2"))) {
                    top += 1;
                    top_kept += printed(h) as usize;
                }
            }
        }
    }
    println!(
        "{top_kept} of {top} top headings kept in views with links; {untruncated} untruncated views"
    );
    assert!(untruncated > 50);
    assert!(top_kept as f64 >= 0.98 * top as f64, "{top_kept} of {top}");
}
