//! The main-content view on small pages written for these tests: golden
//! Markdown (header + body) and what must and must not be in it.
//! `UPDATE_GOLDEN=1` rewrites the expected files; review the diff.

use std::path::PathBuf;

use webfold_core::Page;
use webfold_core::extract::{ExtractOptions, Fallback, extract};
use webfold_core::markdown::MarkdownOptions;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/extract")
}

fn render(name: &str) -> (String, Option<Fallback>) {
    let html = std::fs::read_to_string(golden_dir().join(format!("{name}.html"))).unwrap();
    let page = Page::parse(&html);
    let ex = extract(&page, &ExtractOptions::default());
    let opts = MarkdownOptions {
        base_url: Some(url::Url::parse("https://tech.example.com/news/2031/rust-9.html").unwrap()),
        ..Default::default()
    };
    (ex.to_markdown(&page, &opts), ex.fallback)
}

fn check_golden(name: &str, actual: &str) {
    let path = golden_dir().join(format!("{name}.md"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
            path.display()
        )
    });
    assert_eq!(
        actual,
        expected,
        "{name}: Markdown differs from {}",
        path.display()
    );
}

#[test]
fn article_keeps_the_story_its_code_and_table_and_drops_furniture() {
    let (md, fallback) = render("article");
    check_golden("article", &md);
    assert_eq!(fallback, None);
    assert!(
        md.starts_with(
            "# Rust 9.0 ships a faster borrow checker\n\nAda Lovelace, Grace Hopper · 2031-04-02\n"
        ),
        "{md}"
    );
    for kept in [
        "three times faster on large crates",
        "```rust\nfn main() {",
        "| servo | 412 s | 139 s |",
        "[release notes](https://tech.example.com/news/notes/9.0.html)",
        "(https://tech.example.com/img/chart.png)",
        "## What changes for users",
    ] {
        assert!(md.contains(kept), "missing {kept:?} in\n{md}");
    }
    for dropped in [
        "cookies",
        "Reviews",
        "Share on Twitter",
        "Related stories",
        "12 comments",
        "Newsletter",
        "All rights reserved",
        "Photo: Example Tech",
        "base64",
        "placeholder.gif",
    ] {
        assert!(!md.contains(dropped), "{dropped:?} leaked into\n{md}");
    }
    // The headline is in the header once, not again in the body.
    assert_eq!(md.matches("faster borrow checker").count(), 1, "{md}");
}

#[test]
fn app_shell_falls_back_to_the_whole_page_and_says_so() {
    let (md, fallback) = render("app-shell");
    check_golden("app-shell", &md);
    assert_eq!(fallback, Some(Fallback::NoArticle));
    assert!(md.contains("> Note: no main content found"), "{md}");
    assert!(
        md.contains("[Log in](https://tech.example.com/login)"),
        "{md}"
    );
    assert!(!md.contains("main.4f2a.js"), "{md}");
}

#[test]
fn listing_page_falls_back_rather_than_picking_one_card() {
    let (md, fallback) = render("listing");
    check_golden("listing", &md);
    assert!(fallback.is_some(), "{md}");
    for title in ["Rust 9.0", "Go 3", "Zig reaches", "Python removes"] {
        assert!(md.contains(title), "{title} missing from\n{md}");
    }
}
