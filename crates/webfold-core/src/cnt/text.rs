//! An item's text while the CNT is merged, kept as pieces.
//!
//! Merges join whole texts level after level: on a deep page the text of
//! every level below is prepended to at each level above. Copied at each
//! join, that costs depth × length; as pieces, a join moves the pieces of
//! the shorter side only, and the text is written out once, at the end.

use std::collections::VecDeque;
use std::mem;

/// Texts this short are joined into one string. Copying a few dozen bytes
/// costs less than a list of pieces, which most items would otherwise
/// hold: a row's cells and the spaces between them are short texts.
const FLAT_MAX: usize = 64;

/// The pieces in order: `first`, then `more`. Most texts are one piece
/// and never join, so the first lives apart and costs no second allocation,
/// and the rest is boxed: a text is held per DOM node while the CNT is
/// merged. `first` is empty only when the whole text is.
#[derive(Debug, Default)]
pub(super) struct Text {
    first: String,
    #[expect(clippy::box_collection, reason = "8 bytes inline, not 32")]
    more: Option<Box<VecDeque<String>>>,
    len: usize,
}

impl Text {
    pub(super) fn new(s: String) -> Text {
        Text {
            len: s.len(),
            first: s,
            more: None,
        }
    }

    /// The pieces after the first.
    fn more(&self) -> impl DoubleEndedIterator<Item = &String> {
        self.more.iter().flat_map(|m| m.iter())
    }

    fn more_mut(&mut self) -> &mut VecDeque<String> {
        self.more.get_or_insert_with(Box::default)
    }

    fn more_len(&self) -> usize {
        self.more.as_ref().map_or(0, |m| m.len())
    }

    /// Bytes, as the written-out text will have.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn is_blank(&self) -> bool {
        self.first.trim().is_empty() && self.more().all(|p| p.trim().is_empty())
    }

    fn starts_with_space(&self) -> bool {
        self.first.starts_with(' ')
    }

    fn ends_with_space(&self) -> bool {
        self.more()
            .next_back()
            .unwrap_or(&self.first)
            .ends_with(' ')
    }

    fn push_back(&mut self, s: String) {
        self.len += s.len();
        if self.first.is_empty() {
            self.first = s;
        } else if !s.is_empty() {
            self.more_mut().push_back(s);
        }
    }

    /// `a` then `b` (neither empty): one string when short, else the
    /// pieces of the one with fewer moved to the other.
    fn concat(mut a: Text, mut b: Text) -> Text {
        if a.len + b.len <= FLAT_MAX {
            let mut s = a.into_string();
            s.reserve_exact(b.len);
            s.push_str(&b.first);
            b.more().for_each(|p| s.push_str(p));
            return Text::new(s);
        }
        if a.more_len() >= b.more_len() {
            a.len += b.len;
            let more = a.more_mut();
            more.push_back(b.first);
            more.extend(b.more.into_iter().flat_map(|m| *m));
            a
        } else {
            b.len += a.len;
            let b_first = mem::replace(&mut b.first, a.first);
            let more = b.more_mut();
            more.push_front(b_first);
            for p in a.more.into_iter().flat_map(|m| *m).rev() {
                more.push_front(p);
            }
            b
        }
    }

    /// Joins two texts the way they read on screen: words touching across
    /// inline boundaries stay together, anything else is separated by a
    /// space. `b` ends the result unchanged (a space both share is taken
    /// from `a`), so positions within `b` move by `len() - b.len()`.
    pub(super) fn join(mut a: Text, a_inline_end: bool, b: Text, b_inline_start: bool) -> Text {
        if b.len == 0 {
            return a;
        }
        if a.len == 0 {
            return b;
        }
        let (a_space, b_space) = (a.ends_with_space(), b.starts_with_space());
        if a_space && b_space {
            match a.more.as_mut().and_then(|m| m.back_mut()) {
                Some(last) => last.pop(),
                None => a.first.pop(),
            };
            a.len -= 1;
            if let Some(m) = a.more.as_mut()
                && m.back().is_some_and(String::is_empty)
            {
                m.pop_back();
            }
            if a.first.is_empty() {
                // `a` was the one space: `b` alone is the join.
                return b;
            }
        } else if !(a_space || b_space || (a_inline_end && b_inline_start)) {
            a.push_back(" ".to_string());
        }
        Text::concat(a, b)
    }

    pub(super) fn into_string(self) -> String {
        let mut out = self.first;
        out.reserve(self.len - out.len());
        self.more
            .iter()
            .flat_map(|m| m.iter())
            .for_each(|p| out.push_str(p));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Text;

    fn join(a: &str, a_inline_end: bool, b: &str, b_inline_start: bool) -> String {
        let t = Text::join(
            Text::new(a.into()),
            a_inline_end,
            Text::new(b.into()),
            b_inline_start,
        );
        let len = t.len();
        let s = t.into_string();
        assert_eq!(s.len(), len);
        s
    }

    #[test]
    fn joins_as_the_text_reads() {
        assert_eq!(join("a ", false, " b", false), "a b");
        assert_eq!(join("a", true, "b", true), "ab");
        assert_eq!(join("a", false, "b", true), "a b");
        assert_eq!(join("a ", false, "b", false), "a b");
        assert_eq!(join("", false, "b", false), "b");
        assert_eq!(join("a", false, "", false), "a");
    }

    #[test]
    fn the_shorter_side_moves_and_order_holds() {
        let mut t = Text::new("c".into());
        for w in ["b ", "a "] {
            t = Text::join(Text::new(w.into()), false, t, false);
        }
        let tail = Text::join(Text::new(" d".into()), false, Text::new(" e".into()), false);
        t = Text::join(t, false, tail, false);
        assert_eq!(t.into_string(), "a b c d e");
    }

    #[test]
    fn a_space_piece_taken_by_the_join_leaves_no_empty_piece() {
        let t = Text::join(Text::new("a".into()), false, Text::new(" ".into()), true);
        let t = Text::join(t, true, Text::new(" b".into()), false);
        assert_eq!(t.len(), 3);
        let t = Text::join(t, false, Text::new("c".into()), false);
        assert_eq!(t.into_string(), "a b c");
    }

    /// The join on plain strings, as the merge did before pieces.
    fn join_strings(mut a: String, a_inline_end: bool, b: &str, b_inline_start: bool) -> String {
        if b.is_empty() {
            return a;
        }
        if a.is_empty() {
            return b.to_string();
        }
        let (a_space, b_space) = (a.ends_with(' '), b.starts_with(' '));
        if a_space && b_space {
            a.push_str(&b[1..]);
        } else if a_space || b_space || (a_inline_end && b_inline_start) {
            a.push_str(b);
        } else {
            a.push(' ');
            a.push_str(b);
        }
        a
    }

    /// Joined in any order of nesting (appended to, prepended to), pieces
    /// read as the plain strings would.
    #[test]
    fn pieces_join_as_strings_do() {
        const WORDS: [&str; 7] = ["a", " ", "b ", " c", " d ", "", "ef"];
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % n
        };
        for _ in 0..2000 {
            let (mut text, mut plain) = (Text::default(), String::new());
            for _ in 0..next(8) {
                let w = WORDS[next(WORDS.len() as u64) as usize];
                let (edge, other) = (next(2) == 0, next(2) == 0);
                if next(2) == 0 {
                    text = Text::join(text, edge, Text::new(w.into()), other);
                    plain = join_strings(plain, edge, w, other);
                } else {
                    text = Text::join(Text::new(w.into()), other, text, edge);
                    plain = join_strings(w.to_string(), other, &plain, edge);
                }
                assert_eq!(text.len(), plain.len());
                assert_eq!(text.is_blank(), plain.trim().is_empty());
            }
            assert_eq!(text.into_string(), plain);
        }
    }
}
