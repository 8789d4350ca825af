//! `webfold-bench agent`: seed 000's success metrics for the agent loop, over
//! the large corpus pages: input tokens per task with chunking against the
//! full-HTML prompt, iterations used, fallback rate.
//!
//! Transcripts are scripted, not recorded from a model: per task, the model
//! reads the system prompt, asks for one part of the page with
//! `get_html_chunk` (the part the task names: the `h1`, the `nav`, the
//! `footer`), then answers with the final tool. A missing part is answered
//! with the core's "not found" and the model answers anyway, as a real one
//! would. Input tokens are counted as the provider would bill them: the exact
//! text of the system prompt, the tool schemas and every message, in
//! o200k_base (provider-side framing, a few tokens per message, is left out
//! of both sides alike).

use std::sync::Mutex;

use serde_json::{Value, json};
use webfold_agent::message::{Block, Reply, Usage};
use webfold_agent::provider::{ChatRequest, Model};
use webfold_agent::{AgentOptions, AgentView, CancellationToken, Mode, PageContext, ProviderError};
use webfold_core::tokens::{self, Encoding};

/// seed 000's "large pages".
const DEFAULT_MIN_KB: u64 = 100;

/// One task: what the user asks, and the part a model would read for it.
struct Task {
    ask: &'static str,
    selector: &'static str,
}

const TASKS: [Task; 3] = [
    Task {
        ask: "Make the main headline shorter.",
        selector: "h1",
    },
    Task {
        ask: "Highlight the first link of the navigation.",
        selector: "nav",
    },
    Task {
        ask: "Give the footer a dark background.",
        selector: "footer",
    },
];

/// A model that follows one scripted transcript and counts what it is sent.
struct Scripted {
    selector: &'static str,
    turn: Mutex<u32>,
}

fn input_tokens(req: &ChatRequest<'_>) -> u64 {
    let enc = Encoding::O200kBase;
    let mut n = tokens::count(req.system, enc);
    for t in req.tools {
        let schema =
            json!({"name": t.name, "description": t.description, "input_schema": t.schema});
        n += tokens::count(&schema.to_string(), enc);
    }
    for m in req.messages {
        for b in &m.content {
            n += match b {
                Block::Text { text } => tokens::count(text, enc),
                Block::ToolUse {
                    name, arguments, ..
                } => tokens::count(name, enc) + tokens::count(arguments, enc),
                Block::ToolResult { content, .. } => tokens::count(content, enc),
            };
        }
    }
    n as u64
}

fn answer() -> Value {
    json!({"domChanges": [{"selector": "h1", "type": "text", "value": "Shorter"}],
        "response": "Changed it.", "action": "append"})
}

impl Model for Scripted {
    fn call(
        &self,
        req: &ChatRequest<'_>,
        _cancel: &CancellationToken,
    ) -> impl Future<Output = Result<Reply, ProviderError>> + Send {
        let input = input_tokens(req);
        let chunking = req.tools.iter().any(|t| t.name == "get_html_chunk");
        let turn = {
            let mut t = self.turn.lock().unwrap_or_else(|e| e.into_inner());
            *t += 1;
            *t
        };
        let (name, args) = if chunking && turn == 1 {
            ("get_html_chunk", json!({"selector": self.selector}))
        } else {
            ("dom_changes_generator", answer())
        };
        let arguments = args.to_string();
        let reply = Reply {
            usage: Usage {
                input_tokens: input,
                output_tokens: tokens::count(&arguments, Encoding::O200kBase) as u64,
            },
            blocks: vec![Block::ToolUse {
                id: format!("call_{turn}"),
                name: name.into(),
                arguments,
            }],
            stop_reason: Some("tool_use".into()),
            retries: Vec::new(),
        };
        async move { Ok(reply) }
    }
}

struct Row {
    chunked: u64,
    full: u64,
    iterations: u32,
    fell_back: bool,
}

fn run_task(
    rt: &tokio::runtime::Runtime,
    page: &PageContext,
    task: &Task,
    view: AgentView,
) -> anyhow::Result<Row> {
    let go = |chunking: bool| {
        let model = Scripted {
            selector: task.selector,
            turn: Mutex::new(0),
        };
        let opts = AgentOptions {
            view,
            chunking,
            ..Default::default()
        };
        rt.block_on(webfold_agent::run(
            &model,
            page,
            task.ask,
            &opts,
            &CancellationToken::new(),
        ))
    };
    let chunked = go(true)?;
    let full = go(false)?;
    Ok(Row {
        chunked: chunked.usage.input_tokens,
        full: full.usage.input_tokens,
        iterations: chunked.iterations,
        fell_back: chunked.mode == Mode::FullHtml,
    })
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn main(args: &[String]) -> anyhow::Result<()> {
    let mut min_kb = DEFAULT_MIN_KB;
    let mut sample = 1usize;
    let mut view = AgentView::default();
    let mut json_out = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--min-kb" => min_kb = it.next().and_then(|v| v.parse().ok()).unwrap_or(min_kb),
            "--sample" => sample = it.next().and_then(|v| v.parse().ok()).unwrap_or(1),
            "--view" => {
                view = it
                    .next()
                    .map(|v| v.parse::<AgentView>())
                    .transpose()
                    .map_err(anyhow::Error::msg)?
                    .unwrap_or(view)
            }
            "--json" => json_out = true,
            other => anyhow::bail!(
                "unknown option {other}: agent [--min-kb N] [--sample N] [--view NAME] [--json]"
            ),
        }
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let pages: Vec<_> = webfold_corpus::pages()
        .into_iter()
        .filter(|p| p.bytes >= min_kb * 1024)
        .enumerate()
        .filter(|(i, _)| i % sample.max(1) == 0)
        .map(|(_, p)| p)
        .collect();
    let mut rows = Vec::new();
    for p in &pages {
        let ctx = PageContext::parse(&p.html(), p.url.clone().unwrap_or_else(|| p.id.clone()));
        for task in &TASKS {
            rows.push(run_task(&rt, &ctx, task, view)?);
        }
    }
    anyhow::ensure!(!rows.is_empty(), "no corpus page of {min_kb} KB or more");
    let sum_c: u64 = rows.iter().map(|r| r.chunked).sum();
    let sum_f: u64 = rows.iter().map(|r| r.full).sum();
    let mut reductions: Vec<f64> = rows
        .iter()
        .map(|r| 100.0 * (1.0 - r.chunked as f64 / r.full.max(1) as f64))
        .collect();
    reductions.sort_by(f64::total_cmp);
    let mut chunked: Vec<f64> = rows.iter().map(|r| r.chunked as f64).collect();
    chunked.sort_by(f64::total_cmp);
    let mut full: Vec<f64> = rows.iter().map(|r| r.full as f64).collect();
    full.sort_by(f64::total_cmp);
    let n = rows.len() as f64;
    let iterations = rows.iter().map(|r| f64::from(r.iterations)).sum::<f64>() / n;
    let fallback = 100.0 * rows.iter().filter(|r| r.fell_back).count() as f64 / n;
    let total = 100.0 * (1.0 - sum_c as f64 / sum_f.max(1) as f64);
    let under_half = 100.0 * reductions.iter().filter(|&&r| r < 50.0).count() as f64 / n;
    if json_out {
        println!(
            "{}",
            json!({
                "view": view.name(), "pages": pages.len(), "tasks": rows.len(), "min_kb": min_kb,
                "input_tokens_chunked": {"p50": percentile(&chunked, 50.0), "p95": percentile(&chunked, 95.0), "sum": sum_c},
                "input_tokens_full_html": {"p50": percentile(&full, 50.0), "p95": percentile(&full, 95.0), "sum": sum_f},
                "reduction_pct": {"total": total, "p50": percentile(&reductions, 50.0), "p5": percentile(&reductions, 5.0)},
                "tasks_under_50pct_pct": under_half,
                "iterations_mean": iterations, "fallback_rate_pct": fallback
            })
        );
        return Ok(());
    }
    println!(
        "agent loop, {} view, {} pages of {min_kb} KB or more, {} scripted tasks (o200k_base):",
        view.name(),
        pages.len(),
        rows.len()
    );
    println!(
        "  input tokens per task, chunked:   p50 {:>8.0}  p95 {:>8.0}",
        percentile(&chunked, 50.0),
        percentile(&chunked, 95.0)
    );
    println!(
        "  input tokens per task, full HTML: p50 {:>8.0}  p95 {:>8.0}",
        percentile(&full, 50.0),
        percentile(&full, 95.0)
    );
    println!(
        "  reduction: {total:.1}% of all input tokens; per task p50 {:.1}%, p5 {:.1}%; {under_half:.1}% of tasks under the 50% bar",
        percentile(&reductions, 50.0),
        percentile(&reductions, 5.0)
    );
    println!("  iterations per task: {iterations:.2}; fallback to full HTML: {fallback:.1}%");
    Ok(())
}
