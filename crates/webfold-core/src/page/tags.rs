//! Element classes by tag name, decided here once for every view.
//!
//! Tags are HTML local names, lower case as the parser gives them. Where two
//! views need a class to differ (turndown's void list against the HTML
//! standard's; how much of phrasing content counts as "inline"), the variants
//! live side by side here, each defined from the other, so the difference is
//! written down once and on purpose.

/// Void elements: no end tag, no children (HTML serialization rules).
pub(crate) fn is_void(tag: &str) -> bool {
    matches!(
        tag,
        "area"
            | "base"
            | "basefont"
            | "bgsound"
            | "br"
            | "col"
            | "embed"
            | "frame"
            | "hr"
            | "img"
            | "input"
            | "keygen"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

/// turndown's `voidElements`: the standard's void elements without the
/// obsolete `basefont`, `bgsound` and `frame`, plus `command`. Markdown
/// follows turndown's whitespace and blankness rules byte for byte, which
/// read this list.
pub(crate) fn is_turndown_void(tag: &str) -> bool {
    tag == "command" || (is_void(tag) && !matches!(tag, "basefont" | "bgsound" | "frame"))
}

/// Children of these are written as-is, not escaped (HTML serialization).
pub(crate) fn is_raw_text(tag: &str) -> bool {
    matches!(
        tag,
        "style" | "script" | "xmp" | "iframe" | "noembed" | "noframes" | "plaintext" | "noscript"
    )
}

/// `h1`–`h6` → 1–6.
pub(crate) fn heading_level(tag: &str) -> Option<u8> {
    match tag {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
}

pub(crate) fn is_heading(tag: &str) -> bool {
    heading_level(tag).is_some()
}

/// Elements Chromium's UA stylesheet gives `display: none`.
pub(crate) fn is_ua_display_none(tag: &str) -> bool {
    matches!(
        tag,
        "head"
            | "script"
            | "style"
            | "template"
            | "title"
            | "meta"
            | "link"
            | "base"
            | "basefont"
            | "noscript"
            | "noembed"
            | "noframes"
            | "param"
            | "rp"
            | "datalist"
            | "area"
            | "source"
            | "track"
    )
}

/// Elements that hold code or inert markup, not page content: never part of
/// an accessibility tree or an accessible name whatever their styles
/// (Playwright skips them), nor of an outline.
pub(crate) fn is_non_content(tag: &str) -> bool {
    matches!(tag, "style" | "script" | "noscript" | "template")
}

/// Text-level elements that only mark up the text they hold: text on both
/// sides runs on without a break. The narrowest "inline" class: the CNT joins
/// merged text across these without a space, and keeps everything else
/// (images, edits) as nodes of their own.
pub(crate) fn is_text_level(tag: &str) -> bool {
    matches!(
        tag,
        "a" | "abbr"
            | "b"
            | "bdi"
            | "bdo"
            | "cite"
            | "code"
            | "data"
            | "dfn"
            | "em"
            | "font"
            | "i"
            | "kbd"
            | "label"
            | "mark"
            | "q"
            | "s"
            | "samp"
            | "small"
            | "span"
            | "strong"
            | "sub"
            | "sup"
            | "time"
            | "tt"
            | "u"
            | "var"
    )
}

/// Elements that do not break a line of text: the text-level ones plus edits
/// (`del`, `ins`), obsolete presentational tags and images. What the
/// outline's previews cross without adding a space.
pub(crate) fn is_inline(tag: &str) -> bool {
    is_text_level(tag) || matches!(tag, "big" | "del" | "img" | "ins" | "nobr" | "strike")
}

/// Phrasing content: the inline elements plus line breaks, ruby, pictures
/// and MathML. Text inside them belongs to the enclosing block, which is how
/// extraction groups text into blocks.
pub(crate) fn is_phrasing(tag: &str) -> bool {
    is_inline(tag)
        || matches!(
            tag,
            "acronym" | "br" | "math" | "picture" | "rp" | "rt" | "ruby" | "wbr"
        )
}
