//! The snapshot YAML reader (the input, read as UTF-8 with replacement
//! characters) and the views that work on its line tree.
//!
//! Invariants: the reader answers a tree or an error; a tree is well formed
//! (parents before children, subtree ends nested); rendering it and reading
//! that back gives the same tree; diff, dedup, compaction and find answer on
//! any tree, find within its budget, and their trees render and read back.

use std::sync::OnceLock;

use webfold_core::snapshot::compact::{PageUrls, compact};
use webfold_core::snapshot::find::{FindOptions, Query, find_in_tree};
use webfold_core::snapshot::{SnapTree, dedup, diff, parse};
use webfold_core::{Error, tokens};

/// A find query every named line matches.
const ANY_LINE: &str = "/./";

pub fn check(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let Ok(tree) = parse(&text) else { return };
    well_formed(&tree, "parsed");
    round_trips(&tree, "parsed");

    let (d, _) = diff::diff(&tree, &tree);
    well_formed(&d, "diff with itself");
    let (d, _) = diff::diff(&SnapTree::default(), &tree);
    well_formed(&d, "diff from nothing");
    round_trips(&d, "diff from nothing");

    let collapsed = dedup::collapse(&tree, &dedup::nav_pattern(&tree));
    well_formed(&collapsed.tree, "dedup");
    assert_eq!(collapsed.source.len(), collapsed.tree.len());

    let urls = PageUrls::new("https://fuzz.example/a/", Some("../b/"));
    for interactive_only in [false, true] {
        let c = compact(tree.clone(), &urls, interactive_only);
        well_formed(&c.tree, "compact");
        assert_eq!(c.source.len(), c.tree.len());
    }

    let name = tree
        .lines
        .iter()
        .find_map(|l| l.name.as_deref().map(String::from))
        .unwrap_or_else(|| "a".into());
    // The fixed regex is built once: compiling it took a fifth of each run.
    static ANY: OnceLock<Query> = OnceLock::new();
    let any = ANY.get_or_init(|| Query::parse(ANY_LINE).expect("a valid regex"));
    let named = Query::parse(&name);
    for (q, query, budget) in [
        (name.as_str(), named.as_ref(), 30),
        (ANY_LINE, Ok(any), 300),
    ] {
        let Ok(query) = query else { continue };
        let opts = FindOptions {
            query: q.to_string(),
            max_tokens: budget,
            ..Default::default()
        };
        let found = match find_in_tree(
            &tree,
            q,
            query,
            &opts,
            webfold_core::contract::Ctx::default(),
        ) {
            Ok(f) => f,
            Err(Error::BudgetTooSmall { needed, .. }) => {
                assert!(needed > budget, "find {q:?}: needs {needed}, fits {budget}");
                continue;
            }
            Err(e) => panic!("find {q:?}: {e}"),
        };
        assert_eq!(
            tokens::count(&found.text, webfold_core::tokens::Encoding::default()),
            found.tokens
        );
        assert!(
            found.tokens <= budget,
            "find {q:?}: {} tokens",
            found.tokens
        );
    }
}

fn well_formed(tree: &SnapTree, what: &str) {
    for (i, l) in tree.lines.iter().enumerate() {
        assert!(
            i < l.subtree_end() && l.subtree_end() <= tree.len(),
            "{what}: line {i}"
        );
        match l.parent() {
            Some(p) => {
                let parent = &tree.lines[p];
                assert!(p < i && i < parent.subtree_end(), "{what}: line {i}");
                assert!(l.subtree_end() <= parent.subtree_end(), "{what}: line {i}");
                assert_eq!(l.depth(), parent.depth() + 1, "{what}: line {i}");
            }
            None => assert_eq!(l.depth(), 0, "{what}: line {i}"),
        }
    }
}

fn round_trips(tree: &SnapTree, what: &str) {
    let text = tree.render();
    let again = parse(&text).unwrap_or_else(|e| panic!("{what}: rendered tree: {e}\n{text}"));
    assert_eq!(again.lines, tree.lines, "{what}: rendered:\n{text}");
}
