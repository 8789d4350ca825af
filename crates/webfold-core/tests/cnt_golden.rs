//! Golden CNT views of three corpus pages (one per set) at 1,500 tokens.
//! `UPDATE_GOLDEN=1 cargo test -p webfold-core --test cnt_golden` rewrites
//! the expected files; review the diff before keeping it.

use std::path::PathBuf;

use webfold_core::Page;
use webfold_core::cnt::{Cnt, ViewOptions};

const PAGES: [&str; 3] = [
    "readability/001",
    "aeb/87438a0dacbeb979",
    "trafilatura/neos.eu.wir",
];

fn golden_path(id: &str) -> PathBuf {
    let name = format!("cnt_{}.txt", id.replace('/', "_"));
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

#[test]
fn cnt_views_match_the_golden_files() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let corpus = webfold_corpus::pages();
    let mut failures = Vec::new();
    for id in PAGES {
        let cp = corpus
            .iter()
            .find(|p| p.id == id)
            .unwrap_or_else(|| panic!("{id} is in the corpus"));
        let cnt = Cnt::build(&Page::parse(&cp.html()));
        let view = cnt
            .view(
                &ViewOptions {
                    max_tokens: 1500,
                    ..Default::default()
                },
                webfold_core::contract::Ctx::default(),
            )
            .unwrap();
        assert!(view.tokens <= 1500);
        let path = golden_path(id);
        if update {
            std::fs::write(&path, &view.text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; run with UPDATE_GOLDEN=1 to create it",
                path.display()
            )
        });
        if expected != view.text {
            failures.push(format!("{id}: differs from {}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{failures:#?}\nrun with UPDATE_GOLDEN=1 and review the diff"
    );
}
