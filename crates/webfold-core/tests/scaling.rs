//! Views stay linear on page shapes that once made them quadratic: siblings
//! alike but not all the same (striped table rows, classes cycling through
//! seven names), wide flat lists and deep nesting.
//!
//! Each shape is built at `n` and `2n` rows; a view's time when the rows
//! double is compared with the same pages' parse time, so a loaded or slow
//! machine slows both alike and the ratio stays. Times are the best of a
//! few interleaved runs. Linear views grow about as the parse does; a
//! quadratic one grows twice as fast again, far past the limit.

use std::time::{Duration, Instant};

use webfold_core::Page;
use webfold_core::chunk::{ChunkOptions, ChunkTarget, chunk};
use webfold_core::outline::{OutlineOptions, outline};

/// How much faster than the parse a view's time may grow when the rows
/// double: 2.5× against the parse's 2× leaves room for noise and n log n.
const MAX_GROWTH: f64 = 2.5 / 2.0;
const RUNS: usize = 7;

struct Shape {
    name: &'static str,
    rows: usize,
    page: fn(usize) -> String,
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "striped table",
        rows: 8_000,
        page: striped_table,
    },
    Shape {
        name: "classes cycling through seven",
        rows: 8_000,
        page: cycling_classes,
    },
    Shape {
        name: "wide flat list",
        rows: 16_000,
        page: flat_list,
    },
    Shape {
        name: "deep nesting",
        rows: 2_000,
        page: deep_nesting,
    },
];

fn wrap(body: String) -> String {
    format!(
        "<!doctype html><html><head><title>t</title></head><body><main>{body}</main></body></html>"
    )
}

fn striped_table(n: usize) -> String {
    let rows: String = (0..n)
        .map(|i| {
            let class = if i % 2 == 0 { "even" } else { "odd" };
            format!(
                "<tr class=\"{class}\"><td>Row {i}</td><td><a href=\"/r/{i}\">item {i}</a></td><td>{} EUR</td></tr>\n",
                i * 3
            )
        })
        .collect();
    wrap(format!("<table><tbody>{rows}</tbody></table>"))
}

fn cycling_classes(n: usize) -> String {
    let rows: String = (0..n)
        .map(|i| {
            format!(
                "<div class=\"c{}\"><span>Entry {i}</span> <a href=\"/e/{i}\">link {i}</a></div>\n",
                i % 7
            )
        })
        .collect();
    wrap(format!("<div class=\"list\">{rows}</div>"))
}

fn flat_list(n: usize) -> String {
    let rows: String = (0..n)
        .map(|i| format!("<li><a href=\"/x/{i}\">x {i}</a></li>\n"))
        .collect();
    wrap(format!("<ul>{rows}</ul>"))
}

fn deep_nesting(n: usize) -> String {
    let open: String = (0..n)
        .map(|i| format!("<div class=\"d{}\"><span>level {i}</span>", i % 3))
        .collect();
    wrap(format!("{open}{}", "</div>".repeat(n)))
}

type View = fn(&Page);

fn outline_view(page: &Page) {
    outline(
        page,
        &OutlineOptions::default(),
        webfold_core::contract::Ctx::default(),
    )
    .expect("outline");
}

fn chunk_view(page: &Page) {
    let target = ChunkTarget::Selector("main".into());
    chunk(
        page,
        &target,
        &ChunkOptions::default(),
        webfold_core::contract::Ctx::default(),
    )
    .expect("chunk");
}

const VIEWS: &[(&str, View)] = &[("outline", outline_view), ("chunk", chunk_view)];

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

    /// One more run: `html` parsed again, and `view` on the page kept.
    fn run(&mut self, html: &str, page: &Page, view: View) {
        self.parse = self.parse.min(time(|| drop(Page::parse(html))));
        self.view = self.view.min(time(|| view(page)));
    }
}

/// Growth of `view`'s time relative to the parse's when `shape`'s rows
/// double: 1.0 is linear.
fn relative_growth(
    shape: &Shape,
    [small, large]: [&(String, Page); 2],
    view: View,
) -> (f64, String) {
    let (mut at_n, mut at_2n) = (Best::new(), Best::new());
    // Interleaved, so a slow spell of the machine touches both sizes.
    for _ in 0..RUNS {
        at_n.run(&small.0, &small.1, view);
        at_2n.run(&large.0, &large.1, view);
    }
    let parse_growth = at_2n.parse.as_secs_f64() / at_n.parse.as_secs_f64();
    let view_growth = at_2n.view.as_secs_f64() / at_n.view.as_secs_f64();
    let report = format!(
        "{} → {} rows: ×{view_growth:.2} ({:?} → {:?}) while the parse grew ×{parse_growth:.2}",
        shape.rows,
        2 * shape.rows,
        at_n.view,
        at_2n.view
    );
    (view_growth / parse_growth, report)
}

/// A time is a noisy witness: a case fails only when every one of a few
/// measurements says it grew too fast. A quadratic view fails them all.
const ATTEMPTS: usize = 3;

#[test]
fn views_grow_linearly_when_rows_double() {
    let mut failures = Vec::new();
    for shape in SHAPES {
        let [small, large] = [shape.rows, 2 * shape.rows].map(|rows| {
            let html = (shape.page)(rows);
            let page = Page::parse(&html);
            (html, page)
        });
        for &(name, view) in VIEWS {
            let mut reports = Vec::new();
            for _ in 0..ATTEMPTS {
                let (relative, report) = relative_growth(shape, [&small, &large], view);
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
