//! `webfold-bench targets`: how often the element an agent's task needs keeps
//! its handle in the default views at small budgets, and in the views
//! focused on the task's own words, over the corpus's labelled tasks
//! (`corpus/targets`, scored by `webfold_corpus::targets`). The test
//! `webfold-core/tests/target_recall.rs` keeps floors on the same figures.

use std::io::IsTerminal;

use webfold_corpus::targets::{self, TargetView};

const BUDGETS: [usize; 3] = [2000, 4000, 8000];
const FOCUSED_BUDGETS: [usize; 2] = [1000, 2000];

pub fn main(args: &[String]) -> anyhow::Result<()> {
    let json = args.iter().any(|a| a == "--json");
    let runs: [(TargetView, &[usize]); 4] = [
        (TargetView::Snapshot, &BUDGETS),
        (TargetView::Cnt, &BUDGETS),
        (TargetView::FocusedSnapshot, &FOCUSED_BUDGETS),
        (TargetView::FocusedCnt, &FOCUSED_BUDGETS),
    ];
    // The page at hand, on a terminal only: a log or a pipe gets the table.
    let progress = !json && std::io::stderr().is_terminal();
    let started = std::time::Instant::now();
    let recall = targets::recall(&runs, |page| {
        if progress {
            eprint!("\r\x1b[K{page}");
        }
    });
    if json {
        let cells: Vec<serde_json::Value> = runs
            .iter()
            .flat_map(|&(view, budgets)| {
                let recall = &recall;
                budgets.iter().map(move |&b| {
                    serde_json::json!({
                        "view": view.name(),
                        "max_tokens": b,
                        "recall": recall.rate(view, b),
                    })
                })
            })
            .collect();
        println!("{}", serde_json::json!({ "recall": cells }));
        return Ok(());
    }
    if progress {
        eprint!("\r\x1b[K");
    }
    println!("{}", recall.table());
    for &(view, budgets) in &runs {
        for &b in budgets {
            println!(
                "{:<16} {:>5} tokens: {:5.1}%",
                view.name(),
                b,
                100.0 * recall.rate(view, b)
            );
        }
    }
    println!("({:.1} s)", started.elapsed().as_secs_f64());
    Ok(())
}
