//! The standard's sets of tag names, as html5ever has them, and the
//! doctypes pages use.

use html5ever::tokenizer::Doctype;
use html5ever::{LocalName, local_name};

use super::Open;
use crate::page::Attr;

/// The same attributes, in any order (names are unique within a tag).
pub(super) fn same_attrs(have: &[Attr], tag: &[Attr]) -> bool {
    have.len() == tag.len()
        && tag.iter().all(|t| {
            have.iter()
                .any(|h| h.name == t.name && *h.value == *t.value)
        })
}

/// The head's elements the head's rules read (`<template>` aside).
pub(super) fn in_head_start(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("base")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("title")
            | local_name!("noframes")
            | local_name!("style")
            | local_name!("noscript")
            | local_name!("script")
    )
}

pub(super) fn heading(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
    )
}

pub(super) fn td_th(name: &LocalName) -> bool {
    matches!(*name, local_name!("td") | local_name!("th"))
}

pub(super) fn table_outer(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("table")
            | local_name!("tbody")
            | local_name!("tfoot")
            | local_name!("thead")
            | local_name!("tr")
    )
}

pub(super) fn table_context(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("html") | local_name!("table") | local_name!("template")
    )
}

pub(super) fn table_body_context(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("tbody")
            | local_name!("tfoot")
            | local_name!("thead")
            | local_name!("template")
            | local_name!("html")
    )
}

pub(super) fn table_row_context(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("tr") | local_name!("template") | local_name!("html")
    )
}

pub(super) fn cursory_implied_end(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("dd")
            | local_name!("dt")
            | local_name!("li")
            | local_name!("option")
            | local_name!("optgroup")
            | local_name!("p")
            | local_name!("rb")
            | local_name!("rp")
            | local_name!("rt")
            | local_name!("rtc")
    )
}

pub(super) fn svg_html_integration_point(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("foreignObject") | local_name!("desc") | local_name!("title")
    )
}

pub(super) fn default_scope(o: &Open) -> bool {
    if o.svg {
        return svg_html_integration_point(&o.name);
    }
    matches!(
        o.name,
        local_name!("applet")
            | local_name!("caption")
            | local_name!("html")
            | local_name!("table")
            | local_name!("td")
            | local_name!("th")
            | local_name!("marquee")
            | local_name!("object")
            | local_name!("select")
            | local_name!("template")
    )
}

pub(super) fn list_item_scope(o: &Open) -> bool {
    default_scope(o) || (!o.svg && matches!(o.name, local_name!("ol") | local_name!("ul")))
}

pub(super) fn button_scope(o: &Open) -> bool {
    default_scope(o) || (!o.svg && o.name == local_name!("button"))
}

pub(super) fn table_scope(o: &Open) -> bool {
    !o.svg && table_context(&o.name)
}

/// html5ever's special elements (HTML ones only, as it has them).
#[rustfmt::skip]
pub(super) fn special(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("address") | local_name!("applet") | local_name!("area")
            | local_name!("article") | local_name!("aside") | local_name!("base")
            | local_name!("basefont") | local_name!("bgsound") | local_name!("blockquote")
            | local_name!("body") | local_name!("br") | local_name!("button")
            | local_name!("caption") | local_name!("center") | local_name!("col")
            | local_name!("colgroup") | local_name!("dd") | local_name!("details")
            | local_name!("dir") | local_name!("div") | local_name!("dl") | local_name!("dt")
            | local_name!("embed") | local_name!("fieldset") | local_name!("figcaption")
            | local_name!("figure") | local_name!("footer") | local_name!("form")
            | local_name!("frame") | local_name!("frameset") | local_name!("h1")
            | local_name!("h2") | local_name!("h3") | local_name!("h4") | local_name!("h5")
            | local_name!("h6") | local_name!("head") | local_name!("header")
            | local_name!("hgroup") | local_name!("hr") | local_name!("html")
            | local_name!("iframe") | local_name!("img") | local_name!("input")
            | local_name!("isindex") | local_name!("li") | local_name!("link")
            | local_name!("listing") | local_name!("main") | local_name!("marquee")
            | local_name!("menu") | local_name!("meta") | local_name!("nav")
            | local_name!("noembed") | local_name!("noframes") | local_name!("noscript")
            | local_name!("object") | local_name!("ol") | local_name!("p") | local_name!("param")
            | local_name!("plaintext") | local_name!("pre") | local_name!("script")
            | local_name!("section") | local_name!("select") | local_name!("source")
            | local_name!("style") | local_name!("summary") | local_name!("table")
            | local_name!("tbody") | local_name!("td") | local_name!("template")
            | local_name!("textarea") | local_name!("tfoot") | local_name!("th")
            | local_name!("thead") | local_name!("title") | local_name!("tr")
            | local_name!("track") | local_name!("ul") | local_name!("wbr") | local_name!("xmp")
    )
}

/// Quirks mode from a doctype, for the doctypes pages use; `None` for the
/// rest, which html5ever's tables decide.
pub(super) fn doctype_quirks(doctype: &Doctype) -> Option<bool> {
    if doctype.force_quirks || doctype.name.as_deref() != Some("html") {
        return Some(true);
    }
    let system = doctype.system_id.as_deref().map(str::to_ascii_lowercase);
    if system.as_deref() == Some("http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd") {
        return Some(true);
    }
    let Some(public) = doctype.public_id.as_deref().map(str::to_ascii_lowercase) else {
        return Some(false);
    };
    let starts = |p: &str| public.starts_with(p);
    if starts("-//w3c//dtd html 4.01 transitional//") || starts("-//w3c//dtd html 4.01 frameset//")
    {
        return Some(system.is_none());
    }
    if starts("-//w3c//dtd xhtml 1.0 transitional//")
        || starts("-//w3c//dtd xhtml 1.0 frameset//")
        || starts("-//w3c//dtd xhtml 1.0 strict//")
        || starts("-//w3c//dtd xhtml 1.1//")
        || public == "-//w3c//dtd html 4.01//en"
    {
        return Some(false);
    }
    None
}

/// Start tags in the body that close an open `<p>` and nothing else.
#[rustfmt::skip]
pub(super) fn block_closing_p(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("address") | local_name!("article") | local_name!("aside")
            | local_name!("blockquote") | local_name!("center") | local_name!("details")
            | local_name!("dialog") | local_name!("dir") | local_name!("div") | local_name!("dl")
            | local_name!("fieldset") | local_name!("figcaption") | local_name!("figure")
            | local_name!("footer") | local_name!("header") | local_name!("hgroup")
            | local_name!("main") | local_name!("nav") | local_name!("ol") | local_name!("p")
            | local_name!("search") | local_name!("section") | local_name!("summary")
            | local_name!("ul") | local_name!("menu")
    )
}

/// End tags in the body that close their element if it is in scope.
#[rustfmt::skip]
pub(super) fn block_end(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("address") | local_name!("article") | local_name!("aside")
            | local_name!("blockquote") | local_name!("button") | local_name!("center")
            | local_name!("details") | local_name!("dialog") | local_name!("dir")
            | local_name!("div") | local_name!("dl") | local_name!("fieldset")
            | local_name!("figcaption") | local_name!("figure") | local_name!("footer")
            | local_name!("header") | local_name!("hgroup") | local_name!("listing")
            | local_name!("main") | local_name!("menu") | local_name!("nav") | local_name!("ol")
            | local_name!("pre") | local_name!("search") | local_name!("section")
            | local_name!("select") | local_name!("summary") | local_name!("ul")
    )
}

/// Formatting elements but `<a>` and `<nobr>`.
#[rustfmt::skip]
pub(super) fn formatting(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("b") | local_name!("big") | local_name!("code") | local_name!("em")
            | local_name!("font") | local_name!("i") | local_name!("s") | local_name!("small")
            | local_name!("strike") | local_name!("strong") | local_name!("tt") | local_name!("u")
    )
}

/// A table's parts, which the body drops and the table's modes read.
#[rustfmt::skip]
pub(super) fn table_part(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("caption") | local_name!("col") | local_name!("colgroup")
            | local_name!("tbody") | local_name!("td") | local_name!("tfoot") | local_name!("th")
            | local_name!("thead") | local_name!("tr")
    )
}

/// Start tags the body drops.
pub(super) fn ignored_in_body(name: &LocalName) -> bool {
    table_part(name) || matches!(*name, local_name!("frame") | local_name!("head"))
}

/// Start tags in the body whose rules this builder leaves to html5ever.
#[rustfmt::skip]
pub(super) fn leaves_in_body(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("template") | local_name!("frameset") | local_name!("plaintext")
            | local_name!("nobr") | local_name!("image") | local_name!("rb") | local_name!("rtc")
            | local_name!("rp") | local_name!("rt") | local_name!("math")
    )
}
