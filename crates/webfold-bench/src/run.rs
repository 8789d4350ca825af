//! The corpus run: time each view on each page, count tokens, compare peers.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use webfold_core::extract::{self, ExtractOptions};
use webfold_core::markdown::{self, MarkdownOptions};
use webfold_core::outline::{self, OutlineOptions};
use webfold_core::tokens::{self, Encoding};
use webfold_core::{NodeId, Page};
use webfold_core::{aria, cnt};

/// A view under test: a name and a function from page (+ base URL) to text.
pub struct View {
    pub name: &'static str,
    pub render: fn(&Page, Option<&str>) -> String,
}

fn markdown_options(url: Option<&str>) -> MarkdownOptions {
    MarkdownOptions {
        base_url: url.and_then(|u| url::Url::parse(u).ok()),
        ..MarkdownOptions::default()
    }
}

/// Every view of ours the bench knows, in print order.
pub fn views() -> Vec<View> {
    vec![
        View {
            name: "outline",
            render: |page, _| {
                outline::outline(
                    page,
                    &OutlineOptions::default(),
                    webfold_core::contract::Ctx::default(),
                )
                .map(|o| o.text)
                .unwrap_or_default()
            },
        },
        View {
            name: "markdown",
            render: |page, url| {
                markdown::to_markdown(page, NodeId::DOCUMENT, &markdown_options(url))
            },
        },
        View {
            name: "cnt (8000 budget)",
            render: |page, _| {
                let opts = cnt::ViewOptions::default();
                cnt::Cnt::build(page)
                    .view(&opts, webfold_core::contract::Ctx::default())
                    .map(|v| v.text)
                    .unwrap_or_default()
            },
        },
        View {
            name: "snapshot ai --full",
            render: |page, _| aria::snapshot(page, aria::Mode::Ai),
        },
        View {
            name: "markdown --main",
            render: |page, url| {
                extract::extract(page, &ExtractOptions::default())
                    .to_markdown(page, &markdown_options(url))
            },
        },
    ]
}

/// All views rendered once (for the RSS run).
pub fn all_views(page: &Page, url: Option<&str>) -> Vec<String> {
    views().iter().map(|v| (v.render)(page, url)).collect()
}

struct Stats {
    name: String,
    times: Vec<Duration>,
    bytes: usize,
    out_tokens: usize,
    /// Each page's output tokens.
    page_tokens: Vec<usize>,
    token_ratios: Vec<f64>,
}

impl Stats {
    fn new(name: &str) -> Self {
        Stats {
            name: name.into(),
            times: vec![],
            bytes: 0,
            out_tokens: 0,
            page_tokens: vec![],
            token_ratios: vec![],
        }
    }

    /// One page: its time, its HTML's bytes and raw tokens, what came out.
    fn add(&mut self, d: Duration, html_bytes: usize, raw_tokens: f64, out: &str) {
        let t = tokens::count(out, Encoding::O200kBase);
        self.times.push(d);
        self.bytes += html_bytes;
        self.out_tokens += t;
        self.page_tokens.push(t);
        self.token_ratios.push(t as f64 / raw_tokens);
    }

    fn median_tokens(&self) -> usize {
        let mut t = self.page_tokens.clone();
        t.sort_unstable();
        t.get(t.len() / 2).copied().unwrap_or(0)
    }

    /// The median over pages of this row's tokens over `other`'s on the
    /// same page (pages where `other` printed nothing left out): how the
    /// typical page compares, where the ratio of the two medians compares
    /// two different pages.
    fn median_page_ratio(&self, other: &Stats) -> f64 {
        let mut r: Vec<f64> = self
            .page_tokens
            .iter()
            .zip(&other.page_tokens)
            .filter(|&(_, &o)| o > 0)
            .map(|(&a, &o)| a as f64 / o as f64)
            .collect();
        r.sort_by(f64::total_cmp);
        r.get(r.len() / 2).copied().unwrap_or(0.0)
    }

    fn mb_per_s(&self) -> f64 {
        let secs: f64 = self.times.iter().map(Duration::as_secs_f64).sum();
        self.bytes as f64 / 1e6 / secs.max(1e-9)
    }

    fn percentile_ms(&self, p: f64) -> f64 {
        let mut t: Vec<f64> = self.times.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        t.sort_by(f64::total_cmp);
        if t.is_empty() {
            return 0.0;
        }
        t[((t.len() - 1) as f64 * p).round() as usize]
    }

    fn median_ratio(&self) -> f64 {
        let mut r = self.token_ratios.clone();
        r.sort_by(f64::total_cmp);
        if r.is_empty() { 0.0 } else { r[r.len() / 2] }
    }
}

fn time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed())
}

pub fn main(args: &[String]) -> anyhow::Result<()> {
    let sample: usize = args
        .iter()
        .position(|a| a == "--sample")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(1);
    let json = args.iter().any(|a| a == "--json");
    let enc = Encoding::O200kBase;

    let pages = webfold_corpus::sample(sample);
    eprintln!("loading {} corpus pages…", pages.len());
    let docs: Vec<(String, Option<String>)> =
        pages.iter().map(|p| (p.html(), p.url.clone())).collect();
    let total_bytes: usize = docs.iter().map(|(h, _)| h.len()).sum();
    eprintln!(
        "{} pages, {:.1} MB of HTML; counting raw tokens…",
        docs.len(),
        total_bytes as f64 / 1e6
    );
    let raw_tokens: Vec<usize> = docs.iter().map(|(h, _)| tokens::count(h, enc)).collect();

    let mut parse = Stats::new("parse");
    let mut ours: Vec<Stats> = views().iter().map(|v| Stats::new(v.name)).collect();
    let mut htmd_s = Stats::new("htmd (peer)");
    let mut fast_s = Stats::new("fast_html2md (peer)");
    // The same peer given the page's URL: it then makes links that start
    // with `/` absolute, as ours makes every link.
    let mut fast_url_s = Stats::new("fast_html2md, url (peer)");
    let htmd_conv = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec!["script", "style"])
        .build();

    for (i, (html, url)) in docs.iter().enumerate() {
        if i % 50 == 0 && std::io::stderr().is_terminal() {
            eprint!("\r{i}/{}", docs.len());
        }
        let raw = raw_tokens[i].max(1) as f64;
        let (page, d) = time(|| Page::parse(html));
        parse.times.push(d);
        parse.bytes += html.len();
        for (v, s) in views().iter().zip(ours.iter_mut()) {
            // Each view's time includes its own parse, as the peers' do.
            let (out, d) = time(|| {
                let page = Page::parse(html);
                (v.render)(&page, url.as_deref())
            });
            s.add(d, html.len(), raw, &out);
        }
        drop(page);
        let (out, d) = time(|| htmd_conv.convert(html).unwrap_or_default());
        htmd_s.add(d, html.len(), raw, &out);
        let (out, d) = time(|| html2md::rewrite_html(html, false));
        fast_s.add(d, html.len(), raw, &out);
        let base = url.as_deref().and_then(|u| url::Url::parse(u).ok());
        let (out, d) = time(|| html2md::rewrite_html_custom_with_url(html, &None, false, &base));
        fast_url_s.add(d, html.len(), raw, &out);
    }
    eprintln!("\r{} pages done", docs.len());

    let raw_total: usize = raw_tokens.iter().sum();
    let mut rows = vec![&parse];
    rows.extend(ours.iter());
    rows.push(&htmd_s);
    rows.push(&fast_s);
    rows.push(&fast_url_s);
    if json {
        let out: Vec<serde_json::Value> = rows
            .iter()
            .map(|s| {
                serde_json::json!({
                    "view": s.name, "mb_per_s": s.mb_per_s(), "p50_ms": s.percentile_ms(0.5),
                    "p99_ms": s.percentile_ms(0.99), "out_tokens": s.out_tokens,
                    "median_tokens": s.median_tokens(), "median_token_ratio": s.median_ratio(),
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::json!({"pages": docs.len(), "bytes": total_bytes, "raw_tokens": raw_total, "rows": out})
        );
        return Ok(());
    }
    println!(
        "{} pages, {:.1} MB HTML, {} raw HTML tokens (o200k)\n",
        docs.len(),
        total_bytes as f64 / 1e6,
        raw_total
    );
    println!(
        "{:<28} {:>8} {:>8} {:>8} {:>12} {:>13} {:>14}",
        "view", "MB/s", "p50 ms", "p99 ms", "out tokens", "median tokens", "median out/raw"
    );
    for s in &rows {
        println!(
            "{:<28} {:>8.1} {:>8.2} {:>8.2} {:>12} {:>13} {:>14.3}",
            s.name,
            s.mb_per_s(),
            s.percentile_ms(0.5),
            s.percentile_ms(0.99),
            s.out_tokens,
            s.median_tokens(),
            s.median_ratio()
        );
    }
    if let Some(md) = ours.iter().find(|s| s.name == "markdown") {
        println!();
        for peer in [&htmd_s, &fast_s, &fast_url_s] {
            println!(
                "markdown vs {}: {:.2}x throughput, {:.2}x output tokens, {:.2}x the median page's, \
                 page by page {:.2}x (median)",
                peer.name.trim_end_matches(" (peer)"),
                md.mb_per_s() / peer.mb_per_s(),
                md.out_tokens as f64 / peer.out_tokens.max(1) as f64,
                md.median_tokens() as f64 / peer.median_tokens().max(1) as f64,
                md.median_page_ratio(peer)
            );
        }
    }
    Ok(())
}
