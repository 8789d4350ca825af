//! Title, byline and date: JSON-LD first (publishers fill it for search
//! engines), then meta tags, then markup in the page.

use crate::NodeId;
use crate::page::{Page, collapse_whitespace};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    pub title: Option<String>,
    pub byline: Option<String>,
    /// Publication date; ISO dates are cut to `YYYY-MM-DD`.
    pub date: Option<String>,
    pub site_name: Option<String>,
}

/// Schema.org types whose `headline`/`author`/`datePublished` describe the page's article.
fn is_article_type(t: &str) -> bool {
    t.ends_with("Article")
        || matches!(
            t,
            "BlogPosting"
                | "Report"
                | "Review"
                | "LiveBlogPosting"
                | "SocialMediaPosting"
                | "Recipe"
                | "WebPage"
                | "QAPage"
                | "HowTo"
        )
}

#[derive(Default)]
struct JsonLd {
    headline: Option<String>,
    author: Option<String>,
    date: Option<String>,
    publisher: Option<String>,
}

fn json_str(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(collapse_whitespace(s)).filter(|s| !s.is_empty()),
        _ => None,
    }
}

/// Names of `author` values: a string, a Person, or a list of them.
fn json_names(v: &serde_json::Value) -> Option<String> {
    let names: Vec<String> = match v {
        serde_json::Value::Array(a) => a.iter().filter_map(json_name).collect(),
        other => json_name(other).into_iter().collect(),
    };
    (!names.is_empty()).then(|| names.join(", "))
}

fn json_name(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => {
            json_str(&serde_json::Value::String(s.clone())).filter(|s| !is_url(s))
        }
        serde_json::Value::Object(o) => o.get("name").and_then(json_str),
        _ => None,
    }
}

fn type_matches(o: &serde_json::Map<String, serde_json::Value>) -> bool {
    match o.get("@type") {
        Some(serde_json::Value::String(t)) => is_article_type(t),
        Some(serde_json::Value::Array(a)) => {
            a.iter().any(|t| t.as_str().is_some_and(is_article_type))
        }
        _ => false,
    }
}

fn read_json_ld(page: &Page) -> JsonLd {
    let mut out = JsonLd::default();
    for n in page.descendants(NodeId::DOCUMENT) {
        let Some(e) = page.element(n) else { continue };
        if e.local_name() != "script"
            || !e
                .attr("type")
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json"))
        {
            continue;
        }
        let text = page.text_content(n);
        let Ok(v) = serde_json::from_str::<serde_json::Value>(text.trim()) else {
            continue;
        };
        // Objects may sit at the top, in an array, or in an @graph; no deeper.
        let mut objects: Vec<&serde_json::Map<String, serde_json::Value>> = Vec::new();
        let mut tops: Vec<&serde_json::Value> = Vec::new();
        match &v {
            serde_json::Value::Array(a) => tops.extend(a.iter()),
            other => tops.push(other),
        }
        let mut flat: Vec<&serde_json::Value> = Vec::new();
        for t in tops {
            flat.push(t);
            if let Some(serde_json::Value::Array(g)) = t.get("@graph") {
                flat.extend(g.iter());
            }
        }
        for f in flat {
            if let serde_json::Value::Object(o) = f {
                objects.push(o);
            }
        }
        for o in objects {
            if !type_matches(o) {
                continue;
            }
            let is_page =
                matches!(o.get("@type"), Some(serde_json::Value::String(t)) if t == "WebPage");
            if out.headline.is_none() && !is_page {
                out.headline = o
                    .get("headline")
                    .or_else(|| o.get("name"))
                    .and_then(json_str);
            }
            if out.author.is_none() {
                out.author = o
                    .get("author")
                    .or_else(|| o.get("creator"))
                    .and_then(json_names);
            }
            if out.date.is_none() {
                out.date = o
                    .get("datePublished")
                    .or_else(|| o.get("dateCreated"))
                    .and_then(json_str);
            }
            if out.publisher.is_none() {
                out.publisher = o.get("publisher").and_then(json_name);
            }
        }
    }
    out
}

fn is_url(s: &str) -> bool {
    s.starts_with("http://") || s.starts_with("https://") || s.starts_with("//")
}

/// `<meta>` values by lower-cased `name`/`property`/`itemprop`, first wins.
fn meta(page: &Page, keys: &[&str]) -> Option<String> {
    let head = page.head().unwrap_or(NodeId::DOCUMENT);
    let mut best: Option<(usize, String)> = None;
    for n in page.descendants(head) {
        let Some(e) = page.element(n) else { continue };
        if e.local_name() != "meta" {
            continue;
        }
        let Some(content) = e.attr("content") else {
            continue;
        };
        let content = collapse_whitespace(content);
        if content.is_empty() {
            continue;
        }
        for attr in ["property", "name", "itemprop"] {
            let Some(v) = e.attr(attr) else { continue };
            for name in v.split_ascii_whitespace() {
                let name = name.to_ascii_lowercase();
                if let Some(rank) = keys.iter().position(|k| *k == name)
                    && best.as_ref().is_none_or(|(r, _)| rank < *r)
                {
                    best = Some((rank, content.clone()));
                }
            }
        }
    }
    best.map(|(_, v)| v)
}

/// `<title>` without the site name: "Headline | Site" → "Headline".
fn clean_document_title(title: &str) -> String {
    for sep in [" | ", " – ", " — ", " - ", " :: ", " « ", " » ", " · "] {
        if let Some(pos) = title.rfind(sep) {
            let head = &title[..pos];
            if head.split_whitespace().count() >= 3 {
                return head.trim().to_string();
            }
            // "Site | Headline": the longer part is the headline.
            let tail = &title[pos + sep.len()..];
            if tail.split_whitespace().count() >= 3 && tail.len() > head.len() {
                return tail.trim().to_string();
            }
        }
    }
    title.to_string()
}

fn iso_date(s: &str) -> String {
    let b = s.as_bytes();
    let iso = b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit);
    if iso {
        s[..10].to_string()
    } else {
        s.to_string()
    }
}

/// Text of the first element matching one of `selectors`, if short enough to be a name.
fn short_text(page: &Page, selectors: &str, max_chars: usize) -> Option<String> {
    for n in page.query_all(selectors).ok()? {
        if !page.is_rendered(n) {
            continue;
        }
        let t = collapse_whitespace(&page.text_content(n));
        if !t.is_empty() && t.chars().count() <= max_chars {
            return Some(t);
        }
    }
    None
}

fn strip_by(s: String) -> String {
    let t = s.trim();
    for p in ["By ", "by ", "BY ", "Von ", "von ", "Par ", "par "] {
        if let Some(rest) = t.strip_prefix(p) {
            return rest.trim().to_string();
        }
    }
    t.to_string()
}

pub fn metadata(page: &Page) -> Metadata {
    let ld = read_json_ld(page);
    let title = ld
        .headline
        .clone()
        .or_else(|| {
            meta(
                page,
                &[
                    "og:title",
                    "twitter:title",
                    "dc.title",
                    "dcterm:title",
                    "parsely-title",
                    "title",
                ],
            )
        })
        .or_else(|| page.title().map(|t| clean_document_title(&t)))
        .or_else(|| short_text(page, "h1", 300));
    let byline = ld
        .author
        .clone()
        .or_else(|| {
            meta(page, &["author", "article:author", "dc.creator", "parsely-author", "sailthru.author", "byl"])
                .filter(|a| !is_url(a))
        })
        .or_else(|| short_text(page, "[itemprop~=author] [itemprop~=name], [rel~=author], [itemprop~=author], .byline, .author", 100))
        .map(strip_by)
        .filter(|s| !s.is_empty());
    let date = ld
        .date
        .clone()
        .or_else(|| {
            meta(
                page,
                &[
                    "article:published_time",
                    "datepublished",
                    "og:published_time",
                    "parsely-pub-date",
                    "pubdate",
                    "publishdate",
                    "dc.date",
                    "date",
                    "sailthru.date",
                ],
            )
        })
        .or_else(|| {
            page.query_all("time[datetime]")
                .ok()?
                .into_iter()
                .find_map(|n| {
                    page.element(n)?
                        .attr("datetime")
                        .map(collapse_whitespace)
                        .filter(|s| !s.is_empty())
                })
        })
        .map(|d| iso_date(&d));
    let site_name = meta(page, &["og:site_name", "application-name"]).or(ld.publisher);
    Metadata {
        title,
        byline,
        date,
        site_name,
    }
}
