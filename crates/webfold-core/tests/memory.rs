//! Every view's memory grows with the page, not faster, and stays within a
//! fixed multiple of it, on the generated page shapes
//! (`webfold_corpus::shapes`); a page's own estimate of its heap
//! (`Page::heap_bytes`) is near what it holds. Heap bytes are counted by
//! the allocator, so the figures are exact and the same on every run: a test of its own
//! binary, with one test in it, so nothing else allocates meanwhile.

use webfold_core::Page;
use webfold_core::view::VIEWS;
use webfold_corpus::peak::{PeakAlloc, live, peak_of};
use webfold_corpus::shapes::{SHAPES, default_call, run};

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

/// The most a view's peak may grow beside the page's bytes when the rows
/// double: 1.0 is linear.
const MAX_GROWTH: f64 = 1.1;

/// The most parse + view may hold at once, per byte of the page. Real
/// pages run together take 2–4×; these shapes are one node per 8–20 bytes,
/// and every node costs its place in the page (about 9× on the wide list)
/// and in the view's working tables: the snapshot (and `find`, which reads
/// it) of a wide flat list takes 19.9× at this size and of a striped table
/// 19.1×, the most of any.
const MAX_PER_PAGE_BYTE: f64 = 20.0;

/// How far a page's own estimate of its heap (what the Node package tells
/// the garbage collector) may stray from what the allocator counts.
const HEAP_ESTIMATE_WITHIN: f64 = 1.25;

#[test]
fn views_hold_memory_linear_in_the_page() {
    let mut failures = Vec::new();
    for shape in SHAPES {
        let htmls = [shape.rows, 2 * shape.rows].map(|rows| (shape.page)(rows));
        let before = live();
        let page = Page::parse(&htmls[1]);
        let (held, estimate) = (live() - before, page.heap_bytes());
        let off = held.max(estimate) as f64 / held.min(estimate).max(1) as f64;
        eprintln!(
            "a page of {}: holds {held} bytes, says {estimate}",
            shape.name
        );
        if off > HEAP_ESTIMATE_WITHIN {
            failures.push(format!(
                "a page of {} holds {held} bytes but says {estimate}",
                shape.name
            ));
        }
        drop(page);
        for view in VIEWS {
            let name = view.name().as_str();
            let call = default_call(*view);
            // Once first, so what is built once per process (vocabularies,
            // tables) is not counted as the page's.
            run(&call, &Page::parse(&htmls[0]));
            let [small, large] =
                [&htmls[0], &htmls[1]].map(|html| peak_of(|| run(&call, &Page::parse(html))).0);
            let growth =
                (large as f64 / small as f64) / (htmls[1].len() as f64 / htmls[0].len() as f64);
            let per_byte = large as f64 / htmls[1].len() as f64;
            eprintln!(
                "{name} on {}: {:.1} → {:.1} MB (×{growth:.2} the page's growth), {per_byte:.1}× the page",
                shape.name,
                small as f64 / 1e6,
                large as f64 / 1e6
            );
            if growth > MAX_GROWTH || per_byte > MAX_PER_PAGE_BYTE {
                failures.push(format!(
                    "{name} on {}: ×{growth:.2} the page's growth when the rows doubled, {per_byte:.1}× the page",
                    shape.name
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
