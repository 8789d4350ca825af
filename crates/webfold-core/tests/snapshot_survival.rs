//! Target survival: does the element a task needs keep its ref under the budget?
//!
//! `tests/data/snapshot_targets.jsonl` labels 60 elements on shared-corpus pages
//! whose full AI snapshot is over 8,000 tokens: 12 each of search boxes,
//! pagination links, comment boxes, footer links (imprint, privacy, contact)
//! and links far down the page (tags, categories, related). They were picked
//! by a fixed rule (first pages in manifest order with such an element), not
//! by whether they survive. For each, we check whether the target's ref
//! appears in the default view at 4K and 8K tokens, against the naive
//! baseline: the full AI snapshot cut after as many whole lines as fit.

use webfold_core::Page;
use webfold_core::aria::Mode;
use webfold_core::snapshot::{self, Scope, SnapshotOptions};
use webfold_core::tokens;

#[derive(serde::Deserialize)]
struct Target {
    page: String,
    kind: String,
    task: String,
    selector: String,
}

fn targets() -> Vec<Target> {
    include_str!("data/snapshot_targets.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("target line"))
        .collect()
}

/// The first lines of `full` that fit in `budget` tokens.
fn naive_cut(full: &str, budget: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for line in full.lines() {
        let cost = tokens::count_default(&format!("{line}\n"));
        if used + cost > budget {
            break;
        }
        used += cost;
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[test]
fn targets_survive_the_budget() {
    let pages = webfold_corpus::pages();
    let budgets = [4000usize, 8000];
    // (kind, budget) -> (ours, naive, total)
    let mut table: std::collections::BTreeMap<(String, usize), (usize, usize, usize)> =
        Default::default();
    let mut lost = Vec::new();
    for t in targets() {
        assert!(!t.task.is_empty());
        let p = pages
            .iter()
            .find(|p| p.id == t.page)
            .unwrap_or_else(|| panic!("{} is not in the corpus", t.page));
        let page = Page::parse(&p.html());
        let url = p.url.clone().unwrap_or_default();
        let target = page
            .query(&t.selector)
            .unwrap_or_else(|e| panic!("{}: {e}", t.page));
        let (prep, _) = snapshot::prepare(&page, Mode::Ai, &url, None).unwrap();
        let line = (0..prep.tree.len())
            .find(|&i| prep.nodes[i] == Some(target))
            .unwrap_or_else(|| panic!("{} {}: no snapshot line", t.page, t.selector));
        let aria_ref = prep.tree.lines[line]
            .aria_ref
            .clone()
            .unwrap_or_else(|| panic!("{}: target has no ref", t.page));
        let needle = format!("[ref={aria_ref}]");
        let full = prep.tree.render();
        for &b in &budgets {
            let opts = SnapshotOptions {
                max_tokens: b,
                ..SnapshotOptions::default()
            };
            let view = snapshot::snapshot(
                &page,
                &url,
                &Scope::Page,
                &opts,
                None,
                webfold_core::contract::Ctx::default(),
            )
            .unwrap();
            assert!(view.tokens <= b);
            let ours = view.text.contains(&needle);
            let naive = naive_cut(&full, b).contains(&needle);
            let e = table.entry((t.kind.clone(), b)).or_default();
            e.0 += ours as usize;
            e.1 += naive as usize;
            e.2 += 1;
            if !ours {
                lost.push(format!(
                    "{b}: {} {} {} ({})",
                    t.kind,
                    t.page,
                    t.selector,
                    view.text.lines().next().unwrap_or("")
                ));
            }
        }
    }
    println!(
        "{:<12} {:>6} {:>10} {:>10}",
        "kind", "budget", "ours", "naive cut"
    );
    let mut totals = [(0, 0, 0); 2];
    for ((kind, b), (ours, naive, n)) in &table {
        println!(
            "{kind:<12} {b:>6} {:>10} {:>10}",
            format!("{ours}/{n}"),
            format!("{naive}/{n}")
        );
        let k = budgets.iter().position(|x| x == b).unwrap_or(0);
        totals[k].0 += ours;
        totals[k].1 += naive;
        totals[k].2 += n;
    }
    for (k, b) in budgets.iter().enumerate() {
        let (o, nv, n) = totals[k];
        println!(
            "{:<12} {b:>6} {:>9.0}% {:>9.0}%",
            "all",
            100.0 * o as f64 / n as f64,
            100.0 * nv as f64 / n as f64
        );
    }
    for l in &lost {
        println!("lost {l}");
    }
    // Floors from the last honest measurement (95% at 8K, 88% at 4K, since
    // the compact view; 93% and 72% before it); the goal is 90% at 8K.
    let rate = |k: usize| totals[k].0 as f64 / totals[k].2 as f64;
    assert!(
        rate(1) >= 0.93,
        "8K survival {:.0}% is under 93%",
        100.0 * rate(1)
    );
    assert!(
        rate(0) >= 0.85,
        "4K survival {:.0}% is under 85%",
        100.0 * rate(0)
    );
    for (k, t) in totals.iter().enumerate() {
        assert!(
            t.0 >= t.1,
            "budget {}: the naive cut keeps more targets",
            budgets[k]
        );
    }
}
