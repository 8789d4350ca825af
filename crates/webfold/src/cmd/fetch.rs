//! `webfold fetch`: a URL as an agent reads it, through the Markdown view.

use clap::Parser;
use webfold_core::contract::{Ctx, Surface};
use webfold_core::fetch_view::{MarkdownRequest, choose_format};
use webfold_core::markdown::MarkdownPage;
use webfold_core::tokens::Encoding;
use webfold_core::view::{Call, Input, Raw};
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
    /// Print the view as JSON (text with its header, tokens, the view's data)
    /// with the response's {final_url, status, content_type, bytes},
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
    let mut request = args.view.request;
    // What the response is shown as is decided here, once, for the header;
    // the view is then asked for exactly that.
    let format = choose_format(Some(&fetched.mime), request.format, Surface::Cli)?;
    request.format = Some(format);
    let final_url = fetched.final_url.to_string();
    let content_type = fetched
        .content_type
        .clone()
        .unwrap_or_else(|| fetched.mime.clone());
    // The budget covers what is printed, header included.
    let header = |title: Option<&str>| {
        let mut h = format!("URL: {final_url}\nContent-Type: {content_type} (shown as {format})\n");
        if let Some(t) = title {
            h.push_str(&format!("Title: {t}\n"));
        }
        h.push('\n');
        h
    };
    let call = Call::of::<MarkdownPage>(request, Ctx::new(Surface::Cli, Encoding::default()));
    let mut input = Input {
        page: None,
        url: &final_url,
        session: None,
        cnt: None,
        raw: Some(Raw {
            bytes: &fetched.body,
            content_type: fetched.content_type.as_deref(),
            mime: Some(&fetched.mime),
        }),
        not_a_page: None,
        html: false,
        json: args.json,
        frame: (!args.json).then_some(&header as _),
    };
    let envelope = call.run(&mut input)?;
    if !args.json {
        return crate::out::view(&envelope);
    }
    let mut json = envelope.to_json_value();
    for (key, value) in [
        ("final_url", serde_json::json!(final_url)),
        ("status", serde_json::json!(fetched.status)),
        ("content_type", serde_json::json!(content_type)),
        ("bytes", serde_json::json!(fetched.body.len())),
    ] {
        json[key] = value;
    }
    json["url"] = serde_json::json!(args.url);
    crate::out::line(&json.to_string())
}
