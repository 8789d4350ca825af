use std::io::Write;

use clap::Parser;
use webfold_core::fetch_view::{self, Format, PageOptions};
use webfold_core::markdown::{MarkdownOptions, to_markdown};
use webfold_core::tokens::{self, Encoding};
use webfold_core::{NodeId, Page};
use webfold_fetch::{DEFAULT_MAX_BYTES, FetchOptions};

use crate::input::block_on;

/// Fetch a URL the way an agent reads it: HTML as Markdown (paged by lines),
/// text and JSON as they are, images and other binaries as base64.
#[derive(Parser)]
#[command(after_help = "Examples:\n  \
    webfold fetch https://example.com/docs/guide.html\n  \
    webfold fetch https://example.com/docs/guide.html --start-line 201 --max-tokens 4000\n  \
    webfold fetch https://example.com/api/items.json --json")]
pub struct Args {
    /// http(s) URL to fetch
    url: String,
    /// markdown (default), raw, or base64. Images and binaries are always base64;
    /// text and JSON always raw; HTML is Markdown unless raw is asked for
    #[arg(long, value_name = "FORMAT")]
    format: Option<Format>,
    /// Markdown lines shown at most; 0 shows everything (raw and base64 are never cut)
    #[arg(long, default_value_t = fetch_view::DEFAULT_MAX_LINES, value_name = "N")]
    max_lines: usize,
    /// First Markdown line to show (1-based), to read the next page
    #[arg(long, default_value_t = 1, value_name = "N")]
    start_line: usize,
    /// Token budget for the Markdown output, header included (o200k_base)
    #[arg(long, value_name = "N")]
    max_tokens: Option<usize>,
    /// Refuse responses larger than this many bytes
    #[arg(long, default_value_t = DEFAULT_MAX_BYTES, value_name = "N")]
    max_bytes: u64,
    /// Print {url, final_url, status, content_type, format, title, content,
    /// bytes, total_lines, first_line, last_line, truncated, next_start_line,
    /// tokens} as JSON instead of a header and the content
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let opts = FetchOptions {
        max_bytes: args.max_bytes,
        ..FetchOptions::default()
    };
    let fetched = block_on(webfold_fetch::fetch(&args.url, &opts))??;
    let format = fetched.format(args.format);
    let final_url = fetched.final_url.clone();
    let status = fetched.status;
    let bytes = fetched.body.len();
    let content_type = fetched
        .content_type
        .clone()
        .unwrap_or_else(|| fetched.mime.clone());
    let (content, title) = match format {
        Format::Markdown => {
            let page = Page::parse(&fetched.into_text().text);
            let md_opts = MarkdownOptions {
                base_url: Some(final_url.clone()),
                ..MarkdownOptions::default()
            };
            (to_markdown(&page, NodeId::DOCUMENT, &md_opts), page.title())
        }
        Format::Raw => (fetched.into_text().text, None),
        Format::Base64 => (fetched.base64(), None),
    };

    let mut header =
        format!("URL: {final_url}\nContent-Type: {content_type} (shown as {format})\n");
    if let Some(t) = &title {
        header.push_str(&format!("Title: {t}\n"));
    }
    header.push('\n');
    // The budget covers what is printed: the header comes out of it (not in --json).
    let budget = args.max_tokens.map(|n| {
        if args.json {
            n
        } else {
            n.saturating_sub(tokens::count(&header, Encoding::default()))
        }
    });
    let paged = fetch_view::view(
        format,
        content,
        &PageOptions {
            max_lines: args.max_lines,
            start_line: args.start_line,
            max_tokens: budget,
            ..PageOptions::default()
        },
    );

    if args.json {
        let out = serde_json::json!({
            "url": args.url,
            "final_url": final_url.as_str(),
            "status": status,
            "content_type": content_type,
            "format": format,
            "title": title,
            "content": paged.text,
            "bytes": bytes,
            "total_lines": paged.total_lines,
            "first_line": paged.first_line,
            "last_line": paged.last_line,
            "truncated": paged.truncated,
            "next_start_line": paged.next_start_line,
            "tokens": paged.tokens,
        });
        println!("{out}");
    } else {
        let mut text = header;
        text.push_str(&paged.text);
        print_text(
            &text,
            args.max_tokens.is_some() && format == Format::Markdown,
        );
    }
    Ok(())
}

/// Prints a view. Under a token budget nothing is added (a final line break
/// could cost a token); otherwise the output ends with a line break.
pub fn print_text(text: &str, exact: bool) {
    let mut stdout = std::io::stdout().lock();
    let newline = if exact || text.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = write!(stdout, "{text}{newline}");
    let _ = stdout.flush();
}
