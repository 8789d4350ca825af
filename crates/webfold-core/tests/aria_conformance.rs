//! Conformance with Playwright 1.65.1: every case of the shared ARIA corpus,
//! in both modes, compared byte for byte with the pinned Playwright's output.
//!
//! Prints the exact-match rate per mode, per tag, overall and on the static
//! subset (cases that need no JavaScript, real CSS, iframes or focus), and
//! fails below the floors measured so far. `ARIA_SHOW=substring` prints the
//! diff of each failing case whose id contains it (`ARIA_SHOW=` for all).

use std::collections::BTreeMap;

use webfold_core::Page;
use webfold_core::aria::{Mode, snapshot};

/// Floors from the measured rates; raise them as rules get fixed.
const FLOOR_STATIC_ARIA: f64 = 1.0;
const FLOOR_STATIC_AI: f64 = 1.0;
const FLOOR_ALL_ARIA: f64 = 0.95;
const FLOOR_ALL_AI: f64 = 0.929;

const NEEDS_BROWSER: [&str; 4] = ["js", "css", "iframe", "focus"];

#[derive(Default)]
struct Tally {
    cases: usize,
    aria: usize,
    ai: usize,
}

impl Tally {
    fn add(&mut self, aria_ok: bool, ai_ok: bool) {
        self.cases += 1;
        self.aria += aria_ok as usize;
        self.ai += ai_ok as usize;
    }

    fn rate(n: usize, of: usize) -> f64 {
        if of == 0 { 1.0 } else { n as f64 / of as f64 }
    }

    fn row(&self, label: &str) -> String {
        format!(
            "{label:<22} {:>5} {:>6} {:>6.1}% {:>6} {:>6.1}%",
            self.cases,
            self.aria,
            100.0 * Self::rate(self.aria, self.cases),
            self.ai,
            100.0 * Self::rate(self.ai, self.cases)
        )
    }
}

fn show_diff(id: &str, mode: &str, html: &str, expected: &str, actual: &str) {
    eprintln!(
        "=== {id} [{mode}]\n--- html\n{html}\n--- expected\n{expected}\n--- actual\n{actual}\n"
    );
}

#[test]
fn aria_snapshots_match_playwright() {
    let cases = webfold_corpus::aria_cases();
    assert!(
        cases.len() >= 600,
        "the corpus has {} ARIA cases, expected 624",
        cases.len()
    );
    let show = std::env::var("ARIA_SHOW").ok();
    let mut by_tag: BTreeMap<String, Tally> = BTreeMap::new();
    let mut all = Tally::default();
    let mut static_subset = Tally::default();
    for case in &cases {
        let page = Page::parse(&case.html);
        let aria = snapshot(&page, Mode::Aria);
        let ai = snapshot(&page, Mode::Ai);
        let (aria_ok, ai_ok) = (aria == case.aria, ai == case.ai);
        all.add(aria_ok, ai_ok);
        if !case
            .tags
            .iter()
            .any(|t| NEEDS_BROWSER.contains(&t.as_str()))
        {
            static_subset.add(aria_ok, ai_ok);
        }
        for tag in &case.tags {
            by_tag.entry(tag.clone()).or_default().add(aria_ok, ai_ok);
        }
        let needs_browser = case
            .tags
            .iter()
            .any(|t| NEEDS_BROWSER.contains(&t.as_str()));
        if let Some(filter) = &show
            && case.id.contains(filter.as_str())
            && (!needs_browser || std::env::var_os("ARIA_SHOW_ALL").is_some())
        {
            if !aria_ok {
                show_diff(&case.id, "aria", &case.html, &case.aria, &aria);
            }
            if !ai_ok {
                show_diff(&case.id, "ai", &case.html, &case.ai, &ai);
            }
        }
    }
    println!(
        "{:<22} {:>5} {:>6} {:>7} {:>6} {:>7}",
        "tag", "cases", "aria", "rate", "ai", "rate"
    );
    for (tag, t) in &by_tag {
        println!("{}", t.row(tag));
    }
    println!("{}", all.row("ALL"));
    println!("{}", static_subset.row("STATIC (no js/css/iframe/focus)"));

    let rate = |n, of| Tally::rate(n, of);
    assert!(
        rate(static_subset.aria, static_subset.cases) >= FLOOR_STATIC_ARIA,
        "static aria rate fell below the floor"
    );
    assert!(
        rate(static_subset.ai, static_subset.cases) >= FLOOR_STATIC_AI,
        "static ai rate fell below the floor"
    );
    assert!(
        rate(all.aria, all.cases) >= FLOOR_ALL_ARIA,
        "overall aria rate fell below the floor"
    );
    assert!(
        rate(all.ai, all.cases) >= FLOOR_ALL_AI,
        "overall ai rate fell below the floor"
    );
}
