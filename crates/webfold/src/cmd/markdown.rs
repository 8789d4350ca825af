use anyhow::{Context, bail};
use clap::Parser;
use url::Url;
use webfold_core::NodeId;
use webfold_core::extract::{ExtractOptions, extract};
use webfold_core::fetch_view::{self, Format, PageOptions};
use webfold_core::markdown::{MarkdownOptions, to_markdown};

use crate::input::Input;

/// Convert a page to Markdown, relative links resolved, paged by lines.
#[derive(Parser)]
#[command(after_help = "Examples:\n  \
    webfold markdown page.html --base-url https://example.com/blog/post.html\n  \
    webfold markdown https://example.com/docs --max-tokens 2000\n  \
    webfold markdown page.html --start-line 201\n  \
    webfold markdown https://example.com/news/story --main")]
pub struct Args {
    /// File path, http(s) or file URL, or - for standard input
    input: String,
    /// URL to resolve relative links against (default: the fetched URL); a
    /// <base href> in the page still wins, as in browsers
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Lines shown at most; 0 shows everything
    #[arg(long, default_value_t = fetch_view::DEFAULT_MAX_LINES, value_name = "N")]
    max_lines: usize,
    /// First line to show (1-based), to read the next page
    #[arg(long, default_value_t = 1, value_name = "N")]
    start_line: usize,
    /// Token budget for the whole output (o200k_base); cuts at a line boundary
    #[arg(long, value_name = "N")]
    max_tokens: Option<usize>,
    /// Only the main content (the article), under a short header with its
    /// title, byline and date; when no article is found, the whole page with
    /// a note saying so
    #[arg(long)]
    main: bool,
    /// Print {markdown, url, title, total_lines, first_line, last_line,
    /// truncated, next_start_line, tokens, main} as JSON
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    browser: crate::input::BrowserArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let input = Input::load_with(&args.input, &args.browser)?;
    let base_url = match &args.base_url {
        Some(u) => Some(Url::parse(u).with_context(|| {
            format!(
                "invalid --base-url '{u}': give an absolute URL such as https://example.com/page"
            )
        })?),
        None => input.url.as_deref().and_then(|u| Url::parse(u).ok()),
    };
    let mut main_info = serde_json::Value::Null;
    let (markdown, title) = match input
        .content_type
        .as_deref()
        .map(|ct| fetch_view::choose_format(ct, None))
    {
        Some(Format::Base64) => bail!(
            "'{}' is {}, not a web page; use `webfold fetch {}` to get it as base64",
            args.input,
            input.content_type.as_deref().unwrap_or("binary"),
            args.input
        ),
        // Plain text, JSON and the like are already readable: shown as they are.
        Some(Format::Raw) => (input.text(), None),
        _ => {
            let page = input.page();
            let opts = MarkdownOptions {
                base_url: base_url.clone(),
                ..MarkdownOptions::default()
            };
            if args.main {
                let ex = extract(&page, &ExtractOptions::default());
                main_info = serde_json::json!({
                    "title": ex.metadata.title,
                    "byline": ex.metadata.byline,
                    "date": ex.metadata.date,
                    "fallback": ex.fallback.as_ref().map(|f| f.to_string()),
                });
                (
                    ex.to_markdown(&page, &opts),
                    ex.metadata.title.clone().or_else(|| page.title()),
                )
            } else {
                (to_markdown(&page, NodeId::DOCUMENT, &opts), page.title())
            }
        }
    };
    let paged = fetch_view::page_lines(
        &markdown,
        &PageOptions {
            max_lines: args.max_lines,
            start_line: args.start_line,
            max_tokens: args.max_tokens,
            ..PageOptions::default()
        },
    );
    if args.json {
        let out = serde_json::json!({
            "markdown": paged.text,
            "url": base_url.map(String::from),
            "title": title,
            "total_lines": paged.total_lines,
            "first_line": paged.first_line,
            "last_line": paged.last_line,
            "truncated": paged.truncated,
            "next_start_line": paged.next_start_line,
            "tokens": paged.tokens,
            "main": main_info,
        });
        println!("{out}");
    } else {
        super::fetch::print_text(&paged.text, args.max_tokens.is_some());
    }
    Ok(())
}
