//! Every view stays linear on page shapes that once made views quadratic
//! (`webfold_corpus::shapes`: striped rows, classes cycling through seven
//! names, wide flat lists, deep nesting, product grids, real pages run
//! together).
//!
//! Each shape is built at `n` and `4n` rows; a view's growth in time is
//! compared with the same pages' parse growth, so a loaded or slow machine
//! slows both alike and the ratio stays. Times are the best of a few
//! interleaved runs. Linear views grow about as the parse does; a quadratic
//! one grows four times as fast again.
//!
//! Why four times the rows and not two: a linear view's time does not grow
//! exactly linearly. Once its working set leaves the CPU's caches it grows
//! up to a third faster than its work (an outline on real pages measured
//! ×2.6 in time against ×2.0 in instructions), and on a small or busy
//! machine that alone crossed a limit set at doubling. That excess is
//! bounded (it stops growing once the work is out of cache), while a
//! quadratic view's doubles with every doubling of the rows, so at four
//! times the rows the limit sits far from both. (Memory is held to the same shapes in
//! `memory.rs`; `webfold-bench scaling` reports the growth at doubling.)

use std::time::{Duration, Instant};

use webfold_core::Page;
use webfold_core::view::{Call, VIEWS};
use webfold_corpus::shapes::{SHAPES, Shape, default_call, run};

/// How many times the rows the large page has.
const FACTOR: usize = 4;
/// How much faster than the parse a view's time may grow: ×8 against the
/// parse's ×4 leaves room for caches, noise and n log n (×1.0–1.4 measured),
/// while a quadratic view grows ×16 (2 → 4 here).
const MAX_GROWTH: f64 = 8.0 / 4.0;
const RUNS: usize = 3;

fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// Best parse and view times of one page.
#[derive(Clone, Copy)]
struct Best {
    parse: Duration,
    view: Duration,
}

impl Best {
    fn new() -> Self {
        Best {
            parse: Duration::MAX,
            view: Duration::MAX,
        }
    }

    /// One more run: `html` parsed again, and `call` on the page kept.
    fn run(&mut self, html: &str, page: &Page, call: &Call) {
        self.parse = self.parse.min(time(|| drop(Page::parse(html))));
        self.view = self.view.min(time(|| run(call, page)));
    }
}

/// Growth of the view's time relative to the parse's when `shape`'s rows
/// grow `FACTOR` times: 1.0 is linear.
fn relative_growth(
    shape: &Shape,
    [small, large]: [&(String, Page); 2],
    call: &Call,
) -> (f64, String) {
    let (mut at_n, mut at_large) = (Best::new(), Best::new());
    // Interleaved, so a slow spell of the machine touches both sizes.
    for _ in 0..RUNS {
        at_n.run(&small.0, &small.1, call);
        at_large.run(&large.0, &large.1, call);
    }
    let parse_growth = at_large.parse.as_secs_f64() / at_n.parse.as_secs_f64();
    let view_growth = at_large.view.as_secs_f64() / at_n.view.as_secs_f64();
    let report = format!(
        "{} → {} rows: ×{view_growth:.2} ({:?} → {:?}) while the parse grew ×{parse_growth:.2}",
        shape.rows,
        FACTOR * shape.rows,
        at_n.view,
        at_large.view
    );
    (view_growth / parse_growth, report)
}

/// A time is a noisy witness: a case fails only when every one of a few
/// measurements says it grew too fast. A quadratic view fails them all.
const ATTEMPTS: usize = 3;

#[test]
fn views_grow_linearly_with_the_rows() {
    let mut failures = Vec::new();
    for shape in SHAPES {
        let [small, large] = [shape.rows, FACTOR * shape.rows].map(|rows| {
            let html = (shape.page)(rows);
            let page = Page::parse(&html);
            (html, page)
        });
        for view in VIEWS {
            let name = view.name().as_str();
            let call = default_call(*view);
            let mut reports = Vec::new();
            for _ in 0..ATTEMPTS {
                let (relative, report) = relative_growth(shape, [&small, &large], &call);
                eprintln!("{name} on {}: {report}", shape.name);
                reports.push(report);
                if relative <= MAX_GROWTH {
                    break;
                }
            }
            if reports.len() == ATTEMPTS {
                failures.push(format!(
                    "{name} on {}:\n  {}",
                    shape.name,
                    reports.join("\n  ")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "grew faster than the page:\n{}",
        failures.join("\n")
    );
}
