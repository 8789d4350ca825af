//! Link and image URLs: resolving relative ones, picking the real source of a
//! lazy image, and shortening `data:` URIs.

use std::borrow::Cow;

use url::Url;

use crate::page::{ElementData, Page};

/// The base for relative URLs: the page's `<base href>` resolved against the
/// document URL (as browsers do), else the document URL.
pub(super) fn effective_base(page: &Page, doc_url: Option<&Url>) -> Option<Url> {
    let base_href = page.base_href().map(str::trim).filter(|h| !h.is_empty());
    match (base_href, doc_url) {
        (Some(h), Some(doc)) => doc.join(h).ok().or_else(|| Some(doc.clone())),
        (Some(h), None) => Url::parse(h).ok(),
        (None, doc) => doc.cloned(),
    }
}

/// `scheme:` per RFC 3986: a letter, then letters, digits, `+ - .`.
fn has_scheme(s: &str) -> bool {
    let b = s.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    for &c in &b[1..] {
        match c {
            b':' => return true,
            c if c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.') => {}
            _ => return false,
        }
    }
    false
}

/// `href` made absolute against `base`. Absolute URLs (`https:`, `mailto:`,
/// `tel:`, `javascript:`, `data:` …) and `#fragment` links stay as written.
pub(super) fn resolve<'a>(href: &'a str, base: Option<&Url>) -> Cow<'a, str> {
    let h = href.trim_matches(|c: char| c.is_ascii_whitespace());
    if h.is_empty() || h.starts_with('#') || has_scheme(h) {
        return Cow::Borrowed(h);
    }
    match base.and_then(|b| b.join(h).ok()) {
        Some(u) => Cow::Owned(u.into()),
        None => Cow::Borrowed(h),
    }
}

/// `data:` URIs up to this length are kept whole: shorter than any placeholder gain.
const DATA_URI_KEEP: usize = 64;

/// A long `data:` URI cut to its media type: `data:image/png;base64,…`.
pub(super) fn shorten_data_uri(url: &str) -> Cow<'_, str> {
    if url.len() <= DATA_URI_KEEP
        || !url
            .get(..5)
            .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
    {
        return Cow::Borrowed(url);
    }
    match url.find(',') {
        Some(comma) if comma < DATA_URI_KEEP => Cow::Owned(format!("{}…", &url[..=comma])),
        _ => Cow::Borrowed("data:…"),
    }
}

pub(super) fn is_data_uri(url: &str) -> bool {
    url.get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
}

/// Lazy-loading scripts leave a placeholder in `src` and the real URL in one of these.
const LAZY_ATTRS: &[&str] = &[
    "data-src",
    "data-lazy-src",
    "data-original",
    "data-lazy",
    "data-url",
];

fn looks_like_placeholder(src: &str) -> bool {
    let s = src.to_ascii_lowercase();
    [
        "placeholder",
        "blank.",
        "spacer.",
        "pixel.",
        "transparent.",
        "lazy",
        "1x1",
        "loading",
        "grey.",
        "gray.",
    ]
    .iter()
    .any(|p| s.contains(p))
}

/// The first candidate URL of a `srcset`.
fn first_srcset_candidate(srcset: &str) -> Option<&str> {
    let s = srcset.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
    let url = s.split(|c: char| c.is_ascii_whitespace()).next()?;
    let url = url.trim_end_matches(',');
    (!url.is_empty()).then_some(url)
}

fn nonempty(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|v| !v.is_empty())
}

/// The URL an image shows: `src`, unless it is missing, a `data:` URI or a
/// placeholder while a lazy-loading attribute or `srcset` names the real one.
pub(super) fn image_source(e: &ElementData) -> Option<&str> {
    let src = nonempty(e.attr("src"));
    let weak = src.is_none_or(|s| is_data_uri(s) || looks_like_placeholder(s));
    if weak {
        let lazy = LAZY_ATTRS
            .iter()
            .filter_map(|a| nonempty(e.attr(a)))
            .find(|v| !is_data_uri(v))
            .or_else(|| {
                ["srcset", "data-srcset"]
                    .iter()
                    .filter_map(|a| nonempty(e.attr(a)).and_then(first_srcset_candidate))
                    .find(|v| !is_data_uri(v))
            });
        if lazy.is_some() {
            return lazy;
        }
    }
    src
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_a_browser() {
        let base = Url::parse("https://example.com/blog/2024/post.html").unwrap();
        let r = |h| resolve(h, Some(&base)).into_owned();
        assert_eq!(
            r("../docs/guide.html"),
            "https://example.com/blog/docs/guide.html"
        );
        assert_eq!(r("/root/page"), "https://example.com/root/page");
        assert_eq!(
            r("?page=2"),
            "https://example.com/blog/2024/post.html?page=2"
        );
        assert_eq!(r("//cdn.example.net/a.js"), "https://cdn.example.net/a.js");
        assert_eq!(r("#sec2"), "#sec2");
        for keep in [
            "mailto:a@b.c",
            "tel:+1-555",
            "javascript:void(0)",
            "data:image/png;base64,AA",
            "http://x.org/a b",
        ] {
            assert_eq!(r(keep), keep);
        }
        assert_eq!(resolve("a/b", None), "a/b");
    }

    #[test]
    fn base_href_wins_resolved_against_document() {
        let page = Page::parse("<head><base href='/sub/'></head><a href=x>x</a>");
        let doc = Url::parse("https://h.example/a/b.html").unwrap();
        let base = effective_base(&page, Some(&doc)).unwrap();
        assert_eq!(base.as_str(), "https://h.example/sub/");
        let page = Page::parse("<a href=x>x</a>");
        assert_eq!(effective_base(&page, Some(&doc)).unwrap(), doc);
        let page = Page::parse("<base href='https://other.example/'>");
        assert_eq!(
            effective_base(&page, None).unwrap().as_str(),
            "https://other.example/"
        );
    }

    #[test]
    fn lazy_images_and_data_uris() {
        let page = Page::parse(
            "<img id=a src='data:image/gif;base64,R0lGOD' data-src='/real.jpg'>\
             <img id=b srcset='/small.jpg 1x, /big.jpg 2x'>\
             <img id=c src='/plain.png' data-src='/other.png'>\
             <img id=d src='/img/placeholder.svg' data-lazy-src='/x.png'>",
        );
        let src = |id: &str| {
            let n = page.query(&format!("#{id}")).unwrap();
            image_source(page.element(n).unwrap()).map(str::to_owned)
        };
        assert_eq!(src("a").as_deref(), Some("/real.jpg"));
        assert_eq!(src("b").as_deref(), Some("/small.jpg"));
        assert_eq!(src("c").as_deref(), Some("/plain.png"));
        assert_eq!(src("d").as_deref(), Some("/x.png"));
        let long = format!("data:image/png;base64,{}", "A".repeat(1000));
        assert_eq!(shorten_data_uri(&long), "data:image/png;base64,…");
        assert_eq!(shorten_data_uri("data:,x"), "data:,x");
    }
}
