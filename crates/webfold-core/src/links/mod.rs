//! The links view: every link on the page with its text, absolute URL and
//! the landmark it sits in, the same link repeated folded into one line with
//! a count, the main content's links first, within a token budget.
//!
//! Agents ask for "the privacy policy", "the next page", "log in": links
//! that page furniture holds and that a budgeted snapshot or CNT may cut.
//! One line per distinct link costs a few tokens, so a whole site's links
//! fit where its markup does not.

use serde_json::json;

use crate::Error;
use crate::contract::{Ctx, DEFAULT_MAX_TOKENS, Hint, Limit, Request, Surface, ViewName};
use crate::extract::{ExtractOptions, extract};
use crate::page::{NodeId, Page};
use crate::tokens;
use crate::view::{Envelope, Input, View};

pub const NAME: ViewName = ViewName::new("links", "page_links");

/// Characters of a link's text shown before it is cut with `…`.
const TEXT_CHARS: usize = 80;

/// The links view's request (see [`crate::contract`]).
#[derive(
    Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct LinksOptions {
    /// URL that relative links resolve against (default: the page's)
    pub base_url: Option<String>,
    /// First link to show (1-based)
    #[schemars(range(min = 1))]
    pub start_line: usize,
    /// Token budget
    #[schemars(range(min = 1))]
    pub max_tokens: usize,
}

impl Default for LinksOptions {
    fn default() -> Self {
        LinksOptions {
            base_url: None,
            start_line: 1,
            max_tokens: DEFAULT_MAX_TOKENS,
        }
    }
}

impl Request for LinksOptions {}

/// One distinct link.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Link {
    pub text: String,
    /// Absolute when the page's address (or a base URL) is known.
    pub url: String,
    /// The ARIA landmark it sits in: main, navigation, banner, contentinfo,
    /// complementary, search, or none.
    pub landmark: &'static str,
    /// The first element with this text and URL.
    pub node_id: NodeId,
    /// How many times the page has it.
    pub count: usize,
}

/// The links of a page, as shown.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Links {
    pub text: String,
    pub tokens: usize,
    /// Link elements on the page.
    pub total: usize,
    /// Distinct links (text and URL).
    pub distinct: usize,
    /// 1-based place of the first link shown.
    pub first: usize,
    pub links: Vec<Link>,
    /// Where the next links start, when some were left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start_line: Option<usize>,
}

pub struct LinksView;

impl View for LinksView {
    type Request = LinksOptions;
    type Output = Links;
    const NAME: ViewName = NAME;
    const ABOUT: &'static str =
        "List the page's links: text, absolute URL and landmark, main content first";
    const HELP: &'static str = "\
One line per distinct link, `[text](url) landmark`, with `×N` when the page
has it N times. The main content's links come first, then the rest of the
main landmark, then the page, then navigation, header, footer and sidebars;
each group in document order. Over --max-tokens, the last line says where
to read on.";
    const EXAMPLES: &'static str = "\
webfold links page.html
webfold links https://example.com/blog --max-tokens 1000
webfold links page.html --base-url https://example.com/ --start-line 41";
    const TOOL: &'static str = "A page's links: text, absolute URL, landmark; main content first.";
    const ARTICLE: Option<&'static str> = Some("a list of links");
    const READING: Option<&'static str> = Some(
        "one line per distinct link, \"[text](url) landmark\", \"×N\" when the page has it N times; the main content's links first, then navigation, header, footer and sidebars. Pass get_html_chunk a selector such as a[href*=\"…\"] with part of a link's URL to read its HTML and what is around it.",
    );

    fn hints() -> Vec<Hint> {
        vec![Hint::StartLine(41), Hint::Raise(Limit::MaxTokens, None)]
    }

    fn run(request: &LinksOptions, ctx: Ctx, input: &mut Input<'_>) -> Result<Links, Error> {
        links(input.parsed()?, input.url(), request, ctx)
    }

    fn envelope(request: &LinksOptions, _: Ctx, out: Links) -> Envelope {
        let hints: Vec<Hint> = out
            .next_start_line
            .map(Hint::StartLine)
            .into_iter()
            .collect();
        let cut = !hints.is_empty() || out.first > 1;
        let note = format!(
            "links {}–{} of {}",
            out.first,
            out.first + out.links.len().saturating_sub(1),
            out.distinct
        );
        let mut envelope = Envelope::new(NAME, out.text.clone(), out.tokens, &out)
            .budget(Some(request.max_tokens))
            .cut(cut, hints)
            .note(note);
        envelope
            .data
            .insert("base_url".into(), json!(request.base_url));
        envelope
    }
}

/// The links of `page` at `page_url`, within the request's budget.
pub fn links(
    page: &Page,
    page_url: Option<&str>,
    opts: &LinksOptions,
    ctx: Ctx,
) -> Result<Links, Error> {
    let base = base_url(page, page_url, opts, ctx.surface)?;
    let all = collect(page, base.as_ref());
    let total = all.iter().map(|l| l.count).sum();
    let distinct = all.len();
    let first = opts.start_line.max(1);
    if first > distinct.max(1) {
        return Err(Error::InvalidOption(format!(
            "{} is past the last link ({distinct}): give a number from 1 to {}",
            crate::contract::parse::option_name("start_line", ctx.surface),
            distinct.max(1)
        )));
    }
    let rest = &all[first - 1..];
    let lines: Vec<String> = rest.iter().map(line).collect();
    let render = |k: usize| -> String {
        let mut text = header(total, distinct, first, k);
        for l in &lines[..k] {
            text.push_str(l);
            text.push('\n');
        }
        if k < rest.len() {
            let spelled = Hint::StartLine(first + k).spell(ctx.surface);
            text.push_str(&format!("# {} more links: {spelled}\n", rest.len() - k));
        }
        text
    };
    // Each rendering counted repeats the lines of the one before.
    let mut memo = tokens::Memo::new(ctx.encoding);
    let mut fits = |k: usize| {
        let text = render(k);
        let n = memo.count(&text);
        (n <= opts.max_tokens).then_some((text, n))
    };
    let Some(none) = fits(0) else {
        let needed = tokens::count(&render(0), ctx.encoding);
        return Err(Error::BudgetTooSmall {
            what: "the links view".into(),
            needed,
            max_tokens: opts.max_tokens,
            advice: format!(
                "raise {}",
                Hint::Raise(Limit::MaxTokens, Some(needed)).spell(ctx.surface)
            ),
        });
    };
    let guess = opts.max_tokens / 16;
    let (k, (text, tokens)) = crate::fit::largest_fitting((0, none), guess, rest.len() + 1, fits);
    Ok(Links {
        text,
        tokens,
        total,
        distinct,
        first,
        links: rest[..k].to_vec(),
        next_start_line: (k < rest.len()).then_some(first + k),
    })
}

fn header(total: usize, distinct: usize, first: usize, shown: usize) -> String {
    if first == 1 && shown == distinct {
        format!("# {total} links, {distinct} distinct; main content first\n")
    } else {
        let last = first + shown.saturating_sub(1);
        format!(
            "# links {first}–{last} of {distinct} distinct ({total} in all); main content first\n"
        )
    }
}

fn line(l: &Link) -> String {
    let mut s = format!("[{}]({}) {}", l.text, l.url, l.landmark);
    if l.count > 1 {
        s.push_str(&format!(" ×{}", l.count));
    }
    s
}

/// `base_url`, else the page's `<base href>` against its address, else its address.
fn base_url(
    page: &Page,
    page_url: Option<&str>,
    opts: &LinksOptions,
    surface: Surface,
) -> Result<Option<url::Url>, Error> {
    if let Some(u) = &opts.base_url {
        return url::Url::parse(u).map(Some).map_err(|_| {
            Error::InvalidOption(format!(
                "invalid {} '{u}': give an absolute URL such as https://example.com/page",
                crate::contract::parse::option_name("base_url", surface)
            ))
        });
    }
    let address = page_url.and_then(|u| url::Url::parse(u).ok());
    let base_href = page
        .select_first(&crate::select::Selector::parse("base[href]")?)
        .and_then(|b| page.element(b)?.attr("href").map(str::to_string));
    Ok(match (base_href, &address) {
        (Some(href), Some(a)) => a.join(&href).ok().or(address),
        (Some(href), None) => url::Url::parse(&href).ok(),
        (None, _) => address,
    })
}

/// Every distinct rendered link, ranked, with its count.
fn collect(page: &Page, base: Option<&url::Url>) -> Vec<Link> {
    let main = extract(page, &ExtractOptions::default());
    let article = main.fallback.is_none();
    let mut found: Vec<(u8, Link)> = Vec::new();
    // Each text and address once, by a hash of the pair: the pair as the
    // key held a copy of every link's text and address.
    let mut seen: std::collections::HashMap<u64, usize> = Default::default();
    for i in 0..page.len() {
        let id = NodeId::new(i as u32);
        let Some(el) = page.element(id) else { continue };
        // A link no one sees is no way a person can go.
        if !matches!(el.local_name(), "a" | "area") || !page.is_seen(id) {
            continue;
        }
        let Some(href) = el.attr("href").map(str::trim) else {
            continue;
        };
        // `#` and `javascript:` links run scripts: there is nowhere to go.
        if href.is_empty() || href == "#" || href.to_ascii_lowercase().starts_with("javascript:") {
            continue;
        }
        let url = match base {
            Some(b) => b.join(href).map_or_else(|_| href.to_string(), String::from),
            None => href.to_string(),
        };
        let text = link_text(page, id);
        let key = pair_hash(&text, &url);
        if let Some(&at) = seen.get(&key) {
            let link = &mut found[at].1;
            if link.text == text && link.url == url {
                link.count += 1;
                continue;
            }
        }
        let landmark = landmark(page, id);
        let rank = if article && main.is_kept(page, id) {
            0
        } else {
            match landmark {
                "main" => 1,
                "none" => 2,
                _ => 3,
            }
        };
        seen.entry(key).or_insert(found.len());
        found.push((
            rank,
            Link {
                text,
                url,
                landmark,
                node_id: id,
                count: 1,
            },
        ));
    }
    drop(seen);
    // Stable: each rank keeps document order.
    found.sort_by_key(|(rank, _)| *rank);
    found.into_iter().map(|(_, l)| l).collect()
}

fn pair_hash(text: &str, url: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (text, url).hash(&mut h);
    h.finish()
}

/// What the link says: its words, else its label, title or image's alt.
fn link_text(page: &Page, id: NodeId) -> String {
    let words = collapse(&seen_words(page, id));
    let el = page.element(id);
    let text = if !words.is_empty() {
        words
    } else if let Some(label) = el.and_then(|e| e.attr("aria-label").or(e.attr("title"))) {
        collapse(label)
    } else {
        page.descendants(id)
            .filter(|&d| page.tag(d) == Some("img"))
            .find_map(|d| page.element(d)?.attr("alt").map(collapse))
            .unwrap_or_default()
    };
    let mut cut: String = text.chars().take(TEXT_CHARS).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    // Brackets would end the link text early.
    cut.replace('[', "(").replace(']', ")")
}

/// The link's text but the words no one sees ([`Page::unseen`]).
fn seen_words(page: &Page, id: NodeId) -> String {
    let mut out = String::new();
    for n in page.subtree(id) {
        if let Some(t) = page.text(n)
            && page.unseen(n).is_none()
        {
            out.push_str(t);
        }
    }
    out
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The innermost landmark around `id`, by tag or role.
fn landmark(page: &Page, id: NodeId) -> &'static str {
    for a in page.ancestors(id) {
        let Some(el) = page.element(a) else { continue };
        let by_role = match el.attr("role") {
            Some("main") => Some("main"),
            Some("navigation") => Some("navigation"),
            Some("banner") => Some("banner"),
            Some("contentinfo") => Some("contentinfo"),
            Some("complementary") => Some("complementary"),
            Some("search") => Some("search"),
            _ => None,
        };
        let found = by_role.or(match el.local_name() {
            "main" => Some("main"),
            "nav" => Some("navigation"),
            "aside" => Some("complementary"),
            "search" => Some("search"),
            // Header and footer are page landmarks only outside sectioning content.
            "header" | "footer" if !in_section(page, a) => Some(if el.local_name() == "header" {
                "banner"
            } else {
                "contentinfo"
            }),
            _ => None,
        });
        if let Some(l) = found {
            return l;
        }
    }
    "none"
}

fn in_section(page: &Page, id: NodeId) -> bool {
    page.ancestors(id).any(|a| {
        matches!(
            page.tag(a),
            Some("article" | "aside" | "main" | "nav" | "section")
        )
    })
}
