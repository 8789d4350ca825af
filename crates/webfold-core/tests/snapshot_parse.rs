//! The snapshot reader: Playwright's own outputs and ours read back byte for
//! byte, and what it reads is the tree the renderer printed.

use webfold_core::Page;
use webfold_core::aria::{self, AriaTree, Mode};
use webfold_core::snapshot::{self, LineKind, SnapTree};

#[test]
fn playwright_outputs_round_trip() {
    let cases = webfold_corpus::aria_cases();
    let mut n = 0;
    for c in &cases {
        for (mode, yaml) in [("aria", &c.aria), ("ai", &c.ai)] {
            let t = snapshot::parse(yaml).unwrap_or_else(|e| panic!("{} {mode}: {e}", c.id));
            assert_eq!(&t.render(), yaml, "{} {mode}", c.id);
            if mode == "ai" {
                // Every ref Playwright printed is read.
                assert_eq!(
                    t.lines.iter().filter(|l| l.aria_ref.is_some()).count(),
                    yaml.matches("[ref=").count(),
                    "{}",
                    c.id
                );
            }
            n += 1;
        }
    }
    println!("{n} Playwright snapshots read back byte-identical");
    assert!(n >= 2 * 600);
}

/// Walk the arena and the parsed lines together: same roles, names, refs, texts.
fn assert_same_tree(id: &str, tree: &AriaTree, parsed: &SnapTree) {
    let lines: Vec<_> = parsed
        .lines
        .iter()
        .filter(|l| l.kind != LineKind::Prop)
        .collect();
    let mut k = 0;
    let mut skip = 0;
    for node in tree.nodes.iter().skip(1) {
        if skip > 0 {
            // A text child printed inline on its parent's line.
            skip -= 1;
            continue;
        }
        let l = lines
            .get(k)
            .unwrap_or_else(|| panic!("{id}: fewer lines than nodes"));
        k += 1;
        if let Some(text) = node.text() {
            assert_eq!(l.kind, LineKind::Text, "{id}");
            assert_eq!(l.value(), Some(text), "{id}");
            continue;
        }
        assert_eq!(l.role(), node.role, "{id}");
        assert_eq!(l.aria_ref.as_deref(), node.ref_.as_deref(), "{id}");
        let printed = !node.name.is_empty() && node.name.encode_utf16().count() <= 900;
        assert_eq!(l.name.as_deref(), printed.then_some(&*node.name), "{id}");
        if l.raw_value().is_some() {
            assert_eq!(
                node.children.len(),
                1,
                "{id}: an inline value is the only child"
            );
            assert_eq!(
                tree.nodes[node.children[0] as usize].text(),
                l.value(),
                "{id}"
            );
            skip = 1;
        }
    }
    assert_eq!(k, lines.len(), "{id}: more lines than nodes");
}

#[test]
fn our_snapshots_read_back_as_the_tree_we_built() {
    let mut pages = 0;
    for p in webfold_corpus::sample(7) {
        let page = Page::parse(&p.html());
        let Some(body) = page.body() else { continue };
        for mode in [Mode::Ai, Mode::Aria] {
            let mut tree = aria::build(&page, body, mode);
            if mode == Mode::Ai {
                aria::assign_refs(&mut tree);
            }
            let yaml = aria::render_yaml(&tree);
            let parsed = snapshot::parse(&yaml).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            assert_eq!(parsed.render(), yaml, "{}", p.id);
            assert_same_tree(&p.id, &tree, &parsed);
        }
        // And `prepare` ties every element line to its DOM element.
        let (prep, _) = snapshot::prepare(&page, Mode::Ai, "", None).unwrap();
        for (i, l) in prep.tree.lines.iter().enumerate() {
            if l.kind == LineKind::Element {
                assert!(
                    prep.nodes[i].is_some(),
                    "{}: line {i} has no DOM node",
                    p.id
                );
            }
        }
        // `resolve_ref` agrees, checked on a few refs (it builds the tree each time).
        let with_refs: Vec<usize> = (0..prep.tree.len())
            .filter(|&i| prep.tree.lines[i].aria_ref.is_some())
            .collect();
        for &i in with_refs.iter().step_by((with_refs.len() / 3).max(1)) {
            let r = prep.tree.lines[i].aria_ref.as_deref().unwrap();
            assert_eq!(
                snapshot::resolve_ref(&page, r, "", None).ok(),
                prep.nodes[i],
                "{}",
                p.id
            );
        }
        pages += 1;
    }
    println!("{pages} corpus pages: render → parse → same tree, both modes");
}

#[test]
fn reader_errors_name_the_line() {
    let err = snapshot::parse("- button \"ok\"\n  oops")
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 2"), "{err}");
    assert!(snapshot::parse("- 'unterminated").is_err());
    assert!(snapshot::parse("   - odd indent").is_err());
    let t = snapshot::parse("# header\n- a\n# footer").unwrap();
    assert_eq!((t.header.len(), t.len(), t.footer.len()), (1, 1, 1));
}
