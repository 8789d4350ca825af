//! `webfold-bench extract`: main-content extraction scored with each
//! benchmark's own metric (the scorer test's floors guard the same figures),
//! and its speed.

use std::io::IsTerminal;
use std::time::Instant;

use webfold_core::Page;
use webfold_core::extract::{ExtractOptions, extract};
use webfold_core::markdown::MarkdownOptions;
use webfold_corpus::scoring::{SnippetCounts, aggregate, judge, markdown_visible_text};

pub fn main() -> anyhow::Result<()> {
    let pages = webfold_corpus::pages();
    let (mut aeb, mut readability, mut traf) = (Vec::new(), Vec::new(), SnippetCounts::default());
    let (mut bytes, mut secs) = (0usize, 0f64);
    for (i, cp) in pages.iter().enumerate() {
        if i % 50 == 0 && std::io::stderr().is_terminal() {
            eprint!("\r{i}/{}", pages.len());
        }
        let html = cp.html();
        let t = Instant::now();
        let page = Page::parse(&html);
        let ex = extract(&page, &ExtractOptions::default());
        let opts = MarkdownOptions {
            base_url: cp.url.as_deref().and_then(|u| url::Url::parse(u).ok()),
            ..MarkdownOptions::default()
        };
        let md = ex.body_markdown(&page, &opts);
        secs += t.elapsed().as_secs_f64();
        bytes += html.len();
        let judged = judge(cp, &markdown_visible_text(&md));
        match cp.set.as_str() {
            "aeb" => aeb.extend(judged.shingles),
            "readability" => readability.extend(judged.shingles),
            _ => {
                if let Some(s) = judged.snippets {
                    traf.add(s);
                }
            }
        }
    }
    eprintln!();
    let a = aggregate(&aeb);
    let r = aggregate(&readability);
    println!(
        "main-content extraction over {} pages, {:.1} MB",
        pages.len(),
        bytes as f64 / 1e6
    );
    println!(
        "AEB F1 {:.3} (P {:.3} / R {:.3}); peers: trafilatura 0.95, MCP fetch 0.94, dom_smoothie 0.93",
        a.f1, a.precision, a.recall
    );
    println!(
        "Readability F1 {:.3} (P {:.3} / R {:.3})",
        r.f1, r.precision, r.recall
    );
    println!(
        "trafilatura with {:.3} / without {:.3}; peers: trafilatura 0.94 / 0.88",
        traf.with_found as f64 / traf.with_total.max(1) as f64,
        traf.without_absent as f64 / traf.without_total.max(1) as f64
    );
    println!(
        "speed: parse + extract + Markdown {:.1} MB/s (trafilatura ~6 MB/s per core)",
        bytes as f64 / 1e6 / secs
    );
    Ok(())
}
