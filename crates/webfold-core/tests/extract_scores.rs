//! Main-content extraction scored on the corpus with each benchmark's own
//! metric, against floors from our measurements (raise them as extraction
//! improves; never lower them to make a change pass).
//!
//! Run in release for honest speed figures:
//! `cargo test --release -p webfold-core --test extract_scores -- --nocapture`.
//! `EXTRACT_REPORT=path` writes one line per page (set, id, scores) for study.

use std::time::{Duration, Instant};

use webfold_core::Page;
use webfold_core::extract::{ExtractOptions, Extraction, extract};
use webfold_core::markdown::MarkdownOptions;
use webfold_corpus::CorpusPage;
use webfold_corpus::scoring::{
    Judged as Scores, SnippetCounts, aggregate, judge, markdown_visible_text,
};

/// Floors just under the scores this test printed (rendered Markdown).
const AEB_F1_FLOOR: f64 = 0.972;
const READABILITY_F1_FLOOR: f64 = 0.954;
const TRAF_WITH_FLOOR: f64 = 0.951;
const TRAF_WITHOUT_FLOOR: f64 = 0.905;

struct Scored {
    id: String,
    set: String,
    bytes: usize,
    /// Parse + extract.
    cpu: Duration,
    /// Parse + extract + Markdown.
    cpu_md: Duration,
    /// The Markdown as a reader sees it rendered.
    markdown: Scores,
    /// The Markdown source, link destinations and all.
    raw_markdown: Scores,
    fallback: bool,
    /// Broken promises: an empty answer for a page with visible text, more
    /// text kept than the page shows, a fallback not rooted at the body.
    violations: Vec<String>,
}

/// CPU time of this thread (Linux), so speed figures do not depend on what
/// else the machine runs; wall time where that is not available.
struct Clock(Instant);

impl Clock {
    fn thread_cpu() -> Option<Duration> {
        let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        Some(Duration::from_nanos(
            stat.split_whitespace().next()?.parse().ok()?,
        ))
    }

    fn start() -> (Clock, Option<Duration>) {
        (Clock(Instant::now()), Self::thread_cpu())
    }
}

fn elapsed((clock, cpu): &(Clock, Option<Duration>)) -> Duration {
    match (cpu, Clock::thread_cpu()) {
        (Some(a), Some(b)) => b.saturating_sub(*a),
        _ => clock.0.elapsed(),
    }
}

fn score_page(cp: &CorpusPage) -> Scored {
    let html = cp.html();
    let t0 = Clock::start();
    let page = Page::parse(&html);
    let ex: Extraction = extract(&page, &ExtractOptions::default());
    let cpu = elapsed(&t0);
    let opts = MarkdownOptions {
        base_url: cp.url.as_deref().and_then(|u| url::Url::parse(u).ok()),
        ..Default::default()
    };
    let t1 = Clock::start();
    // The body only: the benchmarks' truths leave the title and byline out.
    let md = ex.body_markdown(&page, &opts);
    let cpu_md = cpu + elapsed(&t1);
    let mut violations = Vec::new();
    if ex.visible_chars > 0 && md.trim().is_empty() {
        violations.push("empty Markdown for a page with visible text".to_string());
    }
    if ex.chars > ex.visible_chars {
        violations.push(format!(
            "kept {} chars of {} visible",
            ex.chars, ex.visible_chars
        ));
    }
    if ex.fallback.is_some() && Some(ex.root) != page.body() && page.body().is_some() {
        violations.push("fallback not rooted at <body>".to_string());
    }
    Scored {
        violations,
        id: cp.id.clone(),
        set: cp.set.clone(),
        bytes: html.len(),
        cpu,
        cpu_md,
        markdown: judge(cp, &markdown_visible_text(&md)),
        raw_markdown: judge(cp, &md),
        fallback: ex.fallback.is_some(),
    }
}

fn score_all(pages: &[CorpusPage]) -> Vec<Scored> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(2);
    let chunks: Vec<&[CorpusPage]> = pages.chunks(pages.len().div_ceil(threads)).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|c| s.spawn(move || c.iter().map(score_page).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

#[test]
fn extraction_scores_on_the_corpus() {
    let pages = webfold_corpus::pages();
    let scored = score_all(&pages);
    if let Some(path) = std::env::var_os("EXTRACT_REPORT") {
        let mut lines = String::new();
        for s in &scored {
            let detail = match (&s.markdown.shingles, &s.markdown.snippets) {
                (Some(m), _) => format!(
                    "p={:.3} r={:.3} f1={:.3}",
                    m.precision(),
                    m.recall(),
                    m.f1()
                ),
                (_, Some(c)) => format!(
                    "with={}/{} without={}/{}",
                    c.with_found, c.with_total, c.without_absent, c.without_total
                ),
                _ => String::new(),
            };
            lines.push_str(&format!(
                "{}\t{}\t{}\tfallback={}\n",
                s.set, s.id, detail, s.fallback
            ));
            for f in &s.markdown.failures {
                lines.push_str(&format!("\t{f}\n"));
            }
        }
        std::fs::write(path, lines).unwrap();
    }

    let of = |set: &str| scored.iter().filter(|s| s.set == set).collect::<Vec<_>>();
    let bytes: usize = scored.iter().map(|s| s.bytes).sum();
    let mb_s = |cpu: f64| bytes as f64 / 1e6 / cpu;
    let speed = mb_s(scored.iter().map(|s| s.cpu.as_secs_f64()).sum());
    let speed_md = mb_s(scored.iter().map(|s| s.cpu_md.as_secs_f64()).sum());
    let fallbacks = |set: &str| of(set).iter().filter(|s| s.fallback).count();
    println!(
        "main-content extraction on {} corpus pages ({:.1} MB):",
        scored.len(),
        bytes as f64 / 1e6
    );
    let mut results = Vec::new();
    for (name, pick) in [
        (
            "rendered Markdown (the scores we track)",
            (|s: &Scored| &s.markdown) as fn(&Scored) -> &Scores,
        ),
        (
            "Markdown source (link URLs count as words)",
            |s: &Scored| &s.raw_markdown,
        ),
    ] {
        let aeb = aggregate(
            &of("aeb")
                .iter()
                .filter_map(|s| pick(s).shingles)
                .collect::<Vec<_>>(),
        );
        let rdb = aggregate(
            &of("readability")
                .iter()
                .filter_map(|s| pick(s).shingles)
                .collect::<Vec<_>>(),
        );
        let mut traf = SnippetCounts::default();
        for s in of("trafilatura") {
            traf.add(pick(s).snippets.unwrap_or_default());
        }
        println!("  as {name}:");
        println!(
            "    aeb          F1 {:.3} (P {:.3} / R {:.3})   peers: trafilatura 0.95, mcp fetch 0.94, dom_smoothie 0.93",
            aeb.f1, aeb.precision, aeb.recall
        );
        println!(
            "    readability  F1 {:.3} (P {:.3} / R {:.3})   peers: mcp fetch 0.99, dom_smoothie 0.97, trafilatura 0.94",
            rdb.f1, rdb.precision, rdb.recall
        );
        println!(
            "    trafilatura  with {:.3} ({}/{}) without {:.3} ({}/{})   peers: trafilatura 0.94 / 0.88",
            traf.with_share(),
            traf.with_found,
            traf.with_total,
            traf.without_share(),
            traf.without_absent,
            traf.without_total,
        );
        results.push((aeb, rdb, traf));
    }
    println!(
        "  fallbacks to the whole page: aeb {}/{}, readability {}/{}, trafilatura {}/{}",
        fallbacks("aeb"),
        of("aeb").len(),
        fallbacks("readability"),
        of("readability").len(),
        fallbacks("trafilatura"),
        of("trafilatura").len()
    );
    println!(
        "  speed: {speed:.1} MB/s per CPU second parse + extract, {speed_md:.1} MB/s with Markdown \
         (trafilatura ~6 MB/s: {:.0}x)",
        speed_md / 6.0
    );
    let broken: Vec<String> = scored
        .iter()
        .flat_map(|s| s.violations.iter().map(move |v| format!("{}: {v}", s.id)))
        .collect();
    assert!(
        broken.is_empty(),
        "{} broken promises:\n{}",
        broken.len(),
        broken.join("\n")
    );
    let (aeb, rdb, traf) = results[0];
    assert!(
        aeb.f1 >= AEB_F1_FLOOR,
        "AEB F1 {:.3} fell below {AEB_F1_FLOOR}",
        aeb.f1
    );
    assert!(
        rdb.f1 >= READABILITY_F1_FLOOR,
        "Readability F1 {:.3} fell below {READABILITY_F1_FLOOR}",
        rdb.f1
    );
    assert!(
        traf.with_share() >= TRAF_WITH_FLOOR,
        "trafilatura with {:.3} < {TRAF_WITH_FLOOR}",
        traf.with_share()
    );
    assert!(
        traf.without_share() >= TRAF_WITHOUT_FLOOR,
        "trafilatura without {:.3} < {TRAF_WITHOUT_FLOOR}",
        traf.without_share()
    );
}
