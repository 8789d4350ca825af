//! Target recall: does the element an agent's task needs keep its handle in
//! the default views at small budgets?
//!
//! Over the corpus's labelled tasks (`corpus/targets`: 120 tasks on 51 real
//! pages, each over 8,000 snapshot tokens, targets mostly below the fold:
//! search boxes, sign-in, pagination, footer links, comment fields), a view
//! recalls a task when it prints a ref or node id that resolves to the
//! target element itself (`webfold_corpus::targets`). `--nocapture` prints
//! the table by kind and the misses; the floors sit just under the last
//! measurement. `webfold-bench targets` prints the same table in release.

use webfold_corpus::targets::{self, TargetView};

const BUDGETS: [usize; 3] = [2000, 4000, 8000];
/// Focused on the task's own words, the views are read at small budgets.
const FOCUSED_BUDGETS: [usize; 2] = [1000, 2000];

/// (view, budget, floor). Measured last: the snapshot 90.0%, 93.3% and
/// 95.8% at 2K, 4K and 8K (65.0%, 76.7% and 83.3% before links that say
/// their purpose ranked over other links), the CNT 85.0%, 93.3% and 95.0%
/// (6.7%, 27.5% and 51.7% before it pinned the page's controls). The floors
/// are the goals: a snapshot holds the target 88% of the time at 2K and
/// 93% at 4K, the CNT 80% and 90%. Focused on the task's own words, the
/// snapshot held it 97.5% and 99.2% at 1K and 2K (the goal: 95% at 1K),
/// the CNT 89.2% and 95.0%.
const FLOORS: [(TargetView, usize, f64); 10] = [
    (TargetView::Snapshot, 2000, 0.88),
    (TargetView::Snapshot, 4000, 0.93),
    (TargetView::Snapshot, 8000, 0.95),
    (TargetView::Cnt, 2000, 0.80),
    (TargetView::Cnt, 4000, 0.90),
    (TargetView::Cnt, 8000, 0.94),
    (TargetView::FocusedSnapshot, 1000, 0.95),
    (TargetView::FocusedSnapshot, 2000, 0.97),
    (TargetView::FocusedCnt, 1000, 0.85),
    (TargetView::FocusedCnt, 2000, 0.92),
];

#[test]
fn targets_keep_their_handles_within_the_budget() {
    let runs: [(TargetView, &[usize]); 4] = [
        (TargetView::Snapshot, &BUDGETS),
        (TargetView::Cnt, &BUDGETS),
        (TargetView::FocusedSnapshot, &FOCUSED_BUDGETS),
        (TargetView::FocusedCnt, &FOCUSED_BUDGETS),
    ];
    let recall = targets::recall(&runs, |_| {});
    println!("{}", recall.table());
    for m in &recall.missed {
        println!("missed {m}");
    }
    assert_eq!(recall.over_budget, 0, "a view went over its budget");
    let mut low = Vec::new();
    for (view, budget, floor) in FLOORS {
        let rate = recall.rate(view, budget);
        println!("{} at {budget}: {:.1}%", view.name(), 100.0 * rate);
        if rate < floor {
            low.push(format!(
                "{} at {budget} tokens holds {:.1}% of targets, under {:.1}%",
                view.name(),
                100.0 * rate,
                100.0 * floor
            ));
        }
    }
    assert!(low.is_empty(), "{}", low.join("\n"));
}
