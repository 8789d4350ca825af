//! What `webfold fetch` and `webfold markdown` show for a page or response:
//! which format, and which lines.
//!
//! The format: by default HTML becomes Markdown, other `text/*` and JSON are
//! shown raw, anything else (images, PDFs) as base64. Asking for a format
//! gets that format or a clear refusal: HTML can be shown raw or as base64,
//! text as base64 too, but only HTML converts to Markdown and a binary body
//! has no raw text. Raw and base64 output is never cut (the caller asked for
//! the bytes, or structured data must stay whole): one over the budget is
//! refused with the budget that takes it.
//!
//! Markdown is paged by lines (seed 002: the first 200, with the indicator
//! `_Content truncated to first 200 lines. N more lines available._`), and
//! within a token budget counted with the real tokenizer: the whole output,
//! indicator and any header the surface prints before it included. Whichever
//! limit cut the page, the indicator says so and how to get the rest (the line
//! to read on from, or the budget that shows more at once); every number it
//! gives works when pasted back. A guard cuts absurdly long lines (minified
//! blobs) that would otherwise eat a budget in one line. Pure: no I/O, so
//! every surface shares it.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::str::FromStr;

use crate::contract::{Ctx, DEFAULT_MAX_TOKENS, Hint, Limit, Request, Surface};
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

/// The format a body of media type `mime` is shown in, given what was
/// asked: see the module docs. `mime` may be a full `Content-Type` value (only
/// its essence is looked at); `None` is a page known to be HTML (a file, a
/// stored page). A format the body cannot be shown in is refused, saying
/// which it can, in `surface`'s words.
pub fn choose_format(
    mime: Option<&str>,
    requested: Option<Format>,
    surface: Surface,
) -> Result<Format, Error> {
    let essence = mime.map(mime_essence);
    let kind = essence.as_deref().unwrap_or("text/html");
    let html = kind == "text/html" || kind == "application/xhtml+xml";
    let text = !kind.starts_with("image/")
        && (kind.starts_with("text/") || kind == "application/json" || kind.ends_with("+json"));
    let default = if html {
        Format::Markdown
    } else if text {
        Format::Raw
    } else {
        Format::Base64
    };
    let Some(asked) = requested else {
        return Ok(default);
    };
    let fits = match asked {
        Format::Markdown => html,
        Format::Raw => html || text,
        Format::Base64 => true,
    };
    if fits {
        return Ok(asked);
    }
    let option = |f: Format| spell_format(f, surface);
    let why = if asked == Format::Markdown {
        "only HTML converts to Markdown"
    } else {
        "binary content has no raw text"
    };
    let other = if text { Format::Raw } else { Format::Base64 };
    Err(Error::InvalidOption(format!(
        "cannot show {kind} as {asked}: {why}; ask for {} (or leave out {} for {default})",
        option(other),
        crate::contract::parse::option_name("format", surface),
    )))
}

/// `format` set to `f` in `surface`'s words: `--format raw`, `format=raw`,
/// `format: "raw"`.
fn spell_format(f: Format, surface: Surface) -> String {
    match surface {
        Surface::Cli => format!("--format {f}"),
        Surface::Http => format!("format={f}"),
        Surface::Mcp | Surface::McpBrowser => format!("format: \"{f}\""),
    }
}

/// How much of a text to show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PageOptions {
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
    /// The text to show, indicator included. Not in the JSON: the envelope
    /// carries it (and a copy of a page's text into a JSON value would be
    /// thrown away there).
    #[serde(skip)]
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
    /// Exact token count of the output (`text` and the header a surface
    /// prints before it, if any), when fitting a token budget counted it:
    /// a text no longer in bytes than its budget is not counted here.
    pub tokens: Option<usize>,
    /// With no line shown: the smallest budget that shows one.
    #[serde(skip)]
    min_tokens: Option<usize>,
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
            min_tokens: None,
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
        }
    }
}

impl Request for MarkdownRequest {}

impl MarkdownRequest {
    /// How the text is paged.
    fn paging(&self, ctx: Ctx) -> PageOptions {
        PageOptions {
            max_lines: self.max_lines,
            start_line: self.start_line,
            max_tokens: self.max_tokens,
            encoding: ctx.encoding,
            surface: ctx.surface,
            ..PageOptions::default()
        }
    }

    /// `base_url`, else the page's own address.
    pub fn base(
        &self,
        page_url: Option<&str>,
        surface: Surface,
    ) -> Result<Option<url::Url>, Error> {
        match &self.base_url {
            Some(u) => url::Url::parse(u).map(Some).map_err(|_| {
                Error::InvalidOption(format!(
                    "invalid {} '{u}': give an absolute URL such as https://example.com/page",
                    crate::contract::parse::option_name("base_url", surface)
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
    /// What the text is: the page's Markdown, or its body raw or in base64.
    pub format: Format,
    #[serde(flatten)]
    pub paged: Paged,
    pub title: Option<String>,
    /// What extraction found, when `main` was asked for the whole page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub main: Option<MainContent>,
    /// What the surface prints before `paged.text` (see [`Frame`]); empty
    /// without one.
    #[serde(skip)]
    pub header: String,
}

/// What a surface prints before a view (a header naming the page, say),
/// given the page's title once known. Its tokens count against the budget,
/// and every budget an error or hint advises includes them.
pub type Frame<'a> = &'a dyn Fn(Option<&str>) -> String;

/// No header: the view is all that is printed.
pub fn no_frame(_: Option<&str>) -> String {
    String::new()
}

/// The page (its main content, or the subtree `selector` names) as paged
/// Markdown within the request's budget. `page_url` is where the page came
/// from, for relative links.
pub fn markdown(
    page: &Page,
    req: &MarkdownRequest,
    page_url: Option<&str>,
    ctx: Ctx,
) -> Result<MarkdownView, Error> {
    markdown_framed(page, req, page_url, &no_frame, ctx)
}

/// [`markdown`] after what the surface prints before it (`frame`).
pub fn markdown_framed(
    page: &Page,
    req: &MarkdownRequest,
    page_url: Option<&str>,
    frame: Frame<'_>,
    ctx: Ctx,
) -> Result<MarkdownView, Error> {
    let opts = crate::markdown::MarkdownOptions {
        base_url: req.base(page_url, ctx.surface)?,
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
    let header = frame(title.as_deref());
    let paged = paged_text(&header, &text, req, ctx)?;
    Ok(MarkdownView {
        format: Format::Markdown,
        paged,
        title,
        main,
        header,
    })
}

/// A fetched body shown as `format` (see [`choose_format`]): `content` is
/// the body as text for Markdown (HTML) and raw, its base64 for base64.
/// Markdown is the page's Markdown view; raw and base64 are shown whole,
/// never cut, and one over the budget is refused with the budget that takes
/// it. `frame` is what the surface prints before the view.
pub fn fetched(
    format: Format,
    content: String,
    page_url: Option<&str>,
    req: &MarkdownRequest,
    frame: Frame<'_>,
    ctx: Ctx,
) -> Result<MarkdownView, Error> {
    match format {
        Format::Markdown => {
            let page = Page::parse(&content);
            markdown_framed(&page, req, page_url, frame, ctx)
        }
        Format::Raw | Format::Base64 => whole(
            format,
            format!("the response as {format} (never cut)"),
            content,
            (req, ctx),
            frame(None),
        ),
    }
}

/// A parsed HTML page shown as the request's format asks: its Markdown view,
/// or its HTML (`source` when the surface has the page's own text, else the
/// page serialized) whole, as is or in base64.
pub fn page_as(
    page: &Page,
    source: Option<&str>,
    page_url: Option<&str>,
    req: &MarkdownRequest,
    ctx: Ctx,
) -> Result<MarkdownView, Error> {
    let format = choose_format(None, req.format, ctx.surface)?;
    if format == Format::Markdown {
        return markdown(page, req, page_url, ctx);
    }
    let html = match source {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(page.outer_html(NodeId::DOCUMENT)),
    };
    let content = match format {
        Format::Base64 => base64(html.as_bytes()),
        _ => html.into_owned(),
    };
    whole(
        format,
        format!("the page as {format} (never cut)"),
        content,
        (req, ctx),
        String::new(),
    )
}

/// `bytes` as `format=base64` shows them (standard alphabet, padded).
pub fn base64(bytes: &[u8]) -> String {
    use ::base64::Engine as _;
    ::base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// `content` whole after `header`, or the error that names the budget it takes.
fn whole(
    format: Format,
    what: String,
    content: String,
    (req, ctx): (&MarkdownRequest, Ctx),
    header: String,
) -> Result<MarkdownView, Error> {
    let mut tokens = None;
    if let Some(budget) = req.max_tokens
        && !tokens::fits_by_bytes(header.len() + content.len(), budget)
    {
        let n = tokens::count(&after(&header, &content), ctx.encoding);
        if n > budget {
            return Err(Error::BudgetTooSmall {
                what,
                needed: n,
                max_tokens: budget,
                advice: format!(
                    "raise {}",
                    Hint::Raise(Limit::MaxTokens, Some(n)).spell(ctx.surface)
                ),
            });
        }
        tokens = Some(n);
    }
    let total = line_count(&content);
    let mut paged = Paged::whole(content, total);
    paged.tokens = tokens;
    Ok(MarkdownView {
        format,
        paged,
        title: None,
        main: None,
        header,
    })
}

/// `text` as printed after `header`: counted together, as a token can span
/// where one ends and the other begins.
fn after<'t>(header: &str, text: &'t str) -> Cow<'t, str> {
    if header.is_empty() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("{header}{text}"))
    }
}

/// `text` paged as the request says, after `header`; a budget too small for
/// any line is an error that says the smallest one that shows one.
fn paged_text(header: &str, text: &str, req: &MarkdownRequest, ctx: Ctx) -> Result<Paged, Error> {
    let paging = req.paging(ctx);
    let paged = page_after(header, text, &paging);
    if paged.text.is_empty() && !text.is_empty() {
        let needed = paged.min_tokens.unwrap_or(0);
        return Err(Error::BudgetTooSmall {
            what: format!("line {} with its note", paging.start_line.max(1)),
            needed,
            max_tokens: paging.max_tokens.unwrap_or(0),
            advice: format!(
                "raise {}",
                Hint::Raise(Limit::MaxTokens, Some(needed)).spell(ctx.surface)
            ),
        });
    }
    Ok(paged)
}

/// Pages `content`, printed after `header`, by lines: every count, and so
/// the budget and the numbers the indicator advises, covers the header too.
/// See the module docs; page 1's indicator is
/// `"\n\n---\n_Content truncated to first 200 lines. N more lines available._"`.
fn page_after(header: &str, content: &str, opts: &PageOptions) -> Paged {
    let lines = split_lines(content);
    let total = lines.len();
    let first_line = opts.start_line.max(1);
    let start = first_line - 1;
    // Every rendering counted repeats the lines of the one before.
    let memo = RefCell::new(tokens::Memo::new(opts.encoding));
    let count = |text: &str| memo.borrow_mut().count(&after(header, text));

    if start > 0 && start >= total {
        return past_the_end(first_line, total, opts, &count);
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
    let page = PageText {
        shown: &shown,
        start,
        total,
        trailing_newline,
        surface: opts.surface,
    };

    // The common case: everything fits and nothing was cut; return the content as is.
    let untouched =
        start == 0 && end == total && shown.iter().all(|l| matches!(l, Cow::Borrowed(_)));
    let full = if untouched {
        content.to_owned()
    } else {
        page.render(shown.len(), Cut::Lines)
    };
    let (k, text, tokens, min_tokens) = match opts.max_tokens {
        // A text that fits by its bytes is counted only if its count is read.
        Some(budget) if !tokens::fits_by_bytes(header.len() + full.len(), budget) => {
            within_budget(&page, full, budget, opts.encoding, &count)
        }
        _ => (shown.len(), full, None, None),
    };

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
        min_tokens,
    }
}

/// The page for a start line past the end of the content: a note saying
/// so, when the budget has room for it.
fn past_the_end(
    first_line: usize,
    total: usize,
    opts: &PageOptions,
    count: &dyn Fn(&str) -> usize,
) -> Paged {
    let text = format!(
        "_Start line {first_line} is past the end: the content has {}._",
        plural(total, "line")
    );
    let mut paged = Paged {
        first_line,
        last_line: first_line - 1,
        ..Paged::whole(String::new(), total)
    };
    let n = count(&text);
    match opts.max_tokens {
        Some(budget) if n > budget => {
            paged.tokens = Some(0);
            paged.min_tokens = Some(n);
        }
        Some(_) => (paged.text, paged.tokens) = (text, Some(n)),
        None => paged.text = text,
    }
    paged
}

/// The most lines of `page` whose rendering (`full` shows them all) fits
/// `budget`: how many, the text, its tokens, and, when not even one line
/// fits, the smallest budget that shows one.
fn within_budget(
    page: &PageText<'_>,
    full: String,
    budget: usize,
    enc: tokens::Encoding,
    count: &dyn Fn(&str) -> usize,
) -> (usize, String, Option<usize>, Option<usize>) {
    let shown = page.shown;
    let n = count(&full);
    if n <= budget {
        return (shown.len(), full, Some(n), None);
    }
    // Over budget: `n` is the budget that shows every line asked for.
    let cut = Cut::Tokens { raise: n };
    // The smallest budget that shows a line: the first line and its note.
    // (All of them, when that is shorter than one line and its note.)
    let one = if shown.len() > 1 {
        count(&page.render(1, cut)).min(n)
    } else {
        n
    };
    let zero = Cut::NoLine { budget, raise: one };
    let attempt = |k: usize| {
        let text = match k {
            0 => page.render(0, zero),
            k => page.render(k, cut),
        };
        let n = count(&text);
        (n <= budget).then_some((text, n))
    };
    match fit_lines(shown, budget, enc, attempt) {
        Some((0, text, tokens)) => (0, text, Some(tokens), Some(one)),
        Some((k, text, tokens)) => (k, text, Some(tokens), None),
        None => (0, String::new(), Some(0), Some(one)),
    }
}

/// Which limit ended a page, for its indicator.
#[derive(Clone, Copy)]
enum Cut {
    /// The line limit, or the end of the content.
    Lines,
    /// The token budget; `raise` is the budget that shows every line asked for.
    Tokens { raise: usize },
    /// Not one line fits `budget`; `raise` is the budget that shows one.
    NoLine { budget: usize, raise: usize },
}

/// The lines a page may show, and where they sit in the content.
struct PageText<'a> {
    shown: &'a [Cow<'a, str>],
    /// 0-based index of the first shown line.
    start: usize,
    total: usize,
    trailing_newline: bool,
    surface: Surface,
}

impl PageText<'_> {
    /// The first `k` lines followed by the indicator for what is left.
    fn render(&self, k: usize, cut: Cut) -> String {
        let (start, total, surface) = (self.start, self.total, self.surface);
        let remaining = total - start - k;
        let mut out = String::new();
        for (i, line) in self.shown[..k].iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(line);
        }
        let read_on = Hint::StartLine(start + k + 1).spell(surface);
        // The last line the line limit lets a page show.
        let through = start + self.shown.len();
        let raise = |to: usize| Hint::Raise(Limit::MaxTokens, Some(to)).spell(surface);
        if k == 0 {
            // Only reachable under a token budget too small for a single line.
            let (budget, to) = match cut {
                Cut::NoLine { budget, raise } => (format!(" in {budget} tokens"), raise),
                _ => (String::new(), 0),
            };
            out.push_str(&format!(
                "_No line fits{budget}. {} available from line {}: raise {}._",
                plural(remaining, "line"),
                start + 1,
                raise(to)
            ));
        } else if start == 0 {
            if remaining > 0 {
                // Seed 002, byte for byte.
                out.push_str("\n\n---\n");
                out.push_str(&format!(
                    "_Content truncated to first {k} lines. {remaining} more lines available._"
                ));
                match cut {
                    Cut::Tokens { raise: to } => out.push_str(&format!(
                        "\n_Cut to fit the token budget. To read on: {read_on}; to show through line {through} at once: {}._",
                        raise(to)
                    )),
                    _ => out.push_str(&format!("\n_To read on: {read_on}._")),
                }
            } else if self.trailing_newline {
                // Everything shown; only long lines were cut (their markers say so).
                out.push('\n');
            }
        } else if remaining > 0 {
            out.push_str(&format!(
                "\n\n---\n_Showing lines {}–{} of {total}. {} available: use {read_on}._",
                start + 1,
                start + k,
                plural(remaining, "more line"),
            ));
            if let Cut::Tokens { raise: to } = cut {
                out.push_str(&format!(
                    "\n_Cut to fit the token budget; to show through line {through} at once: {}._",
                    raise(to)
                ));
            }
        } else {
            out.push_str(&format!(
                "\n\n---\n_Showing lines {}–{total} of {total} (end of content)._",
                start + 1
            ));
        }
        out
    }
}

/// Largest number of shown lines whose rendering fits `budget` tokens, with that
/// rendering and its count; `None` if neither the zero-line notice nor one line fits.
///
/// Exact counts are taken only of candidate outputs (each about the budget's size);
/// a per-line estimate picks the first candidate for [`crate::fit`]'s search.
fn fit_lines(
    shown: &[Cow<'_, str>],
    budget: usize,
    enc: tokens::Encoding,
    mut attempt: impl FnMut(usize) -> Option<(String, usize)>,
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
    // All `shown.len()` lines did not fit: that is why we are here. The
    // zero-line notice may be longer than one short line with its note.
    let known = match attempt(0) {
        Some(zero) => (0, zero),
        None if shown.len() > 1 => (1, attempt(1)?),
        None => return None,
    };
    let (k, (text, n)) = crate::fit::largest_fitting(known, guess, shown.len(), attempt);
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
    fn a_format_asked_for_is_given_or_refused() {
        use Format::*;
        let c = |mime: Option<&str>, req| choose_format(mime, req, Surface::Cli);
        // What each body is shown as by default.
        for (mime, default) in [
            (Some("text/html; charset=utf-8"), Markdown),
            (Some("Text/HTML"), Markdown),
            (Some("application/xhtml+xml"), Markdown),
            (None, Markdown),
            (Some("text/plain"), Raw),
            (Some("text/css"), Raw),
            (Some("application/json"), Raw),
            (Some("application/ld+json; charset=utf-8"), Raw),
            (Some("image/png"), Base64),
            (Some("IMAGE/svg+xml; charset=utf-8"), Base64),
            (Some("application/pdf"), Base64),
            (Some("application/octet-stream"), Base64),
            (Some(""), Base64),
        ] {
            assert_eq!(c(mime, None), Ok(default), "{mime:?}");
            assert_eq!(c(mime, Some(default)), Ok(default), "{mime:?}");
            // Any body can be shown as base64.
            assert_eq!(c(mime, Some(Base64)), Ok(Base64), "{mime:?}");
        }
        assert_eq!(c(Some("text/html"), Some(Raw)), Ok(Raw));
        assert_eq!(c(None, Some(Raw)), Ok(Raw));
        // What cannot be done is refused, saying what can.
        let e = c(Some("image/png"), Some(Raw)).unwrap_err().to_string();
        assert_eq!(
            e,
            "cannot show image/png as raw: binary content has no raw text; ask for --format base64 (or leave out --format for base64)"
        );
        let e = c(Some("application/json"), Some(Markdown))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("only HTML converts to Markdown; ask for --format raw"),
            "{e}"
        );
        let e = choose_format(Some("image/png"), Some(Markdown), Surface::Mcp)
            .unwrap_err()
            .to_string();
        assert!(e.contains("ask for format: \"base64\""), "{e}");
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
        let p = page_after("", &content, &opts());
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
        let mcp = page_after(
            "",
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

        let p = page_after(
            "",
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
            let p = page_after("", content, &opts());
            assert_eq!(p.text, content);
            assert!(!p.truncated);
            assert_eq!(p.next_start_line, None);
        }
        // A final line break does not count as a line: 200 lines + "\n" fits exactly.
        assert_eq!(page_after("", &numbered(200), &opts()).total_lines, 200);
        // max_lines = 0 turns the limit off.
        let big = numbered(5000);
        assert_eq!(
            page_after(
                "",
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
        let p = page_after(
            "",
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

        let p = page_after(
            "",
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

        let p = page_after(
            "",
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

        let p = page_after(
            "",
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
            page_after(
                "",
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
        let p = page_after("", &content, &opts());
        let expected = format!(
            "short\n{} …[line cut: 12,345 more chars]\nend",
            "é".repeat(2_000)
        );
        assert_eq!(p.text, expected);
        assert_eq!(p.long_lines_cut, 1);
        assert!(!p.truncated);
        // Turned off with 0.
        let p = page_after(
            "",
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
            let p = page_after("", &content, &o);
            let n = tokens::count(&p.text, o.encoding);
            assert!(n <= budget, "budget {budget}: {n} tokens");
            match p.tokens {
                Some(counted) => assert_eq!(counted, n),
                None => assert!(p.text.len() <= budget, "uncounted past its budget's bytes"),
            }
            // Maximal: one more line would not fit (unless the line limit stopped us).
            if p.last_line < 200 {
                // The token budget cut: it says so, and the budget that
                // shows every line the line limit allows, which works.
                let all = PageOptions {
                    max_tokens: None,
                    ..o
                };
                let raise = tokens::count(&page_after("", &content, &all).text, o.encoding);
                let cut_at = |k: usize| {
                    let lines: Vec<String> = (1..=k).map(|i| format!("line {i}")).collect();
                    format!(
                        "{}\n\n---\n_Content truncated to first {k} lines. {} more lines available._\n_Cut to fit the token budget. To read on: --start-line {}; to show through line 200 at once: --max-tokens {raise}._",
                        lines.join("\n"),
                        500 - k,
                        k + 1
                    )
                };
                assert_eq!(p.text, cut_at(p.last_line));
                assert!(
                    tokens::count(&cut_at(p.last_line + 1), o.encoding) > budget,
                    "budget {budget}"
                );
                let raised = page_after(
                    "",
                    &content,
                    &PageOptions {
                        max_tokens: Some(raise),
                        ..o
                    },
                );
                assert_eq!(raised.last_line, 200);
            } else {
                assert!(p.text.ends_with("_To read on: --start-line 201._"));
            }
            assert_eq!(p.next_start_line, Some(p.last_line + 1));
        }
        // A budget the content fits in leaves it untouched.
        let small = numbered(3);
        let p = page_after(
            "",
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
        let p = page_after("", &content, &o);
        assert!(tokens::count(&p.text, o.encoding) <= 120);
        assert!(p.text.starts_with("line 201\n"));
        assert!(
            p.text.contains(&format!(
                "available: use --start-line {}._\n_Cut to fit the token budget; to show through line 400 at once: --max-tokens ",
                p.last_line + 1
            )),
            "{}",
            p.text
        );

        // One huge first line: nothing fits, the notice says how to get it.
        let wide = format!("{}\nshort\n", "word ".repeat(300));
        let o = PageOptions {
            max_tokens: Some(40),
            max_line_chars: 0,
            ..opts()
        };
        let p = page_after("", &wide, &o);
        let raise: usize = p
            .text
            .strip_prefix(
                "_No line fits in 40 tokens. 2 lines available from line 1: raise --max-tokens ",
            )
            .and_then(|t| t.strip_suffix("._"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{}", p.text));
        assert_eq!((p.last_line, p.next_start_line), (0, Some(1)));
        // The advised budget shows the line.
        let p = page_after(
            "",
            &wide,
            &PageOptions {
                max_tokens: Some(raise),
                ..o
            },
        );
        assert!(p.last_line >= 1, "{}", p.text);
        assert!(p.tokens.is_some_and(|n| n <= raise), "{}", p.text);

        // Too small even for the notice: empty, never over budget.
        let p = page_after(
            "",
            &wide,
            &PageOptions {
                max_tokens: Some(3),
                ..o
            },
        );
        assert_eq!((p.text.as_str(), p.tokens), ("", Some(0)));
        let p = page_after(
            "",
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
        let req = |max_tokens| MarkdownRequest {
            max_tokens,
            ..MarkdownRequest::default()
        };
        let header = |_: Option<&str>| "URL: x\n\n".to_string();
        for format in [Format::Raw, Format::Base64] {
            let v = fetched(
                format,
                content.clone(),
                None,
                &req(None),
                &header,
                crate::contract::Ctx::default(),
            )
            .unwrap();
            assert_eq!(v.paged.text, content);
            assert!(!v.paged.truncated);
            assert_eq!(v.paged.total_lines, 1000);
            // Over the budget: refused with the budget that takes it, header included.
            let needed = tokens::count(&format!("URL: x\n\n{content}"), Default::default());
            match fetched(
                format,
                content.clone(),
                None,
                &req(Some(10)),
                &header,
                crate::contract::Ctx::default(),
            ) {
                Err(Error::BudgetTooSmall { needed: n, .. }) => assert_eq!(n, needed),
                other => panic!("{other:?}"),
            }
            let v = fetched(
                format,
                content.clone(),
                None,
                &req(Some(needed)),
                &header,
                crate::contract::Ctx::default(),
            )
            .unwrap();
            assert_eq!(
                (v.paged.tokens, v.header.as_str()),
                (Some(needed), "URL: x\n\n")
            );
        }
    }

    #[test]
    fn paged_serializes_for_json() {
        let p = page_after(
            "",
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
