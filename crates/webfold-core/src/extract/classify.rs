//! What an element is, for extraction: never content (scripts, hidden
//! nodes, controls), page furniture (navigation, sidebars, share bars,
//! comments, cookie banners), or a plain candidate.
//!
//! Class and id values are split into lower-case words (on punctuation and
//! camelCase) and matched word by word: substring matching, as Readability
//! does, throws away `<div class="shadowed-article">` for containing "ad".

use crate::NodeId;
use crate::page::{ElementData, NodeData, Page};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A candidate like any other.
    Plain,
    /// Never content: not rendered, scripts, form controls, embeds.
    Removed,
    /// Page furniture by tag or ARIA role.
    Boilerplate,
    /// Page furniture by class/id words: weaker evidence, ignored on retry.
    BoilerplateByClass,
}

/// Every node's kind and every element's class signal, computed once.
pub(crate) struct Classes {
    pub kinds: Vec<Kind>,
    pub signals: Vec<ClassSignal>,
}

/// Tags whose content is never article text.
fn removed_tag(tag: &str) -> bool {
    matches!(
        tag,
        "script"
            | "style"
            | "noscript"
            | "template"
            | "iframe"
            | "object"
            | "embed"
            | "svg"
            | "canvas"
            | "button"
            | "input"
            | "select"
            | "textarea"
            | "option"
            | "datalist"
            | "head"
            | "title"
            | "meta"
            | "link"
            | "audio"
            | "video"
            | "map"
            | "dialog"
    )
}

fn boilerplate_tag(tag: &str) -> bool {
    matches!(tag, "aside" | "footer" | "nav" | "menu")
}

fn boilerplate_role(role: &str) -> bool {
    role.split_ascii_whitespace().any(|r| {
        matches!(
            r.to_ascii_lowercase().as_str(),
            "navigation"
                | "banner"
                | "contentinfo"
                | "complementary"
                | "search"
                | "menu"
                | "menubar"
                | "dialog"
                | "alertdialog"
                | "toolbar"
                | "tablist"
        )
    })
}

/// Words that name page furniture whatever else the class says
/// (`article-comments`, `post-share`).
const STRONG_PREFIXES: &[&str] = &[
    "comment",
    "share",
    "sharing",
    "sharedaddy",
    "social",
    "related",
    "recommend",
    "newsletter",
    "subscri",
    "cookie",
    "consent",
    "gdpr",
    "advert",
    "sponsor",
    "breadcrumb",
    "disqus",
    "outbrain",
    "taboola",
    "popup",
    "modal",
    "footer",
    "signup",
    "trending",
    "popular",
    "readmore",
    "readnext",
    "subnav",
    "adblock",
    "navbox",
];

/// Words that name furniture unless the same class also says it is content
/// (`content-sidebar-wrap` is the content column).
const WEAK_PREFIXES: &[&str] = &[
    "sidebar",
    "masthead",
    "navbar",
    "navigation",
    "menu",
    "toolbar",
    "pagination",
    "pager",
    "banner",
    "login",
];

/// Whole words (too short or too common to match as prefixes).
const STRONG_WORDS: &[&str] = &[
    "ad",
    "ads",
    "promo",
    "promos",
    "promotion",
    "promotions",
    "adsbygoogle",
    "nav",
    "skip",
    "tags",
    "tag",
    "sr",
    "screenreader",
    "visually",
    "visuallyhidden",
    "dfp",
    "byline",
    "dateline",
    "bio",
    "rating",
    "reactions",
    "toc",
    "timestamp",
    "date",
    "dates",
    "published",
    "updated",
    "posted",
    "caption",
    "captions",
    "credit",
    "credits",
    "button",
    "buttons",
    "btn",
    "icon",
    "icons",
    "attachment",
    "reply",
    "akismet",
    "viral",
    "syndication",
    "criteo",
    "infoline",
];

const WEAK_WORDS: &[&str] = &[
    "meta", "share", "tools", "extra", "aside", "more", "print", "author",
];

const POSITIVE_PREFIXES: &[&str] = &[
    "article",
    "content",
    "main",
    "post",
    "entry",
    "story",
    "body",
    "text",
    "blog",
    "prose",
    "markdown",
    "hentry",
    "instapaper",
];

/// Words of one class token, split on punctuation and camelCase, as slices
/// (matched case-insensitively; no allocation). A segment with digits
/// (`2pNav`, a CSS-modules hash) stays one word.
fn for_each_word<'a>(token: &'a str, mut f: impl FnMut(&'a str)) {
    for segment in token
        .split(|c: char| !c.is_alphanumeric())
        .filter(|s| !s.is_empty())
    {
        if segment.bytes().any(|b| b.is_ascii_digit()) {
            f(segment);
            continue;
        }
        let mut start = 0;
        let mut prev_lower = false;
        for (i, ch) in segment.char_indices() {
            if ch.is_uppercase() && prev_lower {
                f(&segment[start..i]);
                start = i;
            }
            prev_lower = ch.is_lowercase();
        }
        f(&segment[start..]);
    }
}

fn word_is(w: &str, x: &str) -> bool {
    w.eq_ignore_ascii_case(x)
}

fn word_starts(w: &str, prefix: &str) -> bool {
    w.len() >= prefix.len() && w.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// Tokens that label rather than describe: script hooks (`js-related`) and
/// CMS taxonomy classes on the article itself (`tag-travel`, `author-jane`,
/// `category-news`).
fn label_token(token: &str) -> bool {
    let mut first: Option<&str> = None;
    let mut count = 0;
    for_each_word(token, |w| {
        if first.is_none() {
            first = Some(w);
        }
        count += 1;
    });
    let Some(first) = first else { return false };
    if word_is(first, "js") {
        return true;
    }
    count >= 2
        && [
            "tag", "category", "author", "format", "status", "type", "postid", "topics", "section",
        ]
        .iter()
        .any(|l| word_is(first, l))
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ClassSignal {
    pub strong_negative: bool,
    pub weak_negative: bool,
    pub positive: bool,
}

impl ClassSignal {
    /// Readability's class weight: ±25.
    pub fn weight(self) -> f32 {
        let mut w = 0.0;
        if self.strong_negative || self.weak_negative {
            w -= 25.0;
        }
        if self.positive {
            w += 25.0;
        }
        w
    }

    pub fn is_boilerplate(self) -> bool {
        self.strong_negative || (self.weak_negative && !self.positive)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum WordSignal {
    Strong,
    Weak,
    Positive,
}

fn word_signal(w: &str) -> Option<WordSignal> {
    if STRONG_WORDS.iter().any(|x| word_is(w, x))
        || STRONG_PREFIXES.iter().any(|p| word_starts(w, p))
    {
        Some(WordSignal::Strong)
    } else if WEAK_WORDS.iter().any(|x| word_is(w, x))
        || WEAK_PREFIXES.iter().any(|p| word_starts(w, p))
    {
        Some(WordSignal::Weak)
    } else if POSITIVE_PREFIXES.iter().any(|p| word_starts(w, p)) {
        Some(WordSignal::Positive)
    } else {
        None
    }
}

/// Each class token (and the id) says one thing: furniture when a word names
/// furniture outright (`article-comments`), content when a content word
/// softens a weak one (`content-sidebar-wrap` is the content column).
pub(crate) fn class_signal(e: &ElementData) -> ClassSignal {
    let mut s = ClassSignal::default();
    let tokens = e
        .attr("class")
        .unwrap_or("")
        .split_ascii_whitespace()
        .chain(e.attr("id"));
    for token in tokens {
        if label_token(token) {
            continue;
        }
        let (mut strong, mut weak, mut positive) = (false, false, false);
        for_each_word(token, |w| match word_signal(w) {
            Some(WordSignal::Strong) => strong = true,
            Some(WordSignal::Weak) => weak = true,
            Some(WordSignal::Positive) => positive = true,
            None => {}
        });
        if strong {
            s.strong_negative = true;
        } else if positive {
            s.positive = true;
        } else if weak {
            s.weak_negative = true;
        }
    }
    s
}

/// Inline (phrasing) elements: text inside them belongs to the enclosing block.
pub(crate) fn is_inline(tag: &str) -> bool {
    matches!(
        tag,
        "a" | "abbr"
            | "b"
            | "bdi"
            | "bdo"
            | "br"
            | "cite"
            | "code"
            | "data"
            | "dfn"
            | "em"
            | "font"
            | "i"
            | "kbd"
            | "mark"
            | "q"
            | "rp"
            | "rt"
            | "ruby"
            | "s"
            | "samp"
            | "small"
            | "span"
            | "strong"
            | "sub"
            | "sup"
            | "time"
            | "u"
            | "var"
            | "wbr"
            | "img"
            | "picture"
            | "label"
            | "del"
            | "ins"
            | "big"
            | "tt"
            | "strike"
            | "nobr"
            | "acronym"
            | "math"
    )
}

pub(crate) fn is_heading(tag: &str) -> bool {
    matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// Classify every node. Descendants of a `Removed` node are `Removed` too.
pub(crate) fn classify(page: &Page) -> Classes {
    let nodes = page.nodes();
    let mut kinds = vec![Kind::Plain; nodes.len()];
    let mut signals = vec![ClassSignal::default(); nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        if node
            .parent
            .is_some_and(|p| kinds[p.index()] == Kind::Removed)
        {
            kinds[i] = Kind::Removed;
            continue;
        }
        kinds[i] = match &node.data {
            NodeData::Element(e) => {
                let id = NodeId(i as u32);
                let kind = element_kind(page, id, e);
                if kind != Kind::Removed && (e.has_attr("class") || e.has_attr("id")) {
                    signals[i] = class_signal(e);
                }
                match kind {
                    Kind::Plain
                        if !matches!(e.local_name(), "html" | "body" | "a")
                            && signals[i].is_boilerplate() =>
                    {
                        Kind::BoilerplateByClass
                    }
                    k => k,
                }
            }
            NodeData::Text(_) | NodeData::Document => Kind::Plain,
            _ => Kind::Removed,
        };
    }
    Classes { kinds, signals }
}

fn element_kind(page: &Page, id: NodeId, e: &ElementData) -> Kind {
    let tag = e.local_name();
    if removed_tag(tag) || page.node(id).inert {
        return Kind::Removed;
    }
    let vis = page.static_visibility(id);
    if vis.hidden() && !page.has_layout() || !page.is_rendered(id) {
        return Kind::Removed;
    }
    if vis.aria_hidden && !matches!(tag, "html" | "body") {
        return Kind::Removed;
    }
    if boilerplate_tag(tag) || e.attr("role").is_some_and(boilerplate_role) {
        return Kind::Boilerplate;
    }
    Kind::Plain
}
