//! What `webfold fetch` shows for a response: which format, and which lines.
//!
//! Seed 002 binds two things here. The content-type dispatch: images are always
//! base64, HTML becomes Markdown unless raw was asked for (asking base64 for HTML
//! still gives Markdown), other `text/*` and JSON are passed through raw, anything
//! else is base64. And the truncation: Markdown is cut to its first 200 lines with
//! the indicator `_Content truncated to first 200 lines. N more lines available._`.
//! Raw and base64 output is never cut (the caller asked for the bytes, or structured
//! data must stay whole).
//!
//! On top of the seed we add what an agent needs to read a long page in parts:
//! `start_line` paging with an indicator that names the next start line, a
//! `max_tokens` budget counted with the real tokenizer (the whole output, indicator
//! included, stays within it), and a guard against absurdly long lines (minified
//! blobs) that would otherwise eat a budget in one line. Page 1's indicator stays
//! byte-identical to the seed. Pure: no I/O, so every surface shares it.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use crate::contract::{Ctx, DEFAULT_MAX_TOKENS, Hint, Limit, Request, Surface, ViewName};
use crate::error::Error;
use crate::page::{NodeId, Page};
use crate::tokens;

/// Default number of lines shown (seed 002).
pub const DEFAULT_MAX_LINES: usize = 200;
/// Default limit on one line's length, in characters, before it is cut.
pub const DEFAULT_MAX_LINE_CHARS: usize = 2_000;

/// How a fetched body is shown.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// HTML converted to Markdown, paged by lines.
    #[default]
    Markdown,
    /// The body as text, unmodified and never truncated.
    Raw,
    /// The body's bytes in base64, never truncated.
    Base64,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Raw => "raw",
            Format::Base64 => "base64",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "markdown" | "md" => Ok(Format::Markdown),
            "raw" => Ok(Format::Raw),
            "base64" => Ok(Format::Base64),
            other => Err(format!(
                "unknown format '{other}': use markdown, raw or base64"
            )),
        }
    }
}

/// The MIME essence of a `Content-Type` value: `type/subtype`, trimmed and
/// lowercased, parameters dropped (`Text/HTML; charset=utf-8` → `text/html`).
pub fn mime_essence(content_type: &str) -> String {
    let essence = content_type.split(';').next().unwrap_or_default();
    essence.trim().to_ascii_lowercase()
}

/// The seed's content-type dispatch. `mime` may be a full `Content-Type` value;
/// only its essence is looked at.
pub fn choose_format(mime: &str, requested: Option<Format>) -> Format {
    let mime = mime_essence(mime);
    if mime.starts_with("image/") {
        Format::Base64
    } else if mime == "text/html" || mime == "application/xhtml+xml" {
        match requested {
            Some(Format::Raw) => Format::Raw,
            _ => Format::Markdown,
        }
    } else if mime.starts_with("text/") || mime == "application/json" || mime.ends_with("+json") {
        Format::Raw
    } else {
        Format::Base64
    }
}

/// How much of a text to show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageOptions {
    /// Lines shown at most; 0 means no line limit. Default 200.
    pub max_lines: usize,
    /// 1-based first line to show; 0 is taken as 1. Default 1.
    pub start_line: usize,
    /// Token budget for the whole output, indicator included.
    pub max_tokens: Option<usize>,
    /// Lines longer than this many characters are cut with a marker; 0 = never.
    pub max_line_chars: usize,
    /// Tokenizer for `max_tokens`.
    pub encoding: tokens::Encoding,
    /// Whose words the footer says how to read on in.
    pub surface: Surface,
}

impl Default for PageOptions {
    fn default() -> Self {
        Self {
            max_lines: DEFAULT_MAX_LINES,
            start_line: 1,
            max_tokens: None,
            max_line_chars: DEFAULT_MAX_LINE_CHARS,
            encoding: tokens::Encoding::default(),
            surface: Surface::default(),
        }
    }
}

/// A page of text and what was left out of it (for `--json`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Paged {
    /// The text to show, indicator included.
    pub text: String,
    /// Lines in the whole content (a final line break does not start a new line).
    pub total_lines: usize,
    /// 1-based number of the first line asked for.
    pub first_line: usize,
    /// 1-based number of the last line shown; `first_line - 1` when none was shown.
    pub last_line: usize,
    /// Whether lines after `last_line` were left out.
    pub truncated: bool,
    /// Where the next page starts, when `truncated`.
    pub next_start_line: Option<usize>,
    /// How many shown lines were cut by the long-line guard.
    pub long_lines_cut: usize,
    /// Exact token count of `text`, when a token budget was given.
    pub tokens: Option<usize>,
}

impl Paged {
    fn whole(text: String, total_lines: usize) -> Self {
        Self {
            text,
            total_lines,
            first_line: 1,
            last_line: total_lines,
            truncated: false,
            next_start_line: None,
            long_lines_cut: 0,
            tokens: None,
        }
    }
}

/// Shows `content` in `format`: Markdown is paged by [`page_lines`]; raw and base64
/// pass through untouched (and are not copied).
pub fn view(format: Format, content: String, opts: &PageOptions) -> Paged {
    match format {
        Format::Markdown => page_lines(&content, opts),
        Format::Raw | Format::Base64 => {
            let total = line_count(&content);
            Paged::whole(content, total)
        }
    }
}

/// Lines of `content`, split on `\n`; a final `\n` ends the last line rather than
/// starting an empty one.
fn split_lines(content: &str) -> Vec<&str> {
    if content.is_empty() {
        return Vec::new();
    }
    let body = content.strip_suffix('\n').unwrap_or(content);
    body.split('\n').collect()
}

fn line_count(content: &str) -> usize {
    split_lines(content).len()
}

/// Cuts `line` to `max` characters with a visible marker; `max == 0` never cuts.
fn cut_long_line(line: &str, max: usize) -> Cow<'_, str> {
    if max == 0 || line.len() <= max {
        return Cow::Borrowed(line);
    }
    match line.char_indices().nth(max) {
        None => Cow::Borrowed(line),
        Some((at, _)) => {
            let more = line[at..].chars().count();
            Cow::Owned(format!(
                "{} …[line cut: {} more chars]",
                &line[..at],
                group_thousands(more)
            ))
        }
    }
}

fn group_thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The Markdown view's request (see [`crate::contract`]): one option set for
/// reading a page as Markdown, fetched or given.
#[derive(
    Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct MarkdownRequest {
    /// Only the main content (the article under its title, byline and date)
    pub main: bool,
    /// Only this CSS selector's first match
    pub selector: Option<String>,
    /// URL that relative links resolve against (default: the page's)
    pub base_url: Option<String>,
    /// markdown, raw or base64 (non-HTML is raw or base64 whatever is asked)
    pub format: Option<Format>,
    /// Lines per page; 0 shows all
    pub max_lines: usize,
    /// First line to show (1-based)
    #[schemars(range(min = 1))]
    pub start_line: usize,
    /// Token budget
    #[schemars(range(min = 1))]
    pub max_tokens: Option<usize>,
    #[serde(skip)]
    #[schemars(skip)]
    pub encoding: tokens::Encoding,
    #[serde(skip)]
    #[schemars(skip)]
    pub surface: Surface,
}

impl Default for MarkdownRequest {
    fn default() -> Self {
        MarkdownRequest {
            main: true,
            selector: None,
            base_url: None,
            format: None,
            max_lines: DEFAULT_MAX_LINES,
            start_line: 1,
            max_tokens: Some(DEFAULT_MAX_TOKENS),
            encoding: tokens::Encoding::default(),
            surface: Surface::default(),
        }
    }
}

impl Request for MarkdownRequest {
    const VIEW: ViewName = ViewName::Markdown;
    fn set_ctx(&mut self, ctx: Ctx) {
        (self.encoding, self.surface) = (ctx.encoding, ctx.surface);
    }
}

impl MarkdownRequest {
    /// How the text is paged.
    pub fn paging(&self) -> PageOptions {
        PageOptions {
            max_lines: self.max_lines,
            start_line: self.start_line,
            max_tokens: self.max_tokens,
            encoding: self.encoding,
            surface: self.surface,
            ..PageOptions::default()
        }
    }

    /// `base_url`, else the page's own address.
    pub fn base(&self, page_url: Option<&str>) -> Result<Option<url::Url>, Error> {
        match &self.base_url {
            Some(u) => url::Url::parse(u).map(Some).map_err(|_| {
                Error::InvalidOption(format!(
                    "invalid {} '{u}': give an absolute URL such as https://example.com/page",
                    crate::contract::parse::option_name("base_url", self.surface)
                ))
            }),
            None => Ok(page_url.and_then(|u| url::Url::parse(u).ok())),
        }
    }
}

/// What main-content extraction found, beside its Markdown.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct MainContent {
    pub title: Option<String>,
    pub byline: Option<String>,
    pub date: Option<String>,
    /// Set when no article was found and the Markdown is the whole page: why.
    pub fallback: Option<String>,
}

/// The Markdown view of a page: a page of lines and what it came from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MarkdownView {
    #[serde(flatten)]
    pub paged: Paged,
    pub title: Option<String>,
    /// What extraction found, when `main` was asked for the whole page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub main: Option<MainContent>,
}

/// The page (its main content, or the subtree `selector` names) as paged
/// Markdown within the request's budget. `page_url` is where the page came
/// from, for relative links.
pub fn markdown(
    page: &Page,
    req: &MarkdownRequest,
    page_url: Option<&str>,
) -> Result<MarkdownView, Error> {
    let opts = crate::markdown::MarkdownOptions {
        base_url: req.base(page_url)?,
        ..Default::default()
    };
    let (text, main, title) = match &req.selector {
        Some(sel) => {
            let root = page.query(sel)?;
            (
                crate::markdown::to_markdown(page, root, &opts),
                None,
                page.title(),
            )
        }
        None if req.main => {
            let ex = crate::extract::extract(page, &crate::extract::ExtractOptions::default());
            let info = MainContent {
                title: ex.metadata.title.clone(),
                byline: ex.metadata.byline.clone(),
                date: ex.metadata.date.clone(),
                fallback: ex.fallback.as_ref().map(|f| f.to_string()),
            };
            let title = info.title.clone().or_else(|| page.title());
            (ex.to_markdown(page, &opts), Some(info), title)
        }
        None => (
            crate::markdown::to_markdown(page, NodeId::DOCUMENT, &opts),
            None,
            page.title(),
        ),
    };
    let paged = paged_text(&text, req)?;
    Ok(MarkdownView { paged, title, main })
}

/// A fetched body shown as `format` (see [`choose_format`]): HTML as the
/// Markdown view, text and base64 whole, never cut; one over the budget is
/// refused with the budget that would take it.
pub fn fetched(
    format: Format,
    content: String,
    page_url: Option<&str>,
    req: &MarkdownRequest,
) -> Result<MarkdownView, Error> {
    if format == Format::Markdown {
        let page = Page::parse(&content);
        return markdown(&page, req, page_url);
    }
    let n = tokens::count(&content, req.encoding);
    if let Some(budget) = req.max_tokens
        && n > budget
    {
        return Err(Error::BudgetTooSmall {
            what: format!("the response as {format} (never cut)"),
            needed: n,
            max_tokens: budget,
            advice: format!(
                "raise {}",
                Hint::Raise(Limit::MaxTokens, Some(n)).spell(req.surface)
            ),
        });
    }
    let mut paged = view(format, content, &req.paging());
    paged.tokens = Some(n);
    Ok(MarkdownView {
        paged,
        title: None,
        main: None,
    })
}

/// `text` paged as the request says; a budget too small for any line is an
/// error that says the smallest one that works.
pub fn paged_text(text: &str, req: &MarkdownRequest) -> Result<Paged, Error> {
    let paging = req.paging();
    let paged = page_lines(text, &paging);
    if paged.text.is_empty() && !text.is_empty() {
        let budget = paging.max_tokens.unwrap_or(0);
        let one = page_lines(
            text,
            &PageOptions {
                max_lines: 1,
                max_tokens: None,
                ..paging
            },
        );
        let needed = tokens::count(&one.text, paging.encoding);
        return Err(Error::BudgetTooSmall {
            what: format!("line {} with its note", paging.start_line.max(1)),
            needed,
            max_tokens: budget,
            advice: format!(
                "raise {}",
                Hint::Raise(Limit::MaxTokens, Some(needed)).spell(req.surface)
            ),
        });
    }
    Ok(paged)
}

/// Pages `content` by lines. See the module docs; page 1's indicator is the seed's:
/// `"\n\n---\n_Content truncated to first 200 lines. N more lines available._"`.
pub fn page_lines(content: &str, opts: &PageOptions) -> Paged {
    let lines = split_lines(content);
    let total = lines.len();
    let first_line = opts.start_line.max(1);
    let start = first_line - 1;

    if start > 0 && start >= total {
        let text = format!(
            "_Start line {first_line} is past the end: the content has {}._",
            plural(total, "line")
        );
        let mut paged = Paged {
            first_line,
            last_line: first_line - 1,
            ..Paged::whole(String::new(), total)
        };
        fit_or_empty(&mut paged, text, opts);
        return paged;
    }

    let end = if opts.max_lines == 0 {
        total
    } else {
        total.min(start + opts.max_lines)
    };
    let shown: Vec<Cow<'_, str>> = lines[start..end]
        .iter()
        .map(|l| cut_long_line(l, opts.max_line_chars))
        .collect();
    let trailing_newline = content.ends_with('\n');
    let render = |k: usize| {
        render_page(
            &shown[..k],
            start,
            total,
            opts.max_tokens,
            trailing_newline,
            opts.surface,
        )
    };

    // The common case: everything fits and nothing was cut; return the content as is.
    let untouched =
        start == 0 && end == total && shown.iter().all(|l| matches!(l, Cow::Borrowed(_)));
    let full = if untouched {
        content.to_owned()
    } else {
        render(shown.len())
    };
    let mut k = shown.len();
    let mut text = full;
    let mut tokens = None;
    if let Some(budget) = opts.max_tokens {
        let n = tokens::count(&text, opts.encoding);
        if n <= budget {
            tokens = Some(n);
        } else {
            match fit_lines(&shown, budget, opts.encoding, &render) {
                Some((best, best_text, best_tokens)) => {
                    k = best;
                    text = best_text;
                    tokens = Some(best_tokens);
                }
                None => {
                    k = 0;
                    text = String::new();
                    tokens = Some(0);
                }
            }
        }
    }

    let last_line = start + k;
    let truncated = last_line < total;
    Paged {
        text,
        total_lines: total,
        first_line,
        last_line,
        truncated,
        next_start_line: truncated.then_some(last_line + 1),
        long_lines_cut: shown[..k]
            .iter()
            .filter(|l| matches!(l, Cow::Owned(_)))
            .count(),
        tokens,
    }
}

/// Puts `text` into `paged` if it fits the token budget (else leaves it empty).
fn fit_or_empty(paged: &mut Paged, text: String, opts: &PageOptions) {
    match opts.max_tokens {
        None => paged.text = text,
        Some(budget) => {
            let n = tokens::count(&text, opts.encoding);
            if n <= budget {
                paged.text = text;
                paged.tokens = Some(n);
            } else {
                paged.tokens = Some(0);
            }
        }
    }
}

/// The `k` shown lines followed by the indicator for what is left.
/// `start` is the 0-based index of the first shown line.
fn render_page(
    shown: &[Cow<'_, str>],
    start: usize,
    total: usize,
    budget: Option<usize>,
    trailing_newline: bool,
    surface: Surface,
) -> String {
    let k = shown.len();
    let remaining = total - start - k;
    let mut out = String::new();
    for (i, line) in shown.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
    }
    if k == 0 {
        // Only reachable under a token budget too small for a single line.
        let budget = budget.map_or(String::new(), |b| format!(" in {b} tokens"));
        out.push_str(&format!(
            "_No line fits{budget}. {} available from line {}: raise {}._",
            plural(remaining, "line"),
            start + 1,
            Hint::Raise(Limit::MaxTokens, None).spell(surface)
        ));
    } else if start == 0 {
        if remaining > 0 {
            // Seed 002, byte for byte.
            out.push_str("\n\n---\n");
            out.push_str(&format!(
                "_Content truncated to first {k} lines. {remaining} more lines available._"
            ));
            out.push_str(&format!(
                "\n_To read on: {}._",
                Hint::StartLine(k + 1).spell(surface)
            ));
        } else if trailing_newline {
            // Everything shown; only long lines were cut (their markers say so).
            out.push('\n');
        }
    } else if remaining > 0 {
        out.push_str(&format!(
            "\n\n---\n_Showing lines {}–{} of {total}. {} available: use {}._",
            start + 1,
            start + k,
            plural(remaining, "more line"),
            Hint::StartLine(start + k + 1).spell(surface)
        ));
    } else {
        out.push_str(&format!(
            "\n\n---\n_Showing lines {}–{total} of {total} (end of content)._",
            start + 1
        ));
    }
    out
}

/// Largest number of shown lines whose rendering fits `budget` tokens, with that
/// rendering and its count; `None` if not even the zero-line notice fits.
///
/// Exact counts are taken only of candidate outputs (each about the budget's size);
/// a per-line estimate picks the first candidate for [`crate::fit`]'s search.
fn fit_lines(
    shown: &[Cow<'_, str>],
    budget: usize,
    enc: tokens::Encoding,
    render: &dyn Fn(usize) -> String,
) -> Option<(usize, String, usize)> {
    // Estimate: each line on its own, plus one for its line break, plus ~40 for the
    // indicator. Stop once the estimate is well past the budget.
    let mut estimate = 40;
    let mut guess = 0;
    for line in shown {
        estimate += tokens::count(line, enc) + 1;
        if estimate > budget {
            break;
        }
        guess += 1;
    }
    let attempt = |k: usize| {
        let text = render(k);
        let n = tokens::count(&text, enc);
        (n <= budget).then_some((text, n))
    };
    // All `shown.len()` lines did not fit: that is why we are here.
    let zero = attempt(0)?;
    let (k, (text, n)) = crate::fit::largest_fitting((0, zero), guess, shown.len(), attempt);
    Some((k, text, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    fn opts() -> PageOptions {
        PageOptions::default()
    }

    #[test]
    fn dispatch_follows_the_seed() {
        use Format::*;
        for req in [None, Some(Markdown), Some(Raw), Some(Base64)] {
            assert_eq!(choose_format("image/png", req), Base64);
            assert_eq!(choose_format("IMAGE/svg+xml; charset=utf-8", req), Base64);
            assert_eq!(choose_format("text/plain", req), Raw);
            assert_eq!(choose_format("text/css", req), Raw);
            assert_eq!(choose_format("application/json", req), Raw);
            assert_eq!(
                choose_format("application/ld+json; charset=utf-8", req),
                Raw
            );
            assert_eq!(choose_format("application/pdf", req), Base64);
            assert_eq!(choose_format("application/octet-stream", req), Base64);
            assert_eq!(choose_format("", req), Base64);
        }
        assert_eq!(choose_format("text/html; charset=utf-8", None), Markdown);
        assert_eq!(choose_format("Text/HTML", Some(Markdown)), Markdown);
        assert_eq!(choose_format("text/html", Some(Base64)), Markdown);
        assert_eq!(choose_format("text/html", Some(Raw)), Raw);
        assert_eq!(choose_format("application/xhtml+xml", None), Markdown);
        assert_eq!(choose_format("application/xhtml+xml", Some(Raw)), Raw);
    }

    #[test]
    fn format_names() {
        assert_eq!("RAW".parse::<Format>(), Ok(Format::Raw));
        assert_eq!("base64".parse::<Format>(), Ok(Format::Base64));
        assert!(
            "pdf"
                .parse::<Format>()
                .unwrap_err()
                .contains("markdown, raw or base64")
        );
        assert_eq!(Format::Markdown.to_string(), "markdown");
        assert_eq!(
            serde_json::to_string(&Format::Base64).unwrap(),
            "\"base64\""
        );
        assert_eq!(mime_essence(" Text/Html ; charset=x"), "text/html");
    }

    #[test]
    fn seed_indicator_is_byte_identical() {
        let content = numbered(500);
        let p = page_lines(&content, &opts());
        let expected_head: String = (1..=200)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(
            p.text,
            format!(
                "{expected_head}\n\n---\n_Content truncated to first 200 lines. 300 more lines available._\n_To read on: --start-line 201._"
            )
        );
        // Each surface says how to read on in its own words; the first
        // sentence stays the same everywhere.
        let mcp = page_lines(
            &content,
            &PageOptions {
                surface: Surface::Mcp,
                ..opts()
            },
        );
        assert!(mcp.text.ends_with(
            "_Content truncated to first 200 lines. 300 more lines available._\n_To read on: start_line: 201._"
        ));
        assert_eq!((p.total_lines, p.first_line, p.last_line), (500, 1, 200));
        assert!(p.truncated);
        assert_eq!(p.next_start_line, Some(201));
        assert_eq!(p.tokens, None);

        let p = page_lines(
            &numbered(12),
            &PageOptions {
                max_lines: 10,
                ..opts()
            },
        );
        assert!(p.text.ends_with(
            "line 10\n\n---\n_Content truncated to first 10 lines. 2 more lines available._\n_To read on: --start-line 11._"
        ));
    }

    #[test]
    fn short_content_is_returned_unchanged() {
        for content in ["", "one line", "a\nb\n", "a\r\nb\r\n\n\n", &numbered(200)] {
            let p = page_lines(content, &opts());
            assert_eq!(p.text, content);
            assert!(!p.truncated);
            assert_eq!(p.next_start_line, None);
        }
        // A final line break does not count as a line: 200 lines + "\n" fits exactly.
        assert_eq!(page_lines(&numbered(200), &opts()).total_lines, 200);
        // max_lines = 0 turns the limit off.
        let big = numbered(5000);
        assert_eq!(
            page_lines(
                &big,
                &PageOptions {
                    max_lines: 0,
                    ..opts()
                }
            )
            .text,
            big
        );
    }

    #[test]
    fn later_pages_name_the_next_start_line() {
        let content = numbered(950);
        let p = page_lines(
            &content,
            &PageOptions {
                start_line: 201,
                ..opts()
            },
        );
        assert!(p.text.starts_with("line 201\n"));
        assert!(p.text.ends_with(
            "line 400\n\n---\n_Showing lines 201–400 of 950. 550 more lines available: use --start-line 401._"
        ));
        assert_eq!(
            (p.first_line, p.last_line, p.next_start_line),
            (201, 400, Some(401))
        );

        let p = page_lines(
            &content,
            &PageOptions {
                start_line: 801,
                ..opts()
            },
        );
        assert!(
            p.text
                .ends_with("line 950\n\n---\n_Showing lines 801–950 of 950 (end of content)._")
        );
        assert!(!p.truncated);
        assert_eq!(p.next_start_line, None);

        let p = page_lines(
            &numbered(202),
            &PageOptions {
                start_line: 2,
                ..opts()
            },
        );
        assert!(
            p.text
                .ends_with("1 more line available: use --start-line 202._")
        );

        let p = page_lines(
            &content,
            &PageOptions {
                start_line: 951,
                ..opts()
            },
        );
        assert_eq!(
            p.text,
            "_Start line 951 is past the end: the content has 950 lines._"
        );
        assert_eq!((p.last_line, p.truncated), (950, false));

        // start_line 0 is taken as 1.
        assert_eq!(
            page_lines(
                &content,
                &PageOptions {
                    start_line: 0,
                    ..opts()
                }
            )
            .first_line,
            1
        );
    }

    #[test]
    fn long_lines_are_cut_with_a_marker() {
        let long = "é".repeat(14_345);
        let content = format!("short\n{long}\nend");
        let p = page_lines(&content, &opts());
        let expected = format!(
            "short\n{} …[line cut: 12,345 more chars]\nend",
            "é".repeat(2_000)
        );
        assert_eq!(p.text, expected);
        assert_eq!(p.long_lines_cut, 1);
        assert!(!p.truncated);
        // Turned off with 0.
        let p = page_lines(
            &content,
            &PageOptions {
                max_line_chars: 0,
                ..opts()
            },
        );
        assert_eq!(p.text, content);
        assert_eq!(group_thousands(1_234_567), "1,234,567");
        assert_eq!(group_thousands(999), "999");
    }

    #[test]
    fn token_budget_covers_the_whole_output() {
        let content = numbered(500);
        for budget in [60, 100, 333, 1000, 5000] {
            let o = PageOptions {
                max_tokens: Some(budget),
                ..opts()
            };
            let p = page_lines(&content, &o);
            let n = tokens::count(&p.text, o.encoding);
            assert!(n <= budget, "budget {budget}: {n} tokens");
            assert_eq!(p.tokens, Some(n));
            // Maximal: one more line would not fit (unless the line limit stopped us).
            if p.last_line < 200 {
                let bigger = page_lines(
                    &content,
                    &PageOptions {
                        max_lines: p.last_line + 1,
                        max_tokens: None,
                        ..o
                    },
                );
                assert!(
                    tokens::count(&bigger.text, o.encoding) > budget,
                    "budget {budget}"
                );
                assert!(p.text.ends_with(&format!(
                    "_Content truncated to first {} lines. {} more lines available._\n_To read on: --start-line {}._",
                    p.last_line,
                    500 - p.last_line,
                    p.last_line + 1
                )));
            }
            assert_eq!(p.next_start_line, Some(p.last_line + 1));
        }
        // A budget the content fits in leaves it untouched.
        let small = numbered(3);
        let p = page_lines(
            &small,
            &PageOptions {
                max_tokens: Some(1000),
                ..opts()
            },
        );
        assert_eq!((p.text.as_str(), p.truncated), (small.as_str(), false));
    }

    #[test]
    fn token_budget_on_later_pages_and_tiny_budgets() {
        let content = numbered(950);
        let o = PageOptions {
            start_line: 201,
            max_tokens: Some(120),
            ..opts()
        };
        let p = page_lines(&content, &o);
        assert!(tokens::count(&p.text, o.encoding) <= 120);
        assert!(p.text.starts_with("line 201\n"));
        assert!(
            p.text
                .ends_with(&format!("use --start-line {}._", p.last_line + 1))
        );

        // One huge first line: nothing fits, the notice says how to get it.
        let wide = format!("{}\nshort\n", "word ".repeat(300));
        let o = PageOptions {
            max_tokens: Some(40),
            max_line_chars: 0,
            ..opts()
        };
        let p = page_lines(&wide, &o);
        assert_eq!(
            p.text,
            "_No line fits in 40 tokens. 2 lines available from line 1: raise --max-tokens._"
        );
        assert_eq!((p.last_line, p.next_start_line), (0, Some(1)));

        // Too small even for the notice: empty, never over budget.
        let p = page_lines(
            &wide,
            &PageOptions {
                max_tokens: Some(3),
                ..o
            },
        );
        assert_eq!((p.text.as_str(), p.tokens), ("", Some(0)));
        let p = page_lines(
            &content,
            &PageOptions {
                start_line: 5000,
                max_tokens: Some(3),
                ..opts()
            },
        );
        assert_eq!(p.text, "");
    }

    #[test]
    fn raw_and_base64_are_never_truncated() {
        let content = numbered(1000);
        for format in [Format::Raw, Format::Base64] {
            let p = view(
                format,
                content.clone(),
                &PageOptions {
                    max_tokens: Some(10),
                    ..opts()
                },
            );
            assert_eq!(p.text, content);
            assert!(!p.truncated);
            assert_eq!(p.total_lines, 1000);
        }
        let p = view(Format::Markdown, content, &opts());
        assert!(p.truncated);
    }

    #[test]
    fn paged_serializes_for_json() {
        let p = page_lines(
            &numbered(3),
            &PageOptions {
                max_lines: 2,
                ..opts()
            },
        );
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(v["total_lines"], 3);
        assert_eq!(v["next_start_line"], 3);
        assert_eq!(v["truncated"], true);
    }
}
