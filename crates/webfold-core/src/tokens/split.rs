//! The pre-tokenizers: o200k's and cl100k's split patterns, written out by
//! hand.
//!
//! tiktoken splits text with a fancy-regex pattern before merging bytes;
//! compiling it (Unicode classes, a look-ahead) took each process ~4 ms, and
//! a backtracking engine is slow to match. Here each alternative is a small scan with the backtracking the regex
//! engine would do worked out in advance (each function says how). Pieces
//! are exactly the regex's matches: `tests/tokens_exact.rs` compares them
//! with fancy-regex running tiktoken's patterns, on the corpus and on
//! generated text.
//!
//! Character classes come from regex-syntax, the crate that gives the regex
//! engine its Unicode tables, so both sides agree on every code point.

use std::sync::LazyLock;

use regex_syntax::hir::{Class, HirKind};

// General categories (mutually exclusive), White_Space.
const LU: u8 = 1;
const LL: u8 = 1 << 1;
const LT: u8 = 1 << 2;
const LM: u8 = 1 << 3;
const LO: u8 = 1 << 4;
const MARK: u8 = 1 << 5;
const NUMBER: u8 = 1 << 6;
const SPACE: u8 = 1 << 7;

const LETTER: u8 = LU | LL | LT | LM | LO;
/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, o200k's leading ("upper") letters.
const UPPER: u8 = LU | LT | LM | LO | MARK;
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`, o200k's trailing ("lower") letters.
const LOWER: u8 = LL | LM | LO | MARK;

/// Class bits of every code point: a direct table for the BMP, sorted
/// ranges above it (emoji, historic scripts: rare, so a binary search).
struct Classes {
    bmp: Box<[u8]>,
    astral: Vec<(u32, u32, u8)>,
}

const CLASS_PATTERNS: [(&str, u8); 8] = [
    (r"\p{Lu}", LU),
    (r"\p{Ll}", LL),
    (r"\p{Lt}", LT),
    (r"\p{Lm}", LM),
    (r"\p{Lo}", LO),
    (r"\p{M}", MARK),
    (r"\p{N}", NUMBER),
    (r"\s", SPACE),
];

/// The code point ranges of a one-class pattern, as the regex engine sees them.
fn class_ranges(pattern: &str) -> Vec<(u32, u32)> {
    let Ok(hir) = regex_syntax::Parser::new().parse(pattern) else {
        return Vec::new();
    };
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        _ => Vec::new(),
    }
}

static CLASSES: LazyLock<Classes> = LazyLock::new(|| {
    let mut bmp = vec![0u8; 0x1_0000].into_boxed_slice();
    let mut astral = Vec::new();
    for (pattern, bit) in CLASS_PATTERNS {
        for (start, end) in class_ranges(pattern) {
            for cp in start..=end.min(0xFFFF) {
                bmp[cp as usize] |= bit;
            }
            if end > 0xFFFF {
                astral.push((start.max(0x1_0000), end, bit));
            }
        }
    }
    // General categories do not overlap and White_Space has no astral code
    // points, so the ranges are disjoint once sorted.
    astral.sort_unstable();
    Classes { bmp, astral }
});

impl Classes {
    #[inline]
    fn of(&self, c: char) -> u8 {
        let cp = c as u32;
        if let Some(&bits) = self.bmp.get(cp as usize) {
            return bits;
        }
        let i = self.astral.partition_point(|&(_, end, _)| end < cp);
        match self.astral.get(i) {
            Some(&(start, _, bits)) if start <= cp => bits,
            _ => 0,
        }
    }
}

/// Which split pattern.
#[derive(Clone, Copy)]
pub(super) enum Pattern {
    O200k,
    Cl100k,
}

/// Iterator over the byte ranges of a text's pieces; they tile the text.
pub(super) struct Pieces<'t> {
    s: Scanner<'t>,
    at: usize,
    pattern: Pattern,
}

impl<'t> Pieces<'t> {
    pub fn new(text: &'t str, pattern: Pattern) -> Self {
        Pieces {
            s: Scanner {
                text,
                classes: &CLASSES,
            },
            at: 0,
            pattern,
        }
    }
}

impl Iterator for Pieces<'_> {
    type Item = std::ops::Range<usize>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let start = self.at;
        if start >= self.s.text.len() {
            return None;
        }
        let end = match self.pattern {
            Pattern::O200k => self.s.o200k(start),
            Pattern::Cl100k => self.s.cl100k(start),
        };
        // Every alternative consumes at least one character; never stall.
        let end = if end > start {
            end
        } else {
            start + self.s.at(start).map_or(1, |c| c.len)
        };
        self.at = end;
        Some(start..end)
    }
}

#[derive(Clone, Copy)]
struct Char {
    c: char,
    class: u8,
    len: usize,
}

impl Char {
    fn is(self, bits: u8) -> bool {
        self.class & bits != 0
    }
    fn is_crlf(self) -> bool {
        matches!(self.c, '\r' | '\n')
    }
    /// `[^\r\n\p{L}\p{N}]`: the one character allowed before a word.
    fn is_prefix(self) -> bool {
        !self.is_crlf() && !self.is(LETTER | NUMBER)
    }
    /// `[^\s\p{L}\p{N}]`: punctuation, symbols, marks, controls.
    fn is_other(self) -> bool {
        !self.is(SPACE | LETTER | NUMBER)
    }
}

struct Scanner<'t> {
    text: &'t str,
    classes: &'t Classes,
}

/// A run of white space: where it ends, and where its last character and
/// its last CR/LF start.
struct SpaceRun {
    end: usize,
    chars: usize,
    last: usize,
    last_crlf: Option<usize>,
}

/// `[^\s\p{L}\p{N}]` for an ASCII byte: punctuation, symbols and the
/// controls that are not white space (U+0009–U+000D are).
fn is_ascii_other(b: u8) -> bool {
    b.is_ascii() && !b.is_ascii_alphanumeric() && !matches!(b, b'\t'..=b'\r' | b' ')
}

impl Scanner<'_> {
    #[inline(always)]
    fn at(&self, i: usize) -> Option<Char> {
        let bytes = self.text.as_bytes();
        let &b = bytes.get(i)?;
        if b < 0x80 {
            let c = char::from(b);
            return Some(Char {
                c,
                class: self.classes.bmp.get(usize::from(b)).copied().unwrap_or(0),
                len: 1,
            });
        }
        let c = self.text.get(i..)?.chars().next()?;
        Some(Char {
            c,
            class: self.classes.of(c),
            len: c.len_utf8(),
        })
    }

    /// End of the longest run from `i` of characters `keep` accepts.
    #[inline]
    fn run(&self, mut i: usize, keep: impl Fn(Char) -> bool) -> usize {
        while let Some(c) = self.at(i) {
            if !keep(c) {
                break;
            }
            i += c.len;
        }
        i
    }

    fn space_run(&self, i: usize) -> SpaceRun {
        let mut run = SpaceRun {
            end: i,
            chars: 0,
            last: i,
            last_crlf: None,
        };
        while let Some(c) = self.at(run.end) {
            if !c.is(SPACE) {
                break;
            }
            if c.is_crlf() {
                run.last_crlf = Some(run.end);
            }
            run.last = run.end;
            run.chars += 1;
            run.end += c.len;
        }
        run
    }

    /// `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i` (o200k; cl100k's `'(?i:[sdmt]|ll|ve|re)`
    /// is the same set): its length, or 0. Case folding is Unicode's simple
    /// folding, under which `s` also matches `ſ` (U+017F).
    fn contraction(&self, i: usize) -> usize {
        let bytes = self.text.as_bytes();
        if bytes.get(i) != Some(&b'\'') {
            return 0;
        }
        let Some(first) = self.at(i + 1) else {
            return 0;
        };
        match first.c {
            's' | 'S' | 'ſ' | 't' | 'T' | 'm' | 'M' | 'd' | 'D' => 1 + first.len,
            'r' | 'R' | 'v' | 'V' if matches!(bytes.get(i + 2), Some(b'e' | b'E')) => 3,
            'l' | 'L' if matches!(bytes.get(i + 2), Some(b'l' | b'L')) => 3,
            _ => 0,
        }
    }

    /// Where a word may start: after the optional prefix character first
    /// (the greedy `?` tries that first), then at `i` itself.
    fn word_starts(&self, i: usize, first: Char) -> [Option<usize>; 2] {
        if first.is_prefix() {
            [Some(i + first.len), Some(i)]
        } else {
            [Some(i), None]
        }
    }

    /// The end of o200k's piece starting at `i`:
    ///
    /// ```text
    /// [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
    /// |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
    /// |\p{N}{1,3}
    /// | ?[^\s\p{L}\p{N}]+[\r\n/]*
    /// |\s*[\r\n]+
    /// |\s+(?!\S)
    /// |\s+
    /// ```
    fn o200k(&self, i: usize) -> usize {
        if let Some(end) = self
            .ascii_word(i, true)
            .or_else(|| self.ascii_punctuation(i, true))
        {
            return end;
        }
        let Some(first) = self.at(i) else {
            return i;
        };
        let starts = self.word_starts(i, first);
        // 1: UPPER* LOWER+. The greedy UPPER* backs off until a LOWER
        // follows: either the character ending the UPPER run (then LOWER+
        // runs on), or the last LOWER inside the run (Lm, Lo or a mark;
        // LOWER+ then takes just it, as the next one is Lu/Lt or the run's
        // end, which is not LOWER).
        for j in starts.into_iter().flatten() {
            let mut k = j;
            let mut last_lower = None;
            while let Some(c) = self.at(k) {
                if !c.is(UPPER) {
                    break;
                }
                if c.is(LOWER) {
                    last_lower = Some(k + c.len);
                }
                k += c.len;
            }
            let end = match self.at(k) {
                Some(c) if c.is(LOWER) => Some(self.run(k, |c| c.is(LOWER))),
                _ => last_lower,
            };
            if let Some(end) = end {
                return end + self.contraction(end);
            }
        }
        // 2: UPPER+ LOWER*; nothing after can fail, so no backing off.
        for j in starts.into_iter().flatten() {
            let k = self.run(j, |c| c.is(UPPER));
            if k > j {
                let end = self.run(k, |c| c.is(LOWER));
                return end + self.contraction(end);
            }
        }
        if first.is(NUMBER) {
            return self.digits(i);
        }
        if let Some(end) = self.punctuation(i, first, |c| matches!(c, '\r' | '\n' | '/')) {
            return end;
        }
        let run = self.space_run(i);
        // `\s*[\r\n]+`: \s* backs off to the last CR/LF of the run, and
        // [\r\n]+ takes just that one (it is the last).
        if let Some(crlf) = run.last_crlf {
            return crlf + 1;
        }
        self.trailing_space(&run).unwrap_or(run.end)
    }

    /// The end of cl100k's piece starting at `i`:
    ///
    /// ```text
    /// '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+
    /// | ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s
    /// ```
    fn cl100k(&self, i: usize) -> usize {
        let Some(first) = self.at(i) else {
            return i;
        };
        let n = self.contraction(i);
        if n > 0 {
            return i + n;
        }
        if let Some(end) = self
            .ascii_word(i, false)
            .or_else(|| self.ascii_punctuation(i, false))
        {
            return end;
        }
        // The possessive `?+` keeps the prefix once taken: no retry at `i`
        // (which could not start a letter run anyway).
        let j = if first.is_prefix() { i + first.len } else { i };
        let end = self.run(j, |c| c.is(LETTER));
        if end > j {
            return end;
        }
        if first.is(NUMBER) {
            return self.digits(i);
        }
        if let Some(end) = self.punctuation(i, first, |c| matches!(c, '\r' | '\n')) {
            return end;
        }
        let run = self.space_run(i);
        if run.end == self.text.len() {
            return run.end;
        }
        if let Some(crlf) = run.last_crlf {
            return crlf + 1;
        }
        self.trailing_space(&run).unwrap_or(i + first.len)
    }

    /// The common case of both patterns' word alternatives, in ASCII: an
    /// optional prefix byte, then letters, then an ASCII byte (or the end),
    /// so no non-ASCII letter or mark can extend the match. In ASCII,
    /// UPPER is `A-Z` and LOWER `a-z`: o200k's first alternative takes
    /// `[A-Z]*[a-z]+`, its second `[A-Z]+` when no lowercase follows, ending
    /// in the same place, then a contraction; cl100k takes `[A-Za-z]+`. The
    /// general scan decides everything else.
    #[inline]
    fn ascii_word(&self, i: usize, o200k: bool) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let &first = bytes.get(i)?;
        let j = if first.is_ascii_alphabetic() {
            i
        } else if first.is_ascii() && !first.is_ascii_digit() && first != b'\r' && first != b'\n' {
            i + 1
        } else {
            return None;
        };
        let run = |from: usize, keep: fn(&u8) -> bool| {
            from + bytes
                .get(from..)
                .map_or(0, |rest| rest.iter().take_while(|b| keep(b)).count())
        };
        let end = if o200k {
            let upper = run(j, u8::is_ascii_uppercase);
            run(upper, u8::is_ascii_lowercase)
        } else {
            run(j, u8::is_ascii_alphabetic)
        };
        if end == j || bytes.get(end).is_some_and(|b| !b.is_ascii()) {
            return None;
        }
        Some(if o200k {
            end + self.contraction(end)
        } else {
            end
        })
    }

    /// ` ?[^\s\p{L}\p{N}]+` and its tail (`[\r\n/]*` in o200k, `[\r\n]*`
    /// in cl100k) in ASCII: the commonest piece of markup (`="`, `</`,
    /// `">`). The patterns try words first; a word can start here only if
    /// the byte after the first is a letter or not ASCII (which could be a
    /// letter or a mark), so those are left to the general scan, as is a
    /// run of punctuation that a non-ASCII character might continue.
    #[inline]
    fn ascii_punctuation(&self, i: usize, o200k: bool) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let j = match bytes.get(i..i + 2) {
            Some([b' ', next]) if is_ascii_other(*next) => i + 1,
            Some([first, next])
                if is_ascii_other(*first) && next.is_ascii() && !next.is_ascii_alphabetic() =>
            {
                i
            }
            None if bytes.get(i).is_some_and(|b| is_ascii_other(*b)) => i,
            _ => return None,
        };
        let rest = bytes.get(j..)?;
        let n = rest.iter().take_while(|b| is_ascii_other(**b)).count();
        if rest.get(n).is_some_and(|b| !b.is_ascii()) {
            return None;
        }
        let tail = |b: &&u8| matches!(b, b'\r' | b'\n') || (o200k && **b == b'/');
        Some(
            j + n
                + rest
                    .get(n..)
                    .map_or(0, |t| t.iter().take_while(tail).count()),
        )
    }

    /// `\p{N}{1,3}`.
    fn digits(&self, i: usize) -> usize {
        let mut end = i;
        for _ in 0..3 {
            match self.at(end) {
                Some(c) if c.is(NUMBER) => end += c.len,
                _ => break,
            }
        }
        end
    }

    /// ` ?[^\s\p{L}\p{N}]+` then any run of `tail` characters. The space is
    /// taken only when punctuation follows it (the space itself is not).
    fn punctuation(&self, i: usize, first: Char, tail: impl Fn(char) -> bool) -> Option<usize> {
        let j = match (first.c, self.at(i + first.len)) {
            (' ', Some(next)) if next.is_other() => i + 1,
            _ => i,
        };
        let end = self.run(j, Char::is_other);
        if end == j {
            return None;
        }
        Some(self.run(end, |c| tail(c.c)))
    }

    /// `\s+(?!\S)`: the whole run at the end of the text; otherwise the run
    /// but its last character (which stays to prefix the next word), if
    /// that leaves any.
    fn trailing_space(&self, run: &SpaceRun) -> Option<usize> {
        if run.chars == 0 {
            return None;
        }
        if run.end == self.text.len() {
            return Some(run.end);
        }
        (run.chars >= 2).then_some(run.last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_points(pattern: &str) -> std::collections::BTreeSet<u32> {
        class_ranges(pattern)
            .into_iter()
            .flat_map(|(s, e)| s..=e)
            .collect()
    }

    #[test]
    fn classes_are_the_regex_engines() {
        let letters: std::collections::BTreeSet<u32> =
            [r"\p{Lu}", r"\p{Ll}", r"\p{Lt}", r"\p{Lm}", r"\p{Lo}"]
                .iter()
                .flat_map(|p| code_points(p))
                .collect();
        assert_eq!(letters, code_points(r"\p{L}"));
        assert!(letters.len() > 100_000);
        // What the astral table relies on: categories do not overlap, and
        // White_Space is all in the BMP.
        let mut seen = 0;
        for (pattern, _) in CLASS_PATTERNS.iter().take(7) {
            seen += code_points(pattern).len();
        }
        let union: std::collections::BTreeSet<u32> = CLASS_PATTERNS
            .iter()
            .take(7)
            .flat_map(|(p, _)| code_points(p))
            .collect();
        assert_eq!(seen, union.len());
        assert!(class_ranges(r"\s").iter().all(|&(_, end)| end <= 0xFFFF));
        let c = &*CLASSES;
        assert!(c.astral.windows(2).all(|w| w[0].1 < w[1].0));
        assert_eq!(c.of('a'), LL);
        assert_eq!(c.of('ǅ'), LT);
        assert_eq!(c.of('\u{301}'), MARK);
        assert_eq!(c.of('\u{2028}'), SPACE);
        assert_eq!(c.of('𝐀'), LU);
        assert_eq!(c.of('𝟘'), NUMBER);
        assert_eq!(c.of('😀'), 0);
    }

    /// The ASCII fast paths test bytes, not classes; they must agree.
    #[test]
    fn ascii_bytes_have_the_classes_the_fast_paths_assume() {
        for b in 0u8..0x80 {
            let class = CLASSES.of(char::from(b));
            let expected = if b.is_ascii_uppercase() {
                LU
            } else if b.is_ascii_lowercase() {
                LL
            } else if b.is_ascii_digit() {
                NUMBER
            } else if matches!(b, b'\t'..=b'\r' | b' ') {
                SPACE
            } else {
                0
            };
            assert_eq!(class, expected, "{b:#04x}");
            assert_eq!(is_ascii_other(b), class == 0, "{b:#04x}");
        }
    }

    /// `contraction` spells out `(?i:…)` by hand; these are the letters the
    /// regex engine's case folding gives.
    #[test]
    fn contraction_letters_fold_as_the_regex_engine_folds_them() {
        for (letter, expected) in [
            ('s', "Ssſ"),
            ('t', "Tt"),
            ('m', "Mm"),
            ('d', "Dd"),
            ('r', "Rr"),
            ('v', "Vv"),
            ('e', "Ee"),
            ('l', "Ll"),
        ] {
            let folded: String = code_points(&format!("(?i){letter}"))
                .into_iter()
                .filter_map(char::from_u32)
                .collect();
            assert_eq!(folded, expected, "{letter}");
        }
    }
}
