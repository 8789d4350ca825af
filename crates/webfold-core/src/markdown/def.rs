//! The Markdown view as every surface runs it: a page's Markdown, or, given
//! what a URL answered, its text or bytes as they are.

use serde_json::json;

use crate::contract::{Ctx, Hint, Limit, Surface, ViewName};
use crate::decode;
use crate::fetch_view::{self, Format, MarkdownRequest, MarkdownView};
use crate::view::{Envelope, Input, View};
use crate::{Error, Page};

pub const NAME: ViewName = ViewName::new("markdown", "web_fetch");

pub struct MarkdownPage;

impl View for MarkdownPage {
    type Request = MarkdownRequest;
    type Output = MarkdownView;
    const NAME: ViewName = NAME;
    const ABOUT: &'static str =
        "Convert a page to Markdown, relative links resolved, paged by lines";
    const HELP: &'static str = "\
By default only the main content: the article under a short header with
its title, byline and date; when no article is found, the whole page with
a note saying so (--no-main: always the whole page).";
    const EXAMPLES: &'static str = "\
webfold markdown page.html --base-url https://example.com/blog/post.html
webfold markdown https://example.com/docs --max-tokens 2000
webfold markdown page.html --start-line 201
webfold markdown https://example.com/news/story --no-main";
    const TOOL: &'static str = "A page as Markdown, links absolute: its main content by default, paged by lines; a url that is not HTML comes back raw or base64.";
    const ANY_CONTENT: bool = true;
    const ARTICLE: Option<&'static str> = Some("a Markdown version");
    const READING: Option<&'static str> = Some(
        "its main content (the whole page when it has no article) as Markdown, links made absolute. It names no elements: pass get_html_chunk a CSS selector for the part you need (a heading's tag, a link's a[href*=\"…\"]), and read the HTML before you name a selector in a change.",
    );

    fn hints() -> Vec<Hint> {
        vec![Hint::StartLine(201), Hint::Raise(Limit::MaxTokens, None)]
    }

    fn run(req: &MarkdownRequest, ctx: Ctx, input: &mut Input<'_>) -> Result<MarkdownView, Error> {
        let url = input.url();
        let frame = input.frame.unwrap_or(&fetch_view::no_frame);
        let Some(raw) = input.raw else {
            return fetch_view::page_as(input.parsed()?, None, url, req, ctx);
        };
        let format = fetch_view::choose_format(raw.mime, req.format, ctx.surface)?;
        if format == Format::Base64 && req.format.is_none() && ctx.surface == Surface::Cli {
            // On the command line, `markdown` is for pages and `fetch` for
            // anything a URL answers.
            return Err(Error::InvalidOption(format!(
                "this input is {}, not a web page; use `webfold fetch` or --format base64 to get it as base64",
                raw.mime.unwrap_or("binary")
            )));
        }
        let decoded = || {
            let mime = raw.mime.unwrap_or("text/html");
            decode::decode_body(raw.bytes.to_vec(), raw.content_type, mime, url).text
        };
        let content = match format {
            Format::Markdown => {
                let parsed;
                let page = match input.page {
                    Some(page) => page,
                    None => {
                        parsed = Page::parse(&decoded());
                        &parsed
                    }
                };
                return fetch_view::markdown_framed(page, req, url, frame, ctx);
            }
            Format::Raw => decoded(),
            Format::Base64 => fetch_view::base64(raw.bytes),
        };
        fetch_view::fetched(format, content, url, req, frame, ctx)
    }

    fn envelope(req: &MarkdownRequest, ctx: Ctx, view: MarkdownView) -> Envelope {
        let p = &view.paged;
        // What the surface printed before the view is part of what it shows.
        let text = format!("{}{}", view.header, p.text);
        let mut note = format!(
            "lines {}–{} of {}",
            p.first_line, p.last_line, p.total_lines
        );
        if view.main.as_ref().is_some_and(|m| m.fallback.is_some()) {
            note.push_str("; no main content found, so the whole page");
        }
        let mut hints = Vec::new();
        if let Some(next) = p.next_start_line {
            hints.push(Hint::StartLine(next));
        }
        let cut = p.truncated;
        let mut envelope = match p.tokens {
            Some(n) => Envelope::new(NAME, text, n, &view),
            None => Envelope::uncounted(NAME, text, ctx.encoding, &view),
        }
        .budget(req.max_tokens)
        .cut(cut, hints)
        .note(note);
        envelope.data.insert("format".into(), json!(view.format));
        envelope
    }
}
