//! Element classes only the conversion needs, as turndown defines them, and
//! what webfold drops. Classes other views share (void elements, heading
//! levels) live in [`crate::page::tags`].

/// JavaScript's `\s`: what turndown's whitespace rules (and `trim()`) see.
pub(super) fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// The whitespace turndown's collapse step folds into one space.
pub(super) fn collapsible(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

pub(super) fn trim_js_start(s: &str) -> &str {
    s.trim_start_matches(js_space)
}

/// turndown's block elements: they break lines and get no flanking whitespace.
pub(super) fn is_block(tag: &str) -> bool {
    matches!(
        tag,
        "address"
            | "article"
            | "aside"
            | "audio"
            | "blockquote"
            | "body"
            | "canvas"
            | "center"
            | "dd"
            | "dir"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "frameset"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hgroup"
            | "hr"
            | "html"
            | "isindex"
            | "li"
            | "main"
            | "menu"
            | "nav"
            | "noframes"
            | "noscript"
            | "ol"
            | "output"
            | "p"
            | "pre"
            | "section"
            | "table"
            | "tbody"
            | "td"
            | "tfoot"
            | "th"
            | "thead"
            | "tr"
            | "ul"
    )
}

/// Elements turndown keeps even when they hold no text.
pub(super) fn is_meaningful_when_blank(tag: &str) -> bool {
    matches!(
        tag,
        "a" | "table"
            | "thead"
            | "tbody"
            | "tfoot"
            | "th"
            | "td"
            | "iframe"
            | "script"
            | "audio"
            | "video"
    )
}

/// Elements whose content is never page text worth reading: code, styles,
/// graphics, embedded documents, media fallbacks and form widgets (a country
/// `<select>` alone can cost thousands of tokens).
pub(super) fn is_dropped(tag: &str) -> bool {
    matches!(
        tag,
        "script"
            | "style"
            | "template"
            | "noscript"
            | "svg"
            | "canvas"
            | "iframe"
            | "frame"
            | "object"
            | "embed"
            | "applet"
            | "audio"
            | "video"
            | "source"
            | "track"
            | "map"
            | "select"
            | "datalist"
            | "textarea"
            | "input"
            | "head"
            | "title"
            | "meta"
            | "link"
            | "base"
    )
}
