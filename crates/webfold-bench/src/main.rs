//! `webfold-bench`: every view over every corpus page, with peers side by side.
//!
//! Run: `cargo run --release -p webfold-bench` (add `--sample N` to take every
//! N-th page, `--json` for machine-readable figures). Prints, per view,
//! throughput (MB/s of input HTML), p50/p99 per page, output tokens against
//! the pages' raw HTML tokens, and ratios against htmd and fast_html2md.
//! `webfold-bench rss` measures peak RSS of parse + outline + Markdown on a
//! 10 MB page in a fresh process; `webfold-bench extract` scores main-content
//! extraction on the corpus with each benchmark's own metric.
//! `webfold-bench aria` puts our accessibility snapshot beside Playwright's
//! (the oracle in `bench/oracle`; `scripts/install-oracle` first): in-page
//! snapshot times, rendered-page match rates and token counts.
//! `webfold-bench cold` times whole CLI calls (what an agent pays per step)
//! beside another `webfold` binary. `webfold-bench ui-latency` times the
//! daemon's round trip from a tab's message to the waiting agent.
//! `webfold-bench agent` measures the agent loop's input tokens with chunking
//! against the full-HTML prompt on the large corpus pages (scripted
//! transcripts), with iterations and the fallback rate.
//! `webfold-bench instances` loads one and two `webfold serve` instances on
//! PostgreSQL beside one on SQLite, times a refresh's notification from
//! one instance to another, and the chat's round trips across two daemons.
//! `webfold-bench soak --seconds N` runs mixed bridge and MCP load on
//! loopback and prints RSS and open file descriptors over time.
//! `webfold-bench targets` scores the default and task-focused views on the
//! corpus's labelled agent tasks: is the element each task needs there?
//! `webfold-bench scaling` times every view on generated page shapes at `n`
//! and `2n` rows and gives the peak heap of each beside the page's size.

mod agent;
mod aria;
mod cold;
mod extract;
mod instances;
mod rss;
mod run;
mod scaling;
mod soak;
mod targets;
mod ui_latency;

#[global_allocator]
static ALLOC: webfold_corpus::peak::PeakAlloc = webfold_corpus::peak::PeakAlloc;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("extract") {
        return extract::main();
    }
    if args.first().map(String::as_str) == Some("aria") {
        return aria::main(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("cold") {
        return cold::main(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("agent") {
        return agent::main(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("rss") {
        return rss::main(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("instances") {
        return instances::main(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("soak") {
        return soak::main(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("scaling") {
        return scaling::main(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("targets") {
        return targets::main(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("ui-latency") {
        return ui_latency::main(&args[1..]);
    }
    run::main(&args)
}
