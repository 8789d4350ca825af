//! Navigation-pattern dedup across same-site pages (seed 001's compactor).

use std::collections::BTreeMap;

use webfold_core::Page;
use webfold_core::snapshot::dedup::{self, UNCHANGED};
use webfold_core::snapshot::{self, Scope, SnapTree, SnapshotOptions, SnapshotSession};

const CHROME: &str = "<header><a href=/>Logo</a><nav aria-label=Main><a href=/a>A</a><a href=/b>B</a><a href=/c>C</a></nav></header>";
const FOOTER: &str = "<footer><a href=/imprint>Imprint</a><a href=/privacy>Privacy</a></footer>";

fn page(main: &str) -> String {
    format!("<body>{CHROME}<main>{main}</main>{FOOTER}</body>")
}

fn take(
    html: &str,
    url: &str,
    opts: &SnapshotOptions,
    s: Option<&mut SnapshotSession>,
) -> snapshot::Snapshot {
    snapshot::snapshot(
        &Page::parse(html),
        url,
        &Scope::Page,
        opts,
        s,
        webfold_core::contract::Ctx::default(),
    )
    .unwrap()
}

#[test]
fn unchanged_chrome_is_one_line_on_the_next_page_of_the_site() {
    let mut s = SnapshotSession::new();
    let opts = SnapshotOptions::default();
    let first = take(
        &page("<button>One</button>"),
        "https://site.example/1",
        &opts,
        Some(&mut s),
    );
    assert!(!first.text.contains(UNCHANGED));
    let second = take(
        &page("<button>Two</button><a href=/x>More</a>"),
        "https://www.site.example/2",
        &opts,
        Some(&mut s),
    );
    let banner = second
        .text
        .lines()
        .find(|l| l.contains("- banner"))
        .expect(&second.text);
    assert!(banner.ends_with(&format!(": {UNCHANGED}")), "{banner}");
    let footer = second
        .text
        .lines()
        .find(|l| l.contains("- contentinfo"))
        .expect(&second.text);
    assert!(footer.ends_with(&format!(": {UNCHANGED}")), "{footer}");
    assert_eq!(second.unchanged.len(), 2);
    // The summary line is an ordinary snapshot line with the ref it had before.
    let tree = snapshot::parse(&second.text).unwrap();
    let marker = tree.lines.iter().find(|l| l.role() == "banner").unwrap();
    assert!(dedup::is_unchanged_marker(marker));
    let before = snapshot::parse(&first.text).unwrap();
    assert_eq!(
        marker.aria_ref,
        before
            .lines
            .iter()
            .find(|l| l.role() == "banner")
            .unwrap()
            .aria_ref
    );
    // Elements inside keep their refs too, so refs from the first page still work.
    let full2 = take(
        &page("<button>Two</button><a href=/x>More</a>"),
        "https://site.example/2",
        &SnapshotOptions {
            full_snapshot: true,
            ..opts.clone()
        },
        Some(&mut s.clone()),
    );
    let link = |t: &str| {
        snapshot::parse(t)
            .unwrap()
            .lines
            .iter()
            .find(|l| l.name.as_deref() == Some("Privacy"))
            .and_then(|l| l.aria_ref.clone())
    };
    assert_eq!(link(&full2.text), link(&first.text));
    // The page's own content is all there.
    assert!(second.text.contains("button \"Two\"") && second.text.contains("link \"More\""));
}

#[test]
fn only_identical_chrome_on_the_same_site_is_elided() {
    let opts = SnapshotOptions::default();
    // Another site: nothing elided.
    let mut s = SnapshotSession::new();
    take(
        &page("<p>x</p>"),
        "https://site.example/1",
        &opts,
        Some(&mut s),
    );
    let other = take(
        &page("<p>y</p>"),
        "https://other.example/1",
        &opts,
        Some(&mut s),
    );
    assert!(!other.text.contains(UNCHANGED), "{}", other.text);
    // Same site, changed navigation: the banner stays whole, the footer is elided.
    let mut s = SnapshotSession::new();
    take(
        &page("<p>x</p>"),
        "https://site.example/1",
        &opts,
        Some(&mut s),
    );
    let changed = page("<p>y</p>").replace("<a href=/c>C</a>", "<a href=/d>D</a>");
    let v = take(&changed, "https://site.example/2", &opts, Some(&mut s));
    assert!(v.text.contains("link \"D\""), "{}", v.text);
    assert!(
        !v.text
            .lines()
            .any(|l| l.contains("- banner") && l.contains(UNCHANGED))
    );
    assert!(
        v.text
            .lines()
            .any(|l| l.contains("- contentinfo") && l.contains(UNCHANGED))
    );
    // --full bypasses dedup.
    let mut s = SnapshotSession::new();
    take(
        &page("<p>x</p>"),
        "https://site.example/1",
        &opts,
        Some(&mut s),
    );
    let f = take(
        &page("<p>y</p>"),
        "https://site.example/2",
        &SnapshotOptions {
            full_snapshot: true,
            ..opts
        },
        Some(&mut s),
    );
    assert!(!f.text.contains(UNCHANGED));
}

#[test]
fn hash_ignores_refs_and_states_but_not_names() {
    let a = snapshot::parse(
        "- navigation [ref=e3]:\n  - link \"A\" [ref=e4] [cursor=pointer]:\n    - /url: /a",
    )
    .unwrap();
    let b =
        snapshot::parse("- navigation [ref=e90]:\n  - link \"A\" [ref=e91]:\n    - /url: /other")
            .unwrap();
    let c = snapshot::parse("- navigation [ref=e3]:\n  - link \"B\" [ref=e4]").unwrap();
    assert_eq!(dedup::nav_pattern(&a), dedup::nav_pattern(&b));
    assert_ne!(dedup::nav_pattern(&a), dedup::nav_pattern(&c));
    assert!(dedup::nav_pattern(&snapshot::parse("- main:\n  - link \"A\"").unwrap()).is_empty());
}

/// Line items with refs removed: what is the same element on both runs.
fn stripped(t: &SnapTree, i: usize) -> (usize, String) {
    let l = &t.lines[i];
    let mut key = l.raw_key().to_string();
    if let Some(r) = &l.aria_ref {
        let tag = format!(" [ref={r}]");
        if let Some(pos) = key.rfind(&tag) {
            key.replace_range(pos..pos + tag.len(), "");
        }
    }
    (
        l.depth(),
        format!(
            "{key}|{}",
            l.raw_value().filter(|v| *v != UNCHANGED).unwrap_or("")
        ),
    )
}

/// Over same-site sequences of corpus pages: how many tokens dedup saves,
/// and that it never elides anything but unchanged navigation, banner and
/// contentinfo subtrees.
#[test]
fn dedup_savings_over_same_site_corpus_pages() {
    let mut by_host: BTreeMap<String, Vec<webfold_corpus::CorpusPage>> = BTreeMap::new();
    for p in webfold_corpus::pages() {
        // Readability's pages all claim http://fakehost/test/page.html: one URL, many sites.
        if let Some(host) = p
            .url
            .as_deref()
            .and_then(snapshot::session::site_of)
            .filter(|h| h != "fakehost")
        {
            let group = by_host.entry(host).or_default();
            if !group.iter().any(|g| g.url == p.url) {
                group.push(p);
            }
        }
    }
    let big = SnapshotOptions {
        interactive_only: false,
        max_tokens: 50_000,
        max_elements: 1000,
        ..SnapshotOptions::default()
    };
    let (mut pages, mut deduped_pages, mut tokens_plain, mut tokens_dedup) = (0, 0, 0usize, 0usize);
    let (mut def_plain, mut def_dedup, mut kept_plain, mut kept_dedup) =
        (0usize, 0usize, 0usize, 0usize);
    let mut groups = 0;
    for (host, group) in by_host.iter().filter(|(_, g)| g.len() >= 2) {
        groups += 1;
        let mut session = SnapshotSession::new();
        let mut session_default = SnapshotSession::new();
        for (k, p) in group.iter().enumerate() {
            let html = p.html();
            let url = p.url.clone().unwrap_or_default();
            let with = take(&html, &url, &big, Some(&mut session));
            let without = take(&html, &url, &big, None);
            let dwith = take(
                &html,
                &url,
                &SnapshotOptions::default(),
                Some(&mut session_default),
            );
            let dwithout = take(&html, &url, &SnapshotOptions::default(), None);
            if k == 0 {
                assert!(with.unchanged.is_empty());
                continue;
            }
            pages += 1;
            tokens_plain += without.tokens;
            tokens_dedup += with.tokens;
            def_plain += dwithout.tokens;
            def_dedup += dwith.tokens;
            kept_plain += dwithout.kept_elements;
            kept_dedup += dwith.kept_elements;
            if with.unchanged.is_empty() {
                continue;
            }
            deduped_pages += 1;
            if with.truncation.is_some() || without.truncation.is_some() {
                continue;
            }
            // Nothing but chrome subtrees is elided: walking both views in
            // order, every line of the plain view is in the deduped one, or
            // inside a navigation/banner/contentinfo subtree whose root is.
            let a = snapshot::parse(&without.text).unwrap();
            let b = snapshot::parse(&with.text).unwrap();
            let mut j = 0;
            let mut i = 0;
            while i < a.lines.len() {
                assert!(j < b.lines.len(), "{host} {}: ran out at line {i}", p.id);
                assert_eq!(
                    stripped(&a, i),
                    stripped(&b, j),
                    "{host} {}: line {i}",
                    p.id
                );
                if dedup::is_unchanged_marker(&b.lines[j]) {
                    assert!(dedup::CHROME_ROLES.contains(&a.lines[i].role()));
                    i = a.lines[i].subtree_end();
                } else {
                    i += 1;
                }
                j += 1;
            }
            assert_eq!(j, b.lines.len());
        }
    }
    println!(
        "same-site groups: {groups}, pages after the first: {pages}, with chrome elided: {deduped_pages}"
    );
    println!(
        "whole views (all roles, 50K budget): {tokens_plain} → {tokens_dedup} tokens ({:.1}% saved)",
        100.0 * (1.0 - tokens_dedup as f64 / tokens_plain.max(1) as f64)
    );
    println!(
        "default views: {def_plain} → {def_dedup} tokens, {kept_plain} → {kept_dedup} elements kept"
    );
    assert!(deduped_pages > 0 && tokens_dedup < tokens_plain);
}
