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
    /// truncated, next_start_line, tokens, main, format} as JSON,
    /// for programs: --max-tokens budgets the text view it carries, not the JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let input = args.input.load()?;
    let req = args.input.ctx(args.view.request);
    let format = fetch_view::choose_format(input.content_type.as_deref(), req.format, req.surface)?;
    let view = match (&input.live, format) {
        // A live page is already parsed.
        (Some(page), Format::Markdown) => fetch_view::markdown(page, &req, input.url.as_deref())?,
        _ => {
            let content = match format {
                // An image or other binary, unasked: this command is for pages.
                Format::Base64 if req.format.is_none() => bail!(
                    "'{}' is {}, not a web page; use `webfold fetch {}` or --format base64 to get it as base64",
                    args.input.input,
                    input.content_type.as_deref().unwrap_or("binary"),
                    args.input.input
                ),
                Format::Markdown => input.page_text()?,
                Format::Raw => input.text(),
                Format::Base64 => fetch_view::base64(&input.bytes),
            };
            let url = input.url.as_deref();
            fetch_view::fetched(format, content, url, &req, &fetch_view::no_frame)?
        }
    };
    let url = match format {
        Format::Markdown => req.base(input.url.as_deref())?.map(String::from),
        _ => input.url.clone(),
    };
    if args.json {
        let mut out = view_json(&view, "markdown");
        out.insert("url".into(), serde_json::json!(url));
        out.insert("format".into(), serde_json::json!(format));
        crate::out::line(&serde_json::Value::Object(out).to_string())
    } else {
        crate::out::view(
            &view.paged.text,
            view.paged.tokens.unwrap_or(0),
            req.max_tokens,
        )
    }
}

/// A Markdown view as `--json` prints it (for `markdown` and `fetch`): its
/// text under `text_key`, the title, where the page starts and ends, how to
/// read on, and what main-content extraction found.
pub(crate) fn view_json(
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
