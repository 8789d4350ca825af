//! An item's text while the CNT is merged, kept as pieces.
//!
//! Merges join whole texts level after level: on a deep page the text of
//! every level below is prepended to at each level above. Copied at each
//! join, that costs depth × length; as pieces, a join moves the pieces of
//! the shorter side only, and the text is written out once, at the end.

use std::collections::VecDeque;

#[derive(Debug, Default)]
pub(super) struct Text {
    pieces: VecDeque<String>,
    len: usize,
}

impl Text {
    pub(super) fn new(s: String) -> Text {
        let mut t = Text::default();
        t.push_back(s);
        t
    }

    /// Bytes, as the written-out text will have.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn is_blank(&self) -> bool {
        self.pieces.iter().all(|p| p.trim().is_empty())
    }

    fn starts_with_space(&self) -> bool {
        self.pieces.front().is_some_and(|p| p.starts_with(' '))
    }

    fn ends_with_space(&self) -> bool {
        self.pieces.back().is_some_and(|p| p.ends_with(' '))
    }

    fn push_back(&mut self, s: String) {
        if !s.is_empty() {
            self.len += s.len();
            self.pieces.push_back(s);
        }
    }

    /// `a` then `b`, the pieces of the one with fewer moved to the other.
    fn concat(mut a: Text, mut b: Text) -> Text {
        if a.pieces.len() >= b.pieces.len() {
            a.len += b.len;
            a.pieces.extend(b.pieces);
            a
        } else {
            b.len += a.len;
            for p in a.pieces.into_iter().rev() {
                b.pieces.push_front(p);
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
            if let Some(last) = a.pieces.back_mut() {
                last.pop();
                a.len -= 1;
            }
        } else if !(a_space || b_space || (a_inline_end && b_inline_start)) {
            a.push_back(" ".to_string());
        }
        Text::concat(a, b)
    }

    pub(super) fn into_string(self) -> String {
        let mut pieces = self.pieces.into_iter();
        let mut out = pieces.next().unwrap_or_default();
        out.reserve(self.len - out.len());
        pieces.for_each(|p| out.push_str(&p));
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
}
