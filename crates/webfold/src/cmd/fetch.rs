use clap::Parser;
use webfold_core::contract::{Ctx, Request, Surface};
use webfold_core::fetch_view::{self, Format, MarkdownRequest};
use webfold_core::tokens::Encoding;
use webfold_fetch::{DEFAULT_MAX_BYTES, FetchOptions};

use crate::flags::Flags;
use crate::input::block_on;

/// Fetch a URL the way an agent reads it: HTML as Markdown (paged by lines;
/// by default only the main content), text and JSON as they are, images and
/// other binaries as base64.
#[derive(Parser)]
#[command(after_help = "Examples:\n  \
    webfold fetch https://example.com/docs/guide.html\n  \
    webfold fetch https://example.com/docs/guide.html --start-line 201 --max-tokens 4000\n  \
    webfold fetch https://example.com/news/story --no-main\n  \
    webfold fetch https://example.com/api/items.json --json")]
pub struct Args {
    /// http(s) URL to fetch
    url: String,
    #[command(flatten)]
    view: Flags<MarkdownRequest>,
    /// Refuse responses larger than this many bytes
    #[arg(long, default_value_t = DEFAULT_MAX_BYTES, value_name = "N")]
    max_bytes: u64,
    /// Print {url, final_url, status, content_type, format, title, content,
    /// bytes, total_lines, first_line, last_line, truncated, next_start_line,
    /// tokens, main} as JSON instead of a header and the content,
    /// for programs: --max-tokens budgets the text view it carries, not the JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let opts = FetchOptions {
        max_bytes: args.max_bytes,
        ..FetchOptions::default()
    };
    let fetched = block_on(webfold_fetch::fetch(&args.url, &opts))??;
    let req = args
        .view
        .request
        .with_ctx(Ctx::new(Surface::Cli, Encoding::default()));
    let format = fetched.format(req.format, req.surface)?;
    let final_url = fetched.final_url.to_string();
    let status = fetched.status;
    let bytes = fetched.body.len();
    let content_type = fetched
        .content_type
        .clone()
        .unwrap_or_else(|| fetched.mime.clone());
    let content = match format {
        Format::Base64 => fetched.base64(),
        _ => fetched.into_text().text,
    };
    if args.json {
        let view = fetch_view::fetched(
            format,
            content,
            Some(&final_url),
            &req,
            &fetch_view::no_frame,
        )?;
        let mut out = view_json(&view, "content");
        for (key, value) in [
            ("url", serde_json::json!(args.url)),
            ("final_url", serde_json::json!(final_url)),
            ("status", serde_json::json!(status)),
            ("content_type", serde_json::json!(content_type)),
            ("format", serde_json::json!(format)),
            ("bytes", serde_json::json!(bytes)),
        ] {
            out.insert(key.into(), value);
        }
        return crate::out::line(&serde_json::Value::Object(out).to_string());
    }
    // The budget covers what is printed, header included.
    let header = |title: Option<&str>| {
        let mut h = format!("URL: {final_url}\nContent-Type: {content_type} (shown as {format})\n");
        if let Some(t) = title {
            h.push_str(&format!("Title: {t}\n"));
        }
        h.push('\n');
        h
    };
    let view = fetch_view::fetched(format, content, Some(&final_url), &req, &header)?;
    let mut text = view.header;
    text.push_str(&view.paged.text);
    crate::out::view(&text, view.paged.tokens.unwrap_or(0), req.max_tokens)
}

/// A Markdown view as `--json` prints it : its
/// text under `text_key`, the title, where the page starts and ends, how to
/// read on, and what main-content extraction found.
fn view_json(
    view: &fetch_view::MarkdownView,
    text_key: &str,
) -> serde_json::Map<String, serde_json::Value> {
    use serde_json::json;
    let p = &view.paged;
    [
        (text_key, json!(p.text)),
        ("title", json!(view.title)),
        ("total_lines", json!(p.total_lines)),
        ("first_line", json!(p.first_line)),
        ("last_line", json!(p.last_line)),
        ("truncated", json!(p.truncated)),
        ("next_start_line", json!(p.next_start_line)),
        ("tokens", json!(p.tokens)),
        ("main", json!(view.main)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}
