//! A view focused on a task: the elements the task's words point at rank
//! first, and the rest of the view keeps its shape.
//!
//! A task ("Search the club blog for \"Crosslauf\" with the search box in the
//! sidebar") says four things an element can match, each scored:
//! - what it is for ([`Purposes`], in any language the word lists know:
//!   "search" finds "Suchen" and "Rechercher");
//! - its own words: the task's content words and quoted phrases in the
//!   element's name or address ("Datenschutz", "Twitter", "Gemma");
//! - the kind of element its verb acts on ("search", "type", "enter" a
//!   field; "tick" a checkbox; "choose" from a list; "open", "go to" a link;
//!   "accept", "press" a button);
//! - where it is ("in the footer", "in the sidebar", "at the top").
//!
//! No model and nothing learned: the same task on the same page gives the
//! same view.

use super::{Purpose, Purposes, words};

/// Where a task says its element is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Place {
    #[default]
    Anywhere,
    /// The page's header (`banner`).
    Header,
    /// The page's footer (`contentinfo`).
    Footer,
    /// A sidebar (`complementary`).
    Sidebar,
    /// A navigation menu.
    Navigation,
}

impl Place {
    /// The place a landmark element makes, by its tag (`footer`) or its
    /// ARIA role (`contentinfo`); `None` for any other.
    pub fn of_landmark(tag_or_role: &str) -> Option<Place> {
        match tag_or_role {
            "footer" | "contentinfo" => Some(Place::Footer),
            "header" | "banner" => Some(Place::Header),
            "aside" | "complementary" => Some(Place::Sidebar),
            "nav" | "navigation" => Some(Place::Navigation),
            _ => None,
        }
    }
}

/// What a task asks for, read once and matched against every element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskFocus {
    purposes: Purposes,
    /// Content words, lower case, function words and generic nouns removed.
    words: Vec<String>,
    /// Quoted phrases, lower case.
    phrases: Vec<String>,
    /// Roles the task's verbs act on.
    roles: Vec<&'static str>,
    place: Place,
    /// "below", "at the end", "the last": of equal elements, the later.
    later: bool,
}

/// Points for each kind of match; an element scoring under [`FOCUSED`] is
/// not focused.
const PURPOSE: u32 = 4;
const PHRASE: u32 = 6;
const WORD: u32 = 3;
const URL_WORD: u32 = 1;
const ROLE: u32 = 2;
const PLACE: u32 = 2;
/// The least score of an element the task points at: a purpose, a quoted
/// phrase, or one of its words with the right kind of element or place.
pub const FOCUSED: u32 = 4;

impl TaskFocus {
    /// The focus of `task`, or `None` when it says nothing to match.
    pub fn new(task: &str) -> Option<TaskFocus> {
        let all = words(task);
        let mut phrases = quoted(task);
        let purposes = Purposes::of(task);
        if purposes.contains(Purpose::Search) {
            // `Search the site for "Wolf"`: the phrase is what to type, not
            // the name of the field to type it in.
            phrases.retain(|p| !is_query(task, p));
        }
        let focus = TaskFocus {
            purposes,
            words: all
                .iter()
                .filter(|w| w.chars().count() > 2 && !STOP.contains(&w.as_str()))
                .filter(|w| w.chars().any(char::is_alphanumeric))
                .cloned()
                .collect(),
            phrases,
            roles: roles_of(&all),
            place: place_of(&all),
            later: all
                .iter()
                .any(|w| matches!(w.as_str(), "below" | "bottom" | "end" | "last" | "under")),
        };
        let empty = focus.purposes.is_empty()
            && focus.words.is_empty()
            && focus.phrases.is_empty()
            && focus.roles.is_empty();
        (!empty).then_some(focus)
    }

    /// Of equal elements, whether the task wants the later one.
    pub fn prefers_later(&self) -> bool {
        self.later
    }

    /// How strongly the task points at an element with this `role`,
    /// accessible `name`, link `url` and `place` on the page.
    pub fn score(&self, role: &str, name: &str, url: Option<&str>, place: Place) -> u32 {
        let name_words = words(name);
        let mut score = 0;
        let mut purposes = Purposes::of_label(name);
        if let Some(u) = url {
            purposes = purposes.union(Purposes::of_url(u));
        }
        if purposes.intersects(self.purposes) {
            score += PURPOSE;
        }
        let lower = name.to_lowercase();
        if self.phrases.iter().any(|p| lower.contains(p.as_str())) {
            score += PHRASE;
        }
        let matched = self
            .words
            .iter()
            .filter(|w| name_words.iter().any(|n| same_word(n, w)))
            .count() as u32;
        score += WORD * matched.min(3);
        if let Some(u) = url {
            let lower = u.to_lowercase();
            if self
                .words
                .iter()
                .any(|w| w.len() > 3 && lower.contains(w.as_str()))
            {
                score += URL_WORD;
            }
        }
        // The kind of element and where it is only tell apart elements the
        // task's words already point at: every link in the footer is not
        // what "open the privacy policy from the footer" asks for.
        if score == 0 {
            return 0;
        }
        if self.roles.contains(&role) {
            score += ROLE;
        }
        if self.place != Place::Anywhere && self.place == place {
            score += PLACE;
        }
        score
    }
}

/// Whether two lower-case words are the same word, allowing for endings
/// ("comments" and "comment", "subscribe" and "subscribed").
fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.chars().count() >= 4 && long.starts_with(short) && long.len() - short.len() <= 3
}

/// Whether `phrase` follows "for" in `task` ("… for \"Wolf\"").
fn is_query(task: &str, phrase: &str) -> bool {
    let lower = task.to_lowercase();
    lower
        .find(phrase)
        .map(|at| lower[..at].trim_end_matches(['"', '“', '„', ' ', '«']))
        .is_some_and(|before| before.ends_with(" for"))
}

/// The phrases in straight or curly double quotes, lower case.
fn quoted(task: &str) -> Vec<String> {
    let normal: String = task
        .chars()
        .map(|c| {
            if matches!(c, '“' | '”' | '„' | '«' | '»') {
                '"'
            } else {
                c
            }
        })
        .collect();
    normal
        .split('"')
        .skip(1)
        .step_by(2)
        .map(|p| p.trim().to_lowercase())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The roles a task's verbs act on.
fn roles_of(words: &[String]) -> Vec<&'static str> {
    let mut roles = Vec::new();
    for w in words {
        let add: &[&'static str] = match w.as_str() {
            "search" | "look" => &["searchbox", "textbox", "combobox"],
            "type" | "enter" | "write" | "fill" | "put" | "leave" => &["textbox", "searchbox"],
            "tick" | "check" | "untick" | "uncheck" | "allow" => &["checkbox", "switch"],
            "choose" | "pick" | "select" => &["combobox", "radio", "option", "listbox"],
            "open" | "go" | "visit" | "follow" | "read" | "show" | "see" | "find" => &["link"],
            "press" | "click" | "accept" | "agree" | "submit" | "reject" | "decline" => &["button"],
            _ => &[],
        };
        for r in add {
            if !roles.contains(r) {
                roles.push(*r);
            }
        }
    }
    roles
}

fn place_of(words: &[String]) -> Place {
    for w in words {
        match w.as_str() {
            "footer" | "bottom" => return Place::Footer,
            "sidebar" | "aside" => return Place::Sidebar,
            "header" | "masthead" => return Place::Header,
            "menu" | "navigation" => return Place::Navigation,
            _ => {}
        }
    }
    Place::Anywhere
}

/// Words that say nothing about which element: function words, the verbs
/// [`roles_of`] reads, and the generic nouns of interface talk.
const STOP: &[&str] = &[
    "the",
    "and",
    "for",
    "with",
    "this",
    "that",
    "these",
    "those",
    "from",
    "into",
    "onto",
    "via",
    "using",
    "use",
    "its",
    "it's",
    "his",
    "her",
    "their",
    "our",
    "your",
    "you",
    "i'd",
    "i'm",
    "like",
    "want",
    "would",
    "please",
    "can",
    "could",
    "how",
    "where",
    "what",
    "which",
    "who",
    "does",
    "there",
    "then",
    "than",
    "not",
    "one",
    "all",
    "every",
    "more",
    "other",
    "some",
    "any",
    "about",
    "after",
    "before",
    "above",
    "below",
    "under",
    "over",
    "near",
    "next",
    "top",
    "bottom",
    "end",
    "last",
    "first",
    "very",
    "just",
    "also",
    "only",
    "each",
    "both",
    "them",
    "they",
    "him",
    "she",
    "has",
    "have",
    "had",
    "are",
    "was",
    "were",
    "been",
    "being",
    "get",
    "make",
    "take",
    "give",
    "let",
    "put",
    "open",
    "show",
    "see",
    "find",
    "read",
    "go",
    "visit",
    "follow",
    "click",
    "press",
    "type",
    "enter",
    "write",
    "fill",
    "leave",
    "tick",
    "check",
    "choose",
    "pick",
    "select",
    "look",
    "page",
    "site",
    "website",
    "web",
    "link",
    "links",
    "button",
    "buttons",
    "field",
    "fields",
    "box",
    "form",
    "list",
    "section",
    "area",
    "part",
    "menu",
    "footer",
    "header",
    "sidebar",
    "navigation",
    "article",
    "post",
    "blog",
    "my",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_points_at_the_element_it_names_across_languages() {
        let f = TaskFocus::new("Search the club blog for \"Crosslauf\".").unwrap();
        let search = f.score("textbox", "Suche nach:", None, Place::Anywhere);
        let other = f.score(
            "link",
            "Ergebnisse 2020",
            Some("/ergebnisse/"),
            Place::Anywhere,
        );
        assert!(search >= FOCUSED && other < FOCUSED, "{search} {other}");

        let f =
            TaskFocus::new("Open the privacy policy (\"Datenschutz\") from the footer.").unwrap();
        let footer = f.score("link", "Datenschutz", Some("/datenschutz/"), Place::Footer);
        let header = f.score("link", "Datenschutz", Some("/datenschutz/"), Place::Header);
        assert!(footer > header && header >= FOCUSED, "{footer} {header}");

        let f = TaskFocus::new("Reply to Gemma's comment.").unwrap();
        let gemma = f.score("link", "Reply to Gemma", None, Place::Anywhere);
        let bob = f.score("link", "Reply to Bob", None, Place::Anywhere);
        assert!(gemma > bob, "{gemma} {bob}");
    }

    #[test]
    fn a_task_with_nothing_to_match_is_no_focus() {
        assert_eq!(TaskFocus::new(""), None);
        assert_eq!(TaskFocus::new("   the of and "), None);
    }
}
