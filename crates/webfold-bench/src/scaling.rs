//! How every view grows with the page: each generated shape
//! (`webfold_corpus::shapes`) at `n` and `2n` rows, the parse and each view
//! of the registry timed (best of a few interleaved runs), and the peak heap
//! of parse + view beside the page's size.
//!
//! Run: `cargo run --release -p webfold-bench -- scaling` (`--scale K`
//! multiplies the test's rows, default 5: 15,000 → 30,000 table rows, real
//! pages run together 2 → 4 MB; `--scale 40 --shape real` takes them to
//! 32 MB; `--shape TEXT` runs the shapes whose name holds TEXT; `--json` for
//! the figures alone).

use std::time::{Duration, Instant};

use serde_json::json;
use webfold_core::Page;
use webfold_core::view::{Call, VIEWS};
use webfold_corpus::peak::{self, peak_of};
use webfold_corpus::shapes::{SHAPES, Shape, default_call, run};

/// Runs of each size, the two sizes taken in turn: a machine's passing
/// load then weighs on both alike, and the best of each is kept.
const RUNS: usize = 5;

struct Size {
    bytes: usize,
    parse: Duration,
    view: Duration,
    peak: usize,
}

fn measure(htmls: [&str; 2], call: &Call) -> [Size; 2] {
    let pages = htmls.map(Page::parse);
    let mut best = [(Duration::MAX, Duration::MAX); 2];
    for _ in 0..RUNS {
        for (i, html) in htmls.iter().enumerate() {
            let t = Instant::now();
            drop(Page::parse(html));
            best[i].0 = best[i].0.min(t.elapsed());
            let t = Instant::now();
            run(call, &pages[i]);
            best[i].1 = best[i].1.min(t.elapsed());
        }
    }
    drop(pages);
    [0, 1].map(|i| {
        let (peak, ()) = peak_of(|| run(call, &Page::parse(htmls[i])));
        Size {
            bytes: htmls[i].len(),
            parse: best[i].0,
            view: best[i].1,
            peak,
        }
    })
}

pub fn main(args: &[String]) -> anyhow::Result<()> {
    let scale = flag(args, "--scale").unwrap_or(5);
    let as_json = args.iter().any(|a| a == "--json");
    let only = args
        .iter()
        .position(|a| a == "--shape")
        .and_then(|i| args.get(i + 1));
    let mut rows = Vec::new();
    for shape in SHAPES {
        if only.is_some_and(|o| !shape.name.contains(o.as_str())) {
            continue;
        }
        let htmls = [1, 2].map(|k| (shape.page)(k * scale * shape.rows));
        if !as_json {
            print_parse(shape, &htmls[1]);
        }
        for view in VIEWS {
            let call = default_call(*view);
            let [small, large] = measure([&htmls[0], &htmls[1]], &call);
            let row = row(shape, view.name().as_str(), scale, &small, &large);
            if !as_json {
                print_row(&row);
            }
            rows.push(row);
        }
    }
    if as_json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    }
    Ok(())
}

fn row(shape: &Shape, view: &str, scale: usize, small: &Size, large: &Size) -> serde_json::Value {
    let secs = |d: Duration| d.as_secs_f64();
    json!({
        "shape": shape.name,
        "view": view,
        "rows": scale * shape.rows,
        "bytes": [small.bytes, large.bytes],
        "parse_ms": [secs(small.parse) * 1e3, secs(large.parse) * 1e3],
        "view_ms": [secs(small.view) * 1e3, secs(large.view) * 1e3],
        "view_growth": secs(large.view) / secs(small.view).max(1e-9),
        "parse_growth": secs(large.parse) / secs(small.parse).max(1e-9),
        "peak_mb": large.peak as f64 / 1e6,
        "peak_per_page_byte": large.peak as f64 / large.bytes as f64,
    })
}

fn print_row(r: &serde_json::Value) {
    let f = |k: &str| r[k].as_f64().unwrap_or(0.0);
    let ms = |k: &str, i: usize| r[k][i].as_f64().unwrap_or(0.0);
    println!(
        "{:<38} {:<9} {:>7} rows  {:>6.1} MB  view {:>8.1} → {:>8.1} ms ×{:.2} (parse ×{:.2})  peak {:>7.1} MB = {:>5.1}× page",
        r["shape"].as_str().unwrap_or(""),
        r["view"].as_str().unwrap_or(""),
        r["rows"],
        r["bytes"][1].as_f64().unwrap_or(0.0) / 1e6,
        ms("view_ms", 0),
        ms("view_ms", 1),
        f("view_growth"),
        f("parse_growth"),
        f("peak_mb"),
        f("peak_per_page_byte"),
    );
}

/// The parse's own peak, and what the parsed page keeps.
fn print_parse(shape: &Shape, html: &str) {
    let before = peak::live();
    let (peak, page) = peak_of(|| Page::parse(html));
    let kept = peak::live() - before;
    let mb = |b: usize| b as f64 / 1e6;
    println!(
        "{:<38} parse: {} nodes, peak {:.1} MB = {:.1}× page, kept {:.1} MB = {:.1}×",
        shape.name,
        page.len(),
        mb(peak),
        peak as f64 / html.len() as f64,
        mb(kept),
        kept as f64 / html.len() as f64
    );
}

fn flag(args: &[String], name: &str) -> Option<usize> {
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1)?.parse().ok()
}
