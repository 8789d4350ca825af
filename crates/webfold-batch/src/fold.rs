//! One page to one record: what `webfold batch` writes per line.

use webfold_core::Page;
use webfold_core::extract::{ExtractOptions, Fallback, extract};
use webfold_core::markdown::MarkdownOptions;
use webfold_core::tokens::{Encoding, count};

/// A page as it came: its bytes and what its source said about them.
#[derive(Clone, Copy, Debug, Default)]
pub struct PageIn<'a> {
    pub bytes: &'a [u8],
    /// Where the page came from; relative links resolve against it.
    pub url: Option<&'a str>,
    /// The HTTP `Content-Type` value (its charset decodes the bytes).
    pub content_type: Option<&'a str>,
    /// The HTTP `Content-Language` value, used when the page has no `lang`.
    pub content_language: Option<&'a str>,
}

/// One page folded: its main content as Markdown and how much of the page
/// that content is.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Folded {
    pub url: Option<String>,
    pub title: Option<String>,
    /// Who wrote the article, as the page says; null if it does not.
    pub byline: Option<String>,
    /// When the article was published, as the page says; null if it does not.
    pub date: Option<String>,
    /// The main content, whole: what `webfold markdown` prints for the page
    /// with no line or token limit, less its header (the title, byline and
    /// date, which are fields of their own, and the note that the page had
    /// no article, which `fallback` says): a corpus's text, in the page's
    /// words only.
    pub markdown: String,
    /// Exact o200k tokens of `markdown`.
    pub tokens: usize,
    /// `<html lang>`, else the first `Content-Language`; null when neither says.
    pub language: Option<String>,
    /// Non-whitespace characters of the main content.
    pub main_chars: u32,
    /// Non-whitespace characters of all the text the page renders.
    pub page_chars: u32,
    /// Why `markdown` is the whole page rather than an article (`no_article`,
    /// `too_little_text`); null when an article was found.
    pub fallback: Option<String>,
}

impl Folded {
    /// The record's fields, in the order a line writes them: the columns of
    /// the Python package's `fold_batch`.
    pub const FIELDS: [&'static str; 10] = [
        "url",
        "title",
        "byline",
        "date",
        "markdown",
        "tokens",
        "language",
        "main_chars",
        "page_chars",
        "fallback",
    ];
}

/// Why a page could not be folded.
#[derive(Debug, thiserror::Error)]
pub enum FoldError {
    /// Nothing but white space.
    #[error("empty: there is no page in it")]
    Empty,
    /// Bytes that are not text (an image, a PDF, an archive): what they look like.
    #[error("not HTML ({0})")]
    NotHtml(String),
}

/// Folds one page: decodes it as a browser would (BOM, the header's
/// charset, `<meta>`, a guess), extracts the main content and writes it as
/// Markdown with links absolute against `url`.
pub fn fold(page: PageIn<'_>) -> Result<Folded, FoldError> {
    let text = webfold_core::decode::decode_html(page.bytes, page.content_type).text;
    webfold_core::decode::check_page(page.bytes, &text).map_err(|e| match e {
        webfold_core::Error::NotHtml(what) => FoldError::NotHtml(what),
        _ => FoldError::Empty,
    })?;
    let parsed = Page::parse(&text);
    // What `webfold markdown` does by default (`fetch_view::markdown_framed`
    // with `main`), without its paging or header.
    let ex = extract(&parsed, &ExtractOptions::default());
    let opts = MarkdownOptions {
        base_url: page.url.and_then(|u| url::Url::parse(u).ok()),
        ..Default::default()
    };
    let markdown = ex.body_markdown(&parsed, &opts);
    Ok(Folded {
        url: page.url.map(str::to_owned),
        title: ex.metadata.title.clone().or_else(|| parsed.title()),
        byline: ex.metadata.byline.clone(),
        date: ex.metadata.date.clone(),
        tokens: count(&markdown, Encoding::O200kBase),
        markdown,
        language: html_lang(&parsed).or_else(|| first_language(page.content_language)),
        main_chars: ex.chars,
        page_chars: ex.visible_chars,
        fallback: ex.fallback.as_ref().map(reason),
    })
}

fn reason(f: &Fallback) -> String {
    match f {
        Fallback::NoArticle => "no_article",
        Fallback::TooLittleText { .. } => "too_little_text",
    }
    .to_owned()
}

/// The `lang` of the `<html>` element, trimmed; none when empty.
fn html_lang(page: &Page) -> Option<String> {
    let html = page.document_element()?;
    let lang = page.element(html)?.attr("lang")?.trim();
    (!lang.is_empty()).then(|| lang.to_owned())
}

/// The first language of a `Content-Language` value (`de-DE, en` → `de-DE`).
fn first_language(value: Option<&str>) -> Option<String> {
    let first = value?.split(',').next()?.trim();
    (!first.is_empty()).then(|| first.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_from_the_page_then_the_header() {
        let html = b"<html lang=fr><title>T</title><p>Bonjour</p></html>";
        let got = fold(PageIn {
            bytes: html,
            content_language: Some("de"),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(got.language.as_deref(), Some("fr"));
        let got = fold(PageIn {
            bytes: b"<p>Hallo</p>",
            content_language: Some(" de-DE, en"),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(got.language.as_deref(), Some("de-DE"));
    }

    #[test]
    fn fields_are_the_records_keys_in_order() {
        let got = fold(PageIn {
            bytes: b"<p>Hallo</p>",
            ..Default::default()
        })
        .unwrap();
        let line = serde_json::to_string(&got).unwrap();
        let mut at = 0;
        for field in Folded::FIELDS {
            let key = format!("\"{field}\":");
            let found = line[at..]
                .find(&key)
                .unwrap_or_else(|| panic!("{field} in {line}"));
            at += found + key.len();
        }
        let keys = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&line);
        assert_eq!(keys.unwrap().len(), Folded::FIELDS.len());
    }

    #[test]
    fn binary_is_not_a_page() {
        let err = fold(PageIn {
            bytes: b"\x89PNG\r\n\x1a\n\0\0",
            ..Default::default()
        })
        .unwrap_err();
        assert!(err.to_string().starts_with("not HTML ("), "{err}");
    }
}
