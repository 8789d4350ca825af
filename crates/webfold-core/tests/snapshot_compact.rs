//! The budgeted view's compact lines: redundant `[cursor=pointer]` dropped,
//! page-relative `/url`s, nothing-but-a-ref wrappers left out, long names and
//! URLs cut, repeated links listed once. `--full` is never touched.

use std::collections::HashMap;

use webfold_core::Page;
use webfold_core::aria::{self, Mode};
use webfold_core::snapshot::budget::is_candidate;
use webfold_core::snapshot::priority::is_interactive_role;
use webfold_core::snapshot::{self, LineKind, Scope, SnapshotOptions};

const PAGE_URL: &str = "https://shop.example/item/1";

const SHOP: &str = r##"<title>T</title><body>
<header><nav aria-label=Main><ul>
<li><a href="https://shop.example/deals?sort=new">Deals</a></li>
<li><a href="https://shop.example/deals?sort=new">Deals</a></li>
<li><a href="https://other.example/x">Partner</a></li>
<li><a href="javascript:void(0)">Menu</a></li>
<li><a href="#main">Skip</a></li>
<li><a href="https://shop.example/item/1#reviews">Reviews</a></li>
<li><a href="https://shop.example/a/b">https://shop.example/a/b</a></li>
</ul></nav></header>
<main><h1>Item</h1><div><div><p>Text <a href="../c/d">rel</a></p></div></div>
<div style="cursor:pointer">Clickable</div>
<a href="https://other.example/share?text=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">Share</a>
<a href="/long">A very long link name that goes on and on about a product card and its price and its reviews and more</a>
<button>Buy</button></main>
<footer><a href="https://shop.example/deals?sort=new">Deals</a></footer>
</body>"##;

fn view(page: &Page, url: &str, opts: &SnapshotOptions) -> snapshot::Snapshot {
    snapshot::snapshot(
        page,
        url,
        &Scope::Page,
        opts,
        None,
        webfold_core::contract::Ctx::default(),
    )
    .unwrap()
}

#[test]
fn default_view_says_the_same_in_fewer_tokens() {
    let page = Page::parse(SHOP);
    let s = view(&page, PAGE_URL, &SnapshotOptions::default());
    let a = "a".repeat(66);
    let expected = format!(
        r#"- generic [active] [ref=e1]:
  - banner [ref=e2]:
    - navigation "Main" [ref=e3]:
      - link "Deals" [ref=e6]:
        - /url: /deals?sort=new
      - link "Partner" [ref=e10]:
        - /url: https://other.example/x
      - link "Menu" [ref=e12]
      - link "Skip" [ref=e14]
      - link "Reviews" [ref=e16]
      - link "https://shop.example/a/b" [ref=e18]
  - main [ref=e19]:
    - heading "Item" [level=1] [ref=e20]
    - link "rel" [ref=e24]:
      - /url: /c/d
    - generic [ref=e25] [cursor=pointer]: Clickable
    - link "Share" [ref=e26]:
      - /url: https://other.example/share?text={a}…
    - link "A very long link name that goes on and on about a product card and its price an…" [ref=e27]:
      - /url: /long
    - button "Buy" [ref=e28]
  - contentinfo [ref=e29]:
    - link "Deals" [ref=e30]:
      - /url: /deals?sort=new
# 1 repeated links not listed again (same name and URL as a listed link): find TEXT lists each with its ref
# Names and URLs ending in … are cut short: find TEXT or --full prints them whole
# Interactive elements only; all roles (--all-roles) add text and structure"#
    );
    assert_eq!(s.text, expected);
    // The repeat is reported, not cut: nothing was cut for the budget.
    assert_eq!(s.truncation, None);
    assert_eq!(s.repeated_links, 1);
    // The heading counts: interactive-only views keep headings for orientation.
    assert_eq!((s.kept_elements, s.total_elements), (13, 13));
    // --full is still Playwright's text, byte for byte.
    let full = view(
        &page,
        PAGE_URL,
        &SnapshotOptions {
            full_snapshot: true,
            ..SnapshotOptions::default()
        },
    );
    assert_eq!(full.text, aria::snapshot(&page, Mode::Ai));
    assert!(full.text.contains("[cursor=pointer]") && full.text.contains("- listitem"));
}

#[test]
fn all_roles_keeps_the_structure_and_still_shortens_lines() {
    let page = Page::parse(SHOP);
    let s = view(
        &page,
        PAGE_URL,
        &SnapshotOptions {
            interactive_only: false,
            ..SnapshotOptions::default()
        },
    );
    // Every element counts in this mode, so no wrapper is left out.
    for line in [
        "      - list [ref=e4]:",
        "        - listitem [ref=e5]:",
        "          - link \"Deals\" [ref=e6]:",
        "            - /url: /deals?sort=new",
        "    - heading \"Item\" [level=1] [ref=e20]",
        "    - paragraph [ref=e23]:",
        "      - text: Text",
    ] {
        assert!(s.text.lines().any(|l| l == line), "{line}\n{}", s.text);
    }
    assert!(!s.text.contains("link \"Deals\" [ref=e8]"), "{}", s.text);
    assert!(!s.text.contains("javascript:"), "{}", s.text);
    assert_eq!(s.text.matches("[cursor=pointer]").count(), 1, "{}", s.text);
}

#[test]
fn without_a_web_address_links_print_as_written() {
    let page = Page::parse(SHOP);
    let s = view(&page, "stdin", &SnapshotOptions::default());
    assert!(
        s.text
            .contains("- /url: https://shop.example/deals?sort=new"),
        "{}",
        s.text
    );
    assert!(s.text.contains("- /url: ../c/d"), "{}", s.text);
    // A page of its own it cannot recognise: the same-page link keeps its URL.
    assert!(
        s.text
            .contains("- /url: https://shop.example/item/1#reviews"),
        "{}",
        s.text
    );
    assert!(!s.text.contains("#main"), "{}", s.text);
}

#[test]
fn base_href_decides_where_relative_links_go() {
    let html = r#"<base href="https://shop.example/docs/"><body><a href="intro">Intro</a><a href="https://cdn.example/x">X</a></body>"#;
    let s = view(&Page::parse(html), PAGE_URL, &SnapshotOptions::default());
    assert!(s.text.contains("- /url: /docs/intro"), "{}", s.text);
    let elsewhere = r#"<base href="https://cdn.example/"><body><a href="intro">Intro</a></body>"#;
    let s = view(
        &Page::parse(elsewhere),
        PAGE_URL,
        &SnapshotOptions::default(),
    );
    assert!(
        s.text.contains("- /url: https://cdn.example/intro"),
        "{}",
        s.text
    );
}

/// Over a corpus sample at the widest budget: the compact view reads back,
/// each printed element is the element of the tree of what is seen (the
/// full snapshot without unseen text, see `page::unseen`) with the same
/// ref, role and states, and every candidate is either printed or counted
/// as a repeated link. Nothing disappears silently.
#[test]
fn compact_view_loses_no_element_over_the_corpus() {
    let pages = webfold_corpus::sample(7);
    let mut checked = 0;
    let mut repeated = 0;
    for p in &pages {
        let page = Page::parse(&p.html());
        let url = p.url.clone().unwrap_or_default();
        let (full, _) = snapshot::prepare_for(&page, (Mode::Ai, true), &url, None).unwrap();
        let by_ref: HashMap<&str, usize> = full
            .tree
            .lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| Some((l.aria_ref.as_deref()?, i)))
            .collect();
        for interactive_only in [true, false] {
            let opts = SnapshotOptions {
                interactive_only,
                max_tokens: 50_000,
                max_elements: 1000,
                ..SnapshotOptions::default()
            };
            let s = view(&page, &url, &opts);
            let out = snapshot::parse(&s.text).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            for l in out.lines.iter().filter(|l| l.kind == LineKind::Element) {
                // Playwright gives no ref to what has no box or takes no pointer events.
                let Some(r) = l.aria_ref.as_deref() else {
                    continue;
                };
                let f = &full.tree.lines[by_ref[r]];
                assert_eq!((l.role(), l.attrs()), (f.role(), f.attrs()), "{} {r}", p.id);
                let name = l.name.as_deref().unwrap_or("");
                let full_name = f.name.as_deref().unwrap_or("");
                assert!(
                    name == full_name
                        || name
                            .strip_suffix('…')
                            .is_some_and(|n| full_name.starts_with(n)),
                    "{} {r}: {name:?} vs {full_name:?}",
                    p.id
                );
                assert!(
                    !(l.cursor_pointer && is_interactive_role(l.role())),
                    "{} {r}: the role already says it is clickable",
                    p.id
                );
            }
            if s.truncation.is_some() {
                continue;
            }
            let full_candidates = full
                .tree
                .lines
                .iter()
                .filter(|l| is_candidate(l, interactive_only))
                .count();
            let printed = out
                .lines
                .iter()
                .filter(|l| is_candidate(l, interactive_only))
                .count();
            assert_eq!(printed, s.kept_elements, "{}", p.id);
            assert_eq!(
                printed + s.repeated_links,
                full_candidates,
                "{} (interactive_only {interactive_only})",
                p.id
            );
            repeated += s.repeated_links;
            checked += 1;
        }
    }
    println!(
        "{checked} untruncated views of {} pages; {repeated} repeated links",
        pages.len()
    );
    assert!(
        checked > pages.len(),
        "the sample should fit the widest budget"
    );
    assert!(repeated > 0);
}
