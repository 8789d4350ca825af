//! Golden files: the whole-page Markdown of three corpus pages (code blocks and
//! quotes; a data table; a news article), links resolved against each page's URL.
//! `UPDATE_GOLDEN=1 cargo test -p webfold-core --test markdown_golden` rewrites
//! them; review the diff before committing.

use std::path::PathBuf;

use url::Url;
use webfold_core::markdown::{MarkdownOptions, to_markdown};
use webfold_core::{NodeId, Page};

const PAGES: &[(&str, &str)] = &[
    ("readability/001", "markdown_readability_001.md"),
    (
        "readability/keep-tabular-data",
        "markdown_keep_tabular_data.md",
    ),
    ("aeb/c00962aabe7bdd1f", "markdown_aeb_thespacereview.md"),
];

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

#[test]
fn corpus_pages_match_golden_files() {
    let pages = webfold_corpus::pages();
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut mismatches = Vec::new();
    for (id, file) in PAGES {
        let page = pages
            .iter()
            .find(|p| p.id == *id)
            .unwrap_or_else(|| panic!("corpus page {id} is missing"));
        let opts = MarkdownOptions {
            base_url: page.url.as_deref().and_then(|u| Url::parse(u).ok()),
            ..MarkdownOptions::default()
        };
        let got = to_markdown(&Page::parse(&page.html()), NodeId::DOCUMENT, &opts) + "\n";
        let path = golden_dir().join(file);
        if update {
            std::fs::create_dir_all(golden_dir()).unwrap();
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; run with UPDATE_GOLDEN=1 to create it",
                path.display()
            )
        });
        if got != want {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .map_or(0, |i| i + 1);
            mismatches.push(format!("{id}: differs from {file} at line {line}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
