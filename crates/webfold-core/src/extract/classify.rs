//! What an element is, for extraction: never content (scripts, hidden
//! nodes, controls), page furniture (navigation, sidebars, share bars,
//! comments, cookie banners), or a plain candidate.
//!
//! Class and id values are split into lower-case words (on punctuation and
//! camelCase) and matched word by word: substring matching, as Readability
//! does, throws away `<div class="shadowed-article">` for containing "ad".

use std::collections::HashMap;

use crate::NodeId;
use crate::page::tags::is_heading;
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
    "postmeta",
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
    "author",
    "authors",
];

const WEAK_WORDS: &[&str] = &[
    "meta", "metadata", "share", "tools", "extra", "aside", "more", "print", "utility",
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
pub(crate) fn for_each_word<'a>(token: &'a str, mut f: impl FnMut(&'a str)) {
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

fn word_starts(w: &str, prefix: &str) -> bool {
    w.len() >= prefix.len() && w.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// Words after a taxonomy prefix that make the token a box about the
/// author or tag (`author-bio`) rather than a label of the article.
const BOX_WORDS: &[&str] = &[
    "box",
    "bio",
    "info",
    "avatar",
    "details",
    "profile",
    "description",
    "card",
];

/// Tokens that label rather than describe: script hooks (`js-related`) and
/// CMS taxonomy classes on the article itself (`tag-travel`, `author-jane`,
/// `category-news`), but not a box about the author (`author-bio`,
/// `author-box`).
fn label_token(token: &str) -> bool {
    let mut first: Option<&str> = None;
    let mut count = 0;
    let mut describes = false;
    for_each_word(token, |w| {
        if first.is_none() {
            first = Some(w);
        } else {
            describes |= BOX_WORDS.iter().any(|n| w.eq_ignore_ascii_case(n));
        }
        count += 1;
    });
    let Some(first) = first else { return false };
    if first.eq_ignore_ascii_case("js") {
        return true;
    }
    count >= 2
        && !describes
        && [
            "tag", "category", "author", "format", "status", "type", "postid", "topics", "section",
        ]
        .iter()
        .any(|l| first.eq_ignore_ascii_case(l))
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

    /// What two sets of tokens say together: each token speaks for itself.
    fn or(self, other: ClassSignal) -> ClassSignal {
        ClassSignal {
            strong_negative: self.strong_negative || other.strong_negative,
            weak_negative: self.weak_negative || other.weak_negative,
            positive: self.positive || other.positive,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum WordSignal {
    Strong,
    Weak,
    Positive,
}

/// One entry of the word lists: the word, what it signals, and whether it
/// matches as a prefix.
struct Entry {
    word: &'static [u8],
    signal: WordSignal,
    prefix: bool,
}

/// The word lists indexed by first letter, so a class word is compared with
/// the handful of entries that share its first letter rather than all of them
/// (class words are matched for every element of every page).
fn word_index() -> &'static [Vec<Entry>; 26] {
    static INDEX: std::sync::OnceLock<[Vec<Entry>; 26]> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index: [Vec<Entry>; 26] = Default::default();
        let lists: [(&[&'static str], WordSignal, bool); 5] = [
            (STRONG_WORDS, WordSignal::Strong, false),
            (STRONG_PREFIXES, WordSignal::Strong, true),
            (WEAK_WORDS, WordSignal::Weak, false),
            (WEAK_PREFIXES, WordSignal::Weak, true),
            (POSITIVE_PREFIXES, WordSignal::Positive, true),
        ];
        for (words, signal, prefix) in lists {
            for w in words {
                let b = w.as_bytes();
                // The lists are lower-case ASCII words.
                if let Some(slot) = b
                    .first()
                    .and_then(|c| index.get_mut(c.wrapping_sub(b'a') as usize))
                {
                    slot.push(Entry {
                        word: b,
                        signal,
                        prefix,
                    });
                }
            }
        }
        index
    })
}

/// What a class word signals: furniture (strong beats weak), content, or
/// nothing. Only ASCII words can match.
fn word_signal(w: &str) -> Option<WordSignal> {
    let b = w.as_bytes();
    let first = b.first()?.to_ascii_lowercase();
    let entries = word_index().get(first.wrapping_sub(b'a') as usize)?;
    let mut best: Option<WordSignal> = None;
    for e in entries {
        let hit = if e.prefix {
            b.len() >= e.word.len() && b[..e.word.len()].eq_ignore_ascii_case(e.word)
        } else {
            b.eq_ignore_ascii_case(e.word)
        };
        if hit && best.is_none_or(|s| e.signal.rank() > s.rank()) {
            best = Some(e.signal);
        }
    }
    best
}

impl WordSignal {
    fn rank(self) -> u8 {
        match self {
            WordSignal::Strong => 3,
            WordSignal::Weak => 2,
            WordSignal::Positive => 1,
        }
    }
}

/// Each class token (and the id) says one thing: furniture when a word names
/// furniture outright (`article-comments`), content when a content word
/// softens a weak one (`content-sidebar-wrap` is the content column). Each
/// distinct class attribute is read once (`memo`): a page repeats a few
/// dozen of them over thousands of elements.
pub(crate) fn class_signal<'p>(
    e: &'p ElementData,
    memo: &mut HashMap<&'p str, ClassSignal>,
) -> ClassSignal {
    let class = e.attr("class").unwrap_or("");
    let of_class = *memo.entry(class).or_insert_with(|| tokens_signal(class));
    of_class.or(id_signal(e))
}

/// What the id says. A heading's id is usually a slug of its own text (an
/// anchor for a table of contents): it describes the words, not the
/// element's role.
fn id_signal(e: &ElementData) -> ClassSignal {
    match e.attr("id") {
        Some(id) if !is_heading(e.local_name()) => token_signal(id),
        _ => ClassSignal::default(),
    }
}

/// What a space-separated list of class tokens says, each token alone.
fn tokens_signal(tokens: &str) -> ClassSignal {
    tokens
        .split_ascii_whitespace()
        .fold(ClassSignal::default(), |s, t| s.or(token_signal(t)))
}

/// What one class token (or an id) says.
fn token_signal(token: &str) -> ClassSignal {
    let mut s = ClassSignal::default();
    if label_token(token) {
        return s;
    }
    let (mut strong, mut weak, mut positive) = (false, false, false);
    // A live ticker's entries are "comments" on the match or event:
    // the content itself, not readers' comments.
    let (mut live, mut comment_only) = (false, true);
    for_each_word(token, |w| {
        live |= word_starts(w, "live");
        match word_signal(w) {
            Some(WordSignal::Strong) => {
                strong = true;
                comment_only &= word_starts(w, "comment");
            }
            Some(WordSignal::Weak) => weak = true,
            Some(WordSignal::Positive) => positive = true,
            None => {}
        }
    });
    if strong && live && comment_only {
        s.positive = true;
    } else if strong {
        s.strong_negative = true;
    } else if positive {
        s.positive = true;
    } else if weak {
        s.weak_negative = true;
    }
    s
}

/// Classify every node. Descendants of a `Removed` node are `Removed` too.
pub(crate) fn classify(page: &Page) -> Classes {
    let nodes = page.nodes();
    let mut kinds = vec![Kind::Plain; nodes.len()];
    let mut signals = vec![ClassSignal::default(); nodes.len()];
    let mut memo = HashMap::new();
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
                let id = NodeId::new(i as u32);
                let kind = element_kind(page, id, e);
                if kind != Kind::Removed && (e.has_attr("class") || e.has_attr("id")) {
                    signals[i] = class_signal(e, &mut memo);
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
    // A frame a live capture took the document of is read as part of the
    // page: an embedded article can be the main content.
    let removed = removed_tag(tag) && !page.is_captured_frame(id);
    if removed || page.node(id).inert {
        return Kind::Removed;
    }
    let vis = page.static_visibility(id);
    let shown = page.is_rendered(id) || !page.hides_subtree(id);
    if vis.hidden() && !page.has_layout() || !shown {
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
