//! What an interface element is for, read from its words: the few jobs agents
//! are sent to do on almost every site (search it, sign in, sign up for its
//! newsletter, read its legal pages, contact it, page through it, share,
//! comment, find the author, deal with cookies).
//!
//! Pages keep these controls in their furniture (header, sidebar, footer),
//! which budgeted views spend last; the views use a [`Purposes`] to keep
//! them anyway, and a task's words to rank first the elements it names
//! ([`TaskFocus`]). Tasks are often in another language than the page ("search"
//! on a page that says "Suchen"), so each purpose lists the common interface
//! words of the languages the web is mostly written in. No model, nothing
//! learned: a fixed word list, so every view stays a pure, deterministic
//! function of the page.

mod focus;

use std::collections::HashMap;

pub use focus::{FOCUSED, Place, TaskFocus};

/// One job an element can serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Purpose {
    Search,
    SignIn,
    SignUp,
    Legal,
    Contact,
    Paging,
    Share,
    Comment,
    Author,
    Cookies,
}

impl Purpose {
    pub const ALL: [Purpose; 10] = [
        Purpose::Search,
        Purpose::SignIn,
        Purpose::SignUp,
        Purpose::Legal,
        Purpose::Contact,
        Purpose::Paging,
        Purpose::Share,
        Purpose::Comment,
        Purpose::Author,
        Purpose::Cookies,
    ];

    fn bit(self) -> u16 {
        1 << (self as u16)
    }

    /// Its name in `words.txt`.
    fn name(self) -> &'static str {
        match self {
            Purpose::Search => "search",
            Purpose::SignIn => "sign_in",
            Purpose::SignUp => "sign_up",
            Purpose::Legal => "legal",
            Purpose::Contact => "contact",
            Purpose::Paging => "paging",
            Purpose::Share => "share",
            Purpose::Comment => "comment",
            Purpose::Author => "author",
            Purpose::Cookies => "cookies",
        }
    }
}

/// A set of purposes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Purposes(u16);

impl Purposes {
    pub const NONE: Purposes = Purposes(0);

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn contains(self, p: Purpose) -> bool {
        self.0 & p.bit() != 0
    }

    pub fn insert(&mut self, p: Purpose) {
        self.0 |= p.bit();
    }

    pub fn union(self, other: Purposes) -> Purposes {
        Purposes(self.0 | other.0)
    }

    pub fn intersects(self, other: Purposes) -> bool {
        self.0 & other.0 != 0
    }

    pub fn iter(self) -> impl Iterator<Item = Purpose> {
        Purpose::ALL.into_iter().filter(move |p| self.contains(*p))
    }

    /// The purposes `text` (a name, label, placeholder or URL) says.
    pub fn of(text: &str) -> Purposes {
        with_words(text, Purposes::of_words)
    }

    /// The purposes the words `spans` of `lower` say.
    fn of_words(lower: &str, spans: &[Span]) -> Purposes {
        let lexicon = lexicon();
        let mut out = Purposes::NONE;
        for (i, &(a, b)) in spans.iter().enumerate() {
            for (p, parts) in lexicon.get(&lower[a..b]) {
                if !out.contains(*p) && says_at(lower, &spans[i..], parts) {
                    out.insert(*p);
                }
            }
        }
        out
    }

    /// The purposes an element's name or label says. Interface labels are
    /// short ("Datenschutz", "Log in", "Mehr Artikel von Stefanus →"); a
    /// long name is a headline or a teaser, whose words say what it is about,
    /// not what it does, so only its first and last words count there
    /// ("… Wake News Radio/TV →" is still the next post).
    pub fn of_label(text: &str) -> Purposes {
        let edges = |lower: &str, spans: &[Span]| match spans {
            [] => Purposes::NONE,
            [.., last] => Purposes::of_words(lower, &spans[..1])
                .union(Purposes::of_words(lower, std::slice::from_ref(last))),
        };
        // Most texts on a page are long: their edges are read without
        // splitting the rest (a word never spans a space).
        let mut spaced = text.split_whitespace();
        if spaced.clone().nth(LABEL_WORDS).is_some() {
            let first = with_words(spaced.next().unwrap_or_default(), |l, sp| {
                Purposes::of_words(l, &sp[..sp.len().min(1)])
            });
            let last = with_words(spaced.next_back().unwrap_or_default(), |l, sp| {
                Purposes::of_words(l, &sp[sp.len().saturating_sub(1)..])
            });
            return first.union(last);
        }
        with_words(text, |lower, spans| {
            if spans.len() <= LABEL_WORDS {
                Purposes::of_words(lower, spans)
            } else {
                edges(lower, spans)
            }
        })
    }

    /// The purposes of a link's address: its path and query words
    /// (`/datenschutz/`, `?page=2`, `twitter.com/intent/tweet`).
    pub fn of_url(url: &str) -> Purposes {
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        // The path's short segments (`/datenschutz/`, `/author/jane/`,
        // `/page/2`); a segment of many words is an article's slug, which
        // says what it is about, as a long name does. Of the query, only a
        // page number counts.
        let (path_only, query) = path.split_once(['?', '#']).unwrap_or((path, ""));
        let mut out = Purposes::NONE;
        for segment in path_only.split('/') {
            let joins = segment
                .bytes()
                .filter(|b| matches!(b, b'-' | b'_' | b'.' | b'+'));
            if joins.take(SLUG_WORDS).count() < SLUG_WORDS {
                out = out.union(Purposes::of(segment));
            }
        }
        if query.contains("page=") {
            out.insert(Purpose::Paging);
        }
        const SHARE_HOSTS: [&str; 6] = [
            "twitter.com",
            "x.com",
            "facebook.com",
            "linkedin.com",
            "pinterest.",
            "wa.me",
        ];
        let sharing = path.contains("share") || path.contains("intent") || path.contains("pin/");
        if sharing
            && SHARE_HOSTS
                .iter()
                .any(|h| host.to_ascii_lowercase().contains(h))
        {
            out.insert(Purpose::Share);
        }
        out
    }
}

/// Address segments longer than this many words are slugs.
const SLUG_WORDS: usize = 4;

/// Names longer than this many words are not interface labels.
const LABEL_WORDS: usize = 8;

/// Lower-cased words of `text`: runs of letters and digits; each symbol a
/// word of its own (`›`, `»`), so arrows name a purpose too.
pub(crate) fn words(text: &str) -> Vec<String> {
    with_words(text, |lower, spans| {
        spans
            .iter()
            .map(|&(a, b)| lower[a..b].to_string())
            .collect()
    })
}

/// A word of [`words`] as a byte range of the lower-cased text.
type Span = (usize, usize);

/// Calls `f` with [`words`] as spans of one lower-cased copy of `text`,
/// in buffers the thread reuses: the views read the words of every link
/// and field on a page, and allocating for each cost more than the rest.
fn with_words<R>(text: &str, f: impl FnOnce(&str, &[Span]) -> R) -> R {
    thread_local! {
        static BUFFERS: std::cell::RefCell<(String, Vec<Span>)> = Default::default();
    }
    BUFFERS.with(|b| {
        let mut guard = b.borrow_mut();
        let (lower, spans) = &mut *guard;
        split_into(text, lower, spans);
        f(lower, spans)
    })
}

fn split_into(text: &str, lower: &mut String, spans: &mut Vec<Span>) {
    lower.clear();
    spans.clear();
    lower.reserve(text.len());
    let mut start: Option<usize> = None;
    for c in text.chars() {
        // ASCII first: most words of names and addresses are, and the
        // Unicode tables cost more than the rest of the split.
        if c.is_ascii_alphanumeric() || c == '\'' {
            start.get_or_insert(lower.len());
            lower.push(c.to_ascii_lowercase());
            continue;
        }
        if !c.is_ascii() && c.is_alphanumeric() {
            start.get_or_insert(lower.len());
            lower.extend(c.to_lowercase());
            continue;
        }
        if let Some(s) = start.take() {
            spans.push((s, lower.len()));
        }
        if !c.is_whitespace() && !c.is_ascii_punctuation() || matches!(c, '<' | '>') {
            let s = lower.len();
            lower.push(c);
            // `>>` and `<<` as one word.
            let doubled = spans.last().is_some_and(|l| {
                l.1 == s && matches!(&lower[l.0..s], ">" | "<") && lower[l.0..s] == lower[s..]
            });
            match spans.last_mut() {
                Some(last) if doubled => last.1 = lower.len(),
                _ => spans.push((s, lower.len())),
            }
        }
    }
    if let Some(s) = start {
        spans.push((s, lower.len()));
    }
}

/// Every stem of `words.txt`, split into its words, by the first two
/// characters of its first word (a one-character word: that and `\0`): a
/// name's words are looked up, not matched against every stem.
struct Lexicon(HashMap<(char, char), Vec<Stem>, PairHash>);

/// A stem of `words.txt`: its purpose and its words.
type Stem = (Purpose, Vec<&'static str>);

impl Lexicon {
    /// The stems that can match a word starting with `word`'s first two
    /// characters.
    fn get(&self, word: &str) -> &[Stem] {
        self.0.get(&key(word)).map_or(&[], Vec::as_slice)
    }
}

fn key(word: &str) -> (char, char) {
    let mut chars = word.chars();
    (chars.next().unwrap_or('\0'), chars.next().unwrap_or('\0'))
}

/// A hasher for two characters: the lexicon is read for every word of every
/// link and field on a page.
#[derive(Default, Clone, Copy)]
struct PairHash;

impl std::hash::BuildHasher for PairHash {
    type Hasher = PairHasher;
    fn build_hasher(&self) -> PairHasher {
        PairHasher(0)
    }
}

struct PairHasher(u64);

impl std::hash::Hasher for PairHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ u64::from(n)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

fn lexicon() -> &'static Lexicon {
    static LEXICON: std::sync::OnceLock<Lexicon> = std::sync::OnceLock::new();
    LEXICON.get_or_init(|| {
        let mut map = Lexicon(HashMap::with_hasher(PairHash));
        for line in include_str!("words.txt").lines() {
            let Some((name, stems)) = line.split_once(": ") else {
                continue;
            };
            let Some(p) = Purpose::ALL.into_iter().find(|p| p.name() == name) else {
                continue;
            };
            for stem in stems.split(", ") {
                let parts: Vec<&'static str> = stem.split([' ', '-']).collect();
                map.0.entry(key(parts[0])).or_default().push((p, parts));
            }
        }
        map
    })
}

/// Whether `words` start with the stem's `parts`: every word equal but the
/// last, which may also start with its part (parts of three letters or fewer
/// match whole words only).
fn says_at(lower: &str, words: &[Span], parts: &[&str]) -> bool {
    if words.len() < parts.len() {
        return false;
    }
    let last = parts.len() - 1;
    parts
        .iter()
        .zip(words)
        .enumerate()
        .all(|(i, (s, &(a, b)))| {
            let w = &lower[a..b];
            w == *s || (i == last && w.starts_with(s) && over_three_letters(s))
        })
}

/// Whether `s` has more than three characters, counting them only when
/// its length in bytes cannot tell (a character is at most four bytes).
fn over_three_letters(s: &str) -> bool {
    s.len() > 12 || (s.len() > 3 && s.chars().count() > 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(text: &str, p: Purpose) -> bool {
        Purposes::of(text).contains(p)
    }

    #[test]
    fn words_in_several_languages() {
        assert!(has("Suche nach:", Purpose::Search));
        assert!(has("Rechercher", Purpose::Search));
        assert!(has("Datenschutzerklärung", Purpose::Legal));
        assert!(has("AGB", Purpose::Legal));
        assert!(!has("Agbogbloshie", Purpose::Legal));
        assert!(has("Log in", Purpose::SignIn));
        assert!(has("Zaloguj się", Purpose::SignIn));
        assert!(has("« Vorheriger Artikel", Purpose::Paging));
        assert!(has("›", Purpose::Paging));
        assert!(has("Per Twitter teilen", Purpose::Share));
        assert!(has("Zeige alle Beiträge von mywakenews →", Purpose::Author));
        assert!(has("Cookie-Einstellungen", Purpose::Cookies));
        assert!(!has("Wolf sightings in Brandenburg", Purpose::Search));
    }

    #[test]
    fn every_purpose_has_its_words() {
        for p in Purpose::ALL {
            let n = lexicon()
                .0
                .values()
                .flatten()
                .filter(|(q, _)| *q == p)
                .count();
            assert!(n >= 10, "{p:?} has {n} stems in words.txt");
        }
    }

    #[test]
    fn addresses_say_purposes_too() {
        assert!(Purposes::of_url("https://example.org/datenschutz/").contains(Purpose::Legal));
        assert!(
            Purposes::of_url("https://twitter.com/intent/tweet?url=x").contains(Purpose::Share)
        );
        assert!(Purposes::of_url("https://example.org/author/jane/").contains(Purpose::Author));
        assert!(!Purposes::of_url("https://twitter.com/someone").contains(Purpose::Share));
    }
}
