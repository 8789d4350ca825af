//! The Markdown view: a page (or one subtree of it) as CommonMark + GFM.
//!
//! The conversion follows turndown, the reference HTML → Markdown converter, rule
//! for rule (its whitespace collapsing, flanking whitespace, `join` of blocks,
//! escaping), so that with [`MarkdownOptions::turndown`] it reproduces turndown's
//! own test suite. It runs as one iterative pass over the preorder arena
//! writing into one `String` (see `walk`), after a linear pre-pass that
//! settles whitespace and blankness (`prepass`): no recursion, so pages nested
//! 100,000 deep convert like flat ones.
//!
//! **Dropped**, because it is not text a reader sees: elements that are not
//! rendered ([`Page::is_rendered`]: `hidden`, `display:none`, `<template>`,
//! `<head>`, closed `<details>` bodies, …) and text that renders where no one
//! sees it ([`Page::is_seen`]: off the page, clipped, transparent, …);
//! `script`, `style`, `noscript`, `svg`, `canvas`, `iframe`, `object`,
//! `embed`, `audio`, `video`, and the form widgets `select`, `datalist`,
//! `textarea`, `input` (a country picker alone costs thousands of tokens).
//! A live capture's frames are the exception ([`Page::is_captured_frame`]):
//! each reads in its place under a line naming it, `[iframe https://…]`,
//! its links resolved against that address; a frame that could not be
//! read holds the capture's note saying why. An element a live capture has
//! no box for (`display: contents`, a `<slot>` holding its assigned nodes)
//! is walked through ([`Page::hides_subtree`]). `nav`, `header` and `footer` are kept: this view is the
//! whole page, links included, so an agent can navigate; dropping boilerplate is
//! the job of main-content extraction, which passes a `skip` filter.
//!
//! **webfold's defaults** ([`MarkdownOptions::default`]) pick the cheapest
//! CommonMark-correct spelling: ATX headings, `-` bullets, fenced code with the
//! language from `class="language-x"`/`lang-x`, `*`/`**` emphasis (`*` works
//! inside words, `_` does not), `\` hard breaks, `---` rules, and minimal
//! escaping. The `compact` rules on top of turndown: list markers without
//! padding (`- `, `1. `) and no whitespace-only lines in loose items; empty
//! quote lines as `>`; links with no text and `javascript:` links dropped (their
//! text kept); a link repeating an earlier one's text and address as
//! `[text]`; link and image titles dropped; a `<br>` ending a block dropped,
//! `<br><br>` as a paragraph break; every `<pre>` a code block; headings on one
//! line; `<s>`/`<del>` as `~~`; images with no alt whose source is `data:`
//! dropped, and images whose alt is empty (decoration) outside links. Both
//! styles resolve relative `href`/`src` against the base URL, take a lazy
//! image's real source (`data-src`, `srcset`), shorten long `data:` URIs,
//! write GFM tables (see `table`), and keep inline code free of nested
//! emphasis.

mod block;
mod def;

pub use def::MarkdownPage;
mod escape;
mod inline;
mod options;
mod prepass;
mod table;
mod tags;
mod urls;
mod walk;

pub use options::{
    CodeBlockStyle, Escaping, HeadingStyle, LinkReferenceStyle, LinkStyle, MarkdownOptions,
};

use crate::page::{NodeId, Page};

/// The Markdown of `root`'s subtree (pass [`NodeId::DOCUMENT`] for the whole page).
/// An id outside the page gives an empty string.
pub fn to_markdown(page: &Page, root: NodeId, opts: &MarkdownOptions) -> String {
    walk::convert(page, root, opts, None)
}

/// Like [`to_markdown`], leaving out every node for which `skip` returns true
/// (with its subtree): how main-content extraction drops boilerplate inside
/// an article. `skip` is asked once per element, in document order.
pub fn to_markdown_filtered(
    page: &Page,
    root: NodeId,
    opts: &MarkdownOptions,
    skip: &dyn Fn(NodeId) -> bool,
) -> String {
    walk::convert(page, root, opts, Some(skip))
}
