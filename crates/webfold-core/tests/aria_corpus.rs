//! Snapshots of real pages from the shared corpus: every ref printed resolves
//! to an element, refs count up in document order, the YAML is well formed,
//! and the time per page is printed (run with `--release` for real figures).

use std::time::{Duration, Instant};

use webfold_core::Page;
use webfold_core::aria::{Mode, assign_refs, build, render_yaml};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Well-formed snapshot YAML: each line is an indented `- ` item, one level at most deeper than the line before.
fn check_lines(id: &str, yaml: &str) {
    let mut prev_depth = 0usize;
    for (i, line) in yaml.lines().enumerate() {
        let spaces = line.len() - line.trim_start_matches(' ').len();
        assert!(
            spaces % 2 == 0 && line[spaces..].starts_with("- "),
            "{id}: line {i} is not an item: {line:?}"
        );
        let depth = spaces / 2;
        assert!(
            i == 0 && depth == 0 || depth <= prev_depth + 1,
            "{id}: line {i} jumps in depth: {line:?}"
        );
        prev_depth = depth;
    }
}

fn printed_refs(yaml: &str) -> Vec<u64> {
    yaml.match_indices("[ref=e")
        .filter_map(|(i, _)| {
            let rest = &yaml[i + 6..];
            rest[..rest.find(']')?].parse().ok()
        })
        .collect()
}

#[test]
fn corpus_snapshots_are_consistent() {
    let pages = webfold_corpus::sample(3);
    assert!(
        pages.len() > 100,
        "corpus sample too small: {}",
        pages.len()
    );
    let mut times = [Vec::new(), Vec::new()];
    let mut lines = [0usize, 0usize];
    for p in &pages {
        let page = Page::parse(&p.html());
        let Some(body) = page.body() else { continue };
        for (m, mode) in [Mode::Aria, Mode::Ai].into_iter().enumerate() {
            let start = Instant::now();
            let mut tree = build(&page, body, mode);
            if mode == Mode::Ai {
                assign_refs(&mut tree);
            }
            let yaml = render_yaml(&tree);
            times[m].push(start.elapsed());
            lines[m] += yaml.lines().count();
            check_lines(&p.id, &yaml);
            let refs = printed_refs(&yaml);
            if mode == Mode::Aria {
                assert!(refs.is_empty(), "{}: aria mode prints no refs", p.id);
                continue;
            }
            assert!(
                refs.windows(2).all(|w| w[0] < w[1]),
                "{}: refs count up in document order",
                p.id
            );
            for r in refs {
                let r = format!("e{r}");
                let node = tree
                    .nodes
                    .iter()
                    .find(|n| n.ref_.as_deref() == Some(r.as_str()))
                    .and_then(|n| n.node)
                    .unwrap_or_else(|| panic!("{}: {r} resolves", p.id));
                assert!(page.is_element(node), "{}: {r} is an element", p.id);
            }
            for n in &tree.nodes {
                if let Some(el) = n.node {
                    assert!(
                        page.is_element(el),
                        "{}: node behind {} is an element",
                        p.id,
                        n.role
                    );
                }
            }
        }
    }
    for (m, name) in ["aria", "ai"].iter().enumerate() {
        let t = &mut times[m];
        t.sort();
        let total: Duration = t.iter().sum();
        println!(
            "{name:>4}: {} pages, {} lines, p50 {:?}, p99 {:?}, max {:?}, total {:?}",
            t.len(),
            lines[m],
            percentile(t, 0.5),
            percentile(t, 0.99),
            t[t.len() - 1],
            total
        );
    }
}
