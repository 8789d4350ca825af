use anyhow::bail;
use clap::Parser;
use webfold_core::fetch_view::{self, Format, MarkdownRequest};

use crate::flags::Flags;
use crate::input::ViewInput;

/// Convert a page to Markdown, relative links resolved, paged by lines.
///
/// By default only the main content: the article under a short header with
/// its title, byline and date; when no article is found, the whole page with
/// a note saying so (--no-main: always the whole page).
#[derive(Parser)]
#[command(after_help = "Examples:\n  \
    webfold markdown page.html --base-url https://example.com/blog/post.html\n  \
    webfold markdown https://example.com/docs --max-tokens 2000\n  \
    webfold markdown page.html --start-line 201\n  \
    webfold markdown https://example.com/news/story --no-main")]
pub struct Args {
    #[command(flatten)]
    input: ViewInput,
    #[command(flatten)]
    view: Flags<MarkdownRequest>,
    /// Print {markdown, url, title, total_lines, first_line, last_line,
    /// truncated, next_start_line, tokens, main} as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let input = args.input.load()?;
    let req = args.input.ctx(args.view.request);
    let format = input
        .content_type
        .as_deref()
        .map(|ct| fetch_view::choose_format(ct, req.format));
    let (view, url) = match format {
        Some(Format::Base64) => bail!(
            "'{}' is {}, not a web page; use `webfold fetch {}` to get it as base64",
            args.input.input,
            input.content_type.as_deref().unwrap_or("binary"),
            args.input.input
        ),
        // Plain text, JSON and the like are already readable: shown as they are.
        Some(Format::Raw) => (
            fetch_view::MarkdownView {
                paged: fetch_view::paged_text(&input.text(), &req)?,
                title: None,
                main: None,
            },
            input.url.clone(),
        ),
        _ => {
            let page = input.page();
            let view = fetch_view::markdown(&page, &req, input.url.as_deref())?;
            (view, req.base(input.url.as_deref())?.map(String::from))
        }
    };
    if args.json {
        let out = serde_json::json!({
            "markdown": view.paged.text,
            "url": url,
            "title": view.title,
            "total_lines": view.paged.total_lines,
            "first_line": view.paged.first_line,
            "last_line": view.paged.last_line,
            "truncated": view.paged.truncated,
            "next_start_line": view.paged.next_start_line,
            "tokens": view.paged.tokens,
            "main": view.main,
        });
        crate::out::line(&out.to_string())
    } else {
        crate::out::view(
            &view.paged.text,
            view.paged.tokens.unwrap_or(0),
            req.max_tokens,
        )
    }
}
