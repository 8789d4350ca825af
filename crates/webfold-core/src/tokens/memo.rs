//! Counts of texts that share most of their lines.
//!
//! A fitter renders a view several times under one budget (the CNT's
//! search, Markdown's paging), and each rendering repeats most lines of the
//! one before. A text's count is the sum of its segments' counts when each
//! segment ends where the pre-tokenizer must end a piece anyway, so a line
//! seen before costs a lookup instead of a split and a merge.
//!
//! Where a piece must end: after a newline whose next line holds a visible
//! ASCII character after its indentation (spaces only), and, with no
//! indentation, not a `/` (o200k's punctuation piece takes newlines and
//! slashes after it). No piece of either split pattern runs on past such a
//! newline: the pieces that take a newline take only more newlines, slashes
//! or white space that reaches another newline. Any other line is joined to
//! the segment before it, which keeps the sum exact and only caches less.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::{Encoding, count};

/// What a memo keeps at most: its segments' bytes and, per segment, about
/// what its slot and allocation cost. A fitter's renderings are about the
/// budget's size; the first count of a whole page's text may be far larger,
/// and past this its segments are counted and not kept.
const HELD_MAX: usize = 1 << 20;
const SLOT_COST: usize = 48;

/// Exact counts of texts under one encoding, remembering each segment's.
pub struct Memo {
    enc: Encoding,
    seen: HashMap<Box<[u8]>, usize, BuildHasherDefault<SegmentHasher>>,
    held: usize,
}

impl Memo {
    pub fn new(enc: Encoding) -> Memo {
        Memo {
            enc,
            seen: HashMap::default(),
            held: 0,
        }
    }

    /// Exactly [`count`]`(text, enc)`.
    pub fn count(&mut self, text: &str) -> usize {
        segments(text)
            .map(|segment| match self.seen.get(segment.as_bytes()) {
                Some(&n) => n,
                None => {
                    let n = count(segment, self.enc);
                    let cost = segment.len() + SLOT_COST;
                    if self.held + cost <= HELD_MAX {
                        self.held += cost;
                        self.seen.insert(segment.as_bytes().into(), n);
                    }
                    n
                }
            })
            .sum()
    }
}

/// `text` cut after every newline where a piece must end (module docs).
fn segments(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut newlines = memchr::memchr_iter(b'\n', bytes);
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let from = start;
        let end = loop {
            match newlines.next() {
                Some(i) if starts_segment(bytes.get(i + 1..).unwrap_or_default()) => break i + 1,
                Some(_) => {}
                None => break bytes.len(),
            }
        };
        start = end;
        text.get(from..end)
    })
}

/// Whether a piece must start at the beginning of `line`, after a newline.
fn starts_segment(line: &[u8]) -> bool {
    let indent = line.iter().take_while(|&&b| b == b' ').count();
    line.get(indent)
        .is_some_and(|&c| c.is_ascii_graphic() && (indent > 0 || c != b'/'))
}

/// The count tables' own hash, fed one segment at a time.
#[derive(Default)]
struct SegmentHasher(u64);

impl Hasher for SegmentHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = self.0.rotate_left(5) ^ super::bpe::hash_bytes(bytes);
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = self.0.rotate_left(5) ^ n as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sums over segments equal whole counts, for texts built from the
    /// characters the split patterns treat apart around newlines.
    #[test]
    fn segment_sums_are_whole_counts() {
        let parts = [
            "\n",
            "\n\n",
            "\r\n",
            " ",
            "  ",
            "\t",
            "/",
            "//",
            ":",
            "- ",
            "a",
            "Word",
            "12345",
            "'s",
            "\u{a0}",
            "…",
            "é",
            "[x](https://a.b/c)",
            "  - ",
            "# ",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let mut memo = Memo::new(enc);
            for _ in 0..20_000 {
                let len = (next() % 24) as usize;
                let text: String = (0..len)
                    .map(|_| parts[(next() % parts.len() as u64) as usize])
                    .collect();
                let pieces: usize = segments(&text).map(|s| count(s, enc)).sum();
                assert_eq!(pieces, count(&text, enc), "{text:?} in {enc}");
                assert_eq!(memo.count(&text), count(&text, enc), "{text:?} in {enc}");
                assert_eq!(segments(&text).collect::<String>(), text);
            }
        }
    }

    #[test]
    fn cuts_where_a_line_starts_visibly() {
        let cut: Vec<&str> = segments("a\n  b\n/c\n\nd\n \n e").collect();
        assert_eq!(cut, ["a\n", "  b\n/c\n\n", "d\n \n", " e"]);
    }
}
