//! Conformance: turndown's own test suite (147 cases from the shared corpus),
//! each converted with turndown's defaults plus the case's options.
//!
//! Expected and actual output are compared after trimming whitespace at both
//! ends. The pass rate is printed; the test fails below `FLOOR` (raised as the
//! converter improves; never lowered to make a change pass).

use webfold_core::markdown::{MarkdownOptions, to_markdown};
use webfold_core::{NodeId, Page};

/// Cases that must pass, out of 147.
const FLOOR: usize = 147;

fn options_for(case: &webfold_corpus::TurndownCase) -> MarkdownOptions {
    let mut opts = MarkdownOptions::turndown();
    for (name, value) in &case.options {
        let value = match value {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        opts.set_turndown_option(name, &value)
            .unwrap_or_else(|e| panic!("case '{}': {e}", case.id));
    }
    opts
}

fn compact(s: &str) -> String {
    let shown: String = s.chars().take(160).collect();
    format!("{shown:?}")
}

#[test]
fn turndown_suite() {
    let cases = webfold_corpus::turndown_cases();
    assert_eq!(cases.len(), 147, "the corpus holds turndown's 147 cases");
    let mut passed = 0;
    let mut failures = Vec::new();
    for case in &cases {
        let page = Page::parse(&case.html);
        let got = to_markdown(&page, NodeId::DOCUMENT, &options_for(case));
        if got.trim() == case.expected_md.trim() {
            passed += 1;
        } else {
            failures.push(format!(
                "  {}\n    want {}\n    got  {}",
                case.id,
                compact(case.expected_md.trim()),
                compact(got.trim())
            ));
        }
    }
    println!("turndown conformance: {passed}/{} cases pass", cases.len());
    for f in &failures {
        println!("{f}");
    }
    assert!(
        passed >= FLOOR,
        "turndown conformance fell to {passed}/{} (floor {FLOOR})",
        cases.len()
    );
}
