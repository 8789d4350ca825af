//! Our token counts are tiktoken's, exactly: the vendored vocabularies are
//! tiktoken-rs's, the hand-written pre-tokenizers cut text where tiktoken's
//! split regexes (run here on fancy-regex, as tiktoken-rs does) cut it, and
//! counts equal tiktoken-rs's `encode_ordinary` on corpus pages, on edge
//! cases and on generated text, whole and summed over the segments
//! [`tokens::Memo`] counts apart.

use std::io::{Read, Write};

use fancy_regex::Regex;
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use tiktoken_rs::CoreBPE;
use webfold_core::tokens::{self, Encoding};

/// tiktoken-rs 0.12's split patterns, verbatim.
const O200K_PATTERN: &str = concat!(
    r#"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"#,
    "|",
    r#"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"#,
    "|",
    r#"\p{N}{1,3}"#,
    "|",
    r#" ?[^\s\p{L}\p{N}]+[\r\n/]*"#,
    "|",
    r#"\s*[\r\n]+"#,
    "|",
    r#"\s+(?!\S)"#,
    "|",
    r#"\s+"#
);
const CL100K_PATTERN: &str = "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";

struct Reference {
    enc: Encoding,
    bpe: &'static CoreBPE,
    split: Regex,
}

fn references() -> Vec<Reference> {
    vec![
        Reference {
            enc: Encoding::O200kBase,
            bpe: tiktoken_rs::o200k_base_singleton(),
            split: Regex::new(O200K_PATTERN).unwrap(),
        },
        Reference {
            enc: Encoding::Cl100kBase,
            bpe: tiktoken_rs::cl100k_base_singleton(),
            split: Regex::new(CL100K_PATTERN).unwrap(),
        },
    ]
}

impl Reference {
    /// Same pieces as the regex and the same count as tiktoken-rs, or why not.
    fn check(&self, text: &str) -> Result<(), String> {
        let expected: Vec<&str> = self
            .split
            .find_iter(text)
            .map(|m| m.unwrap().as_str())
            .collect();
        let ours: Vec<&str> = tokens::pieces(text, self.enc).collect();
        if ours != expected {
            let at = ours
                .iter()
                .zip(&expected)
                .take_while(|(a, b)| a == b)
                .count();
            return Err(format!(
                "{}: pieces differ at piece {at}: ours {:?}, regex {:?} (text {:?})",
                self.enc,
                &ours[at..(at + 3).min(ours.len())],
                &expected[at..(at + 3).min(expected.len())],
                short(text),
            ));
        }
        let want = self.bpe.encode_ordinary(text).len();
        let got = tokens::count(text, self.enc);
        if got != want {
            // Name the first piece whose count differs.
            let piece = expected
                .iter()
                .find(|p| tokens::count(p, self.enc) != self.bpe.encode_ordinary(p).len());
            return Err(format!(
                "{}: {got} tokens, tiktoken {want}; first differing piece {piece:?} (text {:?})",
                self.enc,
                short(text)
            ));
        }
        // Counting line by line, as fitters do, gives the same.
        let by_segments = tokens::Memo::new(self.enc).count(text);
        if by_segments != want {
            return Err(format!(
                "{}: {by_segments} tokens counted by segments, tiktoken {want} (text {:?})",
                self.enc,
                short(text)
            ));
        }
        Ok(())
    }
}

fn short(text: &str) -> &str {
    let mut end = text.len().min(200);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

// ---------------------------------------------------------------- vocabularies

/// `vocab/NAME.bin.gz` holds every token of tiktoken-rs's vocabulary in rank
/// order as `[len: u8][bytes]`. `UPDATE_GOLDEN=1` rewrites the files.
#[test]
fn vendored_vocabularies_are_tiktokens() {
    for r in references() {
        let mut expected = Vec::new();
        let mut rank = 0u32;
        while let Ok(bytes) = r.bpe.decode_bytes(&[rank]) {
            expected.push(u8::try_from(bytes.len()).unwrap());
            expected.extend_from_slice(&bytes);
            rank += 1;
        }
        let want_tokens = match r.enc {
            Encoding::O200kBase => 199_998,
            Encoding::Cl100kBase => 100_256,
        };
        assert_eq!(rank, want_tokens, "{}", r.enc);
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("vocab")
            .join(format!("{}.bin.gz", r.enc.name()));
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            let mut gz = GzEncoder::new(Vec::new(), Compression::best());
            gz.write_all(&expected).unwrap();
            std::fs::write(&path, gz.finish().unwrap()).unwrap();
        }
        let mut vendored = Vec::new();
        GzDecoder::new(std::fs::read(&path).unwrap().as_slice())
            .read_to_end(&mut vendored)
            .unwrap();
        assert!(
            vendored == expected,
            "{} differs from tiktoken-rs",
            path.display()
        );
    }
}

// ---------------------------------------------------------------- edge cases

const EDGE_CASES: &[&str] = &[
    "hello world",
    "Hello World HELLO wORLD hELLO",
    "<|endoftext|> <|fim_prefix|>",
    // Contractions, in every case, and look-alikes that are not.
    "I'll we've they're he's it'd I'm don't",
    "I'LL WE'VE THEY'RE HE'S IT'D I'M DON'T We'Ll",
    "'s 'S 't 're 've 'm 'll 'd 'x ''s 's's",
    "'ll'll'LL 'l 'r 'v 'e 'ſ",
    "Hoſ'ſ, it'ſ long s; Kelvin 'K 'k",
    "rock'n'roll o'clock y'all ma'am",
    // Digits of every kind.
    "1 12 123 1234 12345 123456 1234567",
    "3.14159 1,000,000 -42 +7 1e10 0x1F",
    "٣٤٥٦ १२३४ ⅫⅣ ½¼ ²³ 𝟘𝟙𝟚𝟛",
    // White space runs.
    "a  b   c    d\t\te\n\nf\r\n\r\ng",
    "   leading",
    "trailing   ",
    "trailing\n\n\n",
    "  \n  \n  x",
    " \u{a0}\u{2028}\u{2029}\u{3000}\u{85}\u{1680}\u{2000}\u{200a}\u{202f}\u{205f}x",
    "\t\t\tindented\n\t\t\tmore",
    "line\r\rcr only\r",
    "\n",
    " ",
    "\r\n",
    "                                                                ",
    // Punctuation with spaces, slashes and newlines after it.
    "a/b//c///d https://example.com/path/to?q=1&r=2#frag",
    "!!!\n\n??? ...\r\n/// *** ---\n/",
    "<div class=\"x\"><a href=\"/y\">z</a></div>",
    "{\"key\": [1, 2, {\"n\": null}]}",
    // Letters of every case class.
    "ǅungla ǅUNGLA ǈ ǋ ᾈ",
    "ʰʲʷ ªº ˢᵃ ɐ",
    "CamelCaseWord XMLHttpRequest iPhone eBay MySQL",
    "ÀÉÎÕÜ àéîõü Straße STRASSE",
    "Ελληνικά Русский язык עברית العربية",
    "日本語のテキスト、中文文本。한국어 텍스트",
    "हिन्दी ไทย ভাষা தமிழ்",
    // Marks where regexes disagree most easily.
    "e\u{301}le\u{301}ve \u{301}start \u{301}A A\u{301} \u{301}\u{302}",
    "a\u{300}\u{301}\u{302}b \u{20dd}x \u{903}",
    "ªA ªAB AªB ʰA",
    // Emoji and symbols.
    "😀 👍🏽 👨‍👩‍👧‍👦 ❤️ ✔︎ 🇩🇪",
    "emoji😀inside word😀😀",
    "€100 £5 ¥¥ ©® ™",
    // Astral letters.
    "𝐀𝐁𝐂 𝐚𝐛𝐜 𐐀𐐨 𝔄𝔟",
    // Odd but valid text.
    "\u{0}\u{1}\u{7f}\u{fffd}\u{feff}\u{200b}\u{e000}\u{10ffff}",
    "\u{fffd}\u{fffd}\u{fffd} ï»¿ Ã©",
];

#[test]
fn edge_cases_match_tiktoken() {
    let refs = references();
    let mut failures = Vec::new();
    for text in EDGE_CASES {
        for r in &refs {
            if let Err(e) = r.check(text) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Pieces of 100 bytes and more take the heap-based merge.
#[test]
fn long_pieces_match_tiktoken() {
    let refs = references();
    let base64: String = (0..3000u32)
        .map(|i| {
            let c = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
                [(i.wrapping_mul(2_654_435_761) >> 26) as usize];
            char::from(c)
        })
        .collect();
    let texts = [
        "a".repeat(1000),
        "ab".repeat(700),
        "=".repeat(500),
        "-=".repeat(300) + "\n\n",
        "9".repeat(400),
        " ".repeat(300) + "x",
        "\n".repeat(250),
        "é".repeat(200),
        "中".repeat(300),
        "😀".repeat(100),
        "Supercalifragilisticexpialidocious".repeat(10),
        format!("data:image/png;base64,{base64}"),
        "x".repeat(99) + "y",
        "anticonstitutionnellement".repeat(4),
    ];
    let mut failures = Vec::new();
    for text in &texts {
        for r in &refs {
            if let Err(e) = r.check(text) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------- generated text

/// Characters from every class the patterns tell apart, and the ones on
/// their edges.
const ALPHABET: &[char] = &[
    'a', 'z', 'A', 'Z', 's', 'S', 't', 'l', 'L', 'r', 'e', 'v', 'E', 'd', 'm', 'k',
    'K', // ASCII letters
    '0', '5', '9', // digits
    ' ', ' ', ' ', '\t', '\n', '\r', '\u{b}', '\u{c}', // ASCII white space
    '\'', '\'', '/', '.', ',', '!', '-', '<', '>', '"', '=', '&', '_', '#', // ASCII other
    'ſ', 'K', 'ǅ', 'ʰ', 'ª', 'é', 'É', 'ß', 'ẞ', 'Ω', // edge letters
    '中', 'の', 'ア', '한', 'ж', 'Ж', 'ع', 'अ', // letters of other scripts
    '\u{301}', '\u{903}', '\u{20dd}', '\u{fe0f}', // marks (Mn, Mc, Me, VS16)
    '٣', 'Ⅻ', '½', '²', '𝟘', // numbers (Nd, Nl, No, astral Nd)
    '\u{a0}', '\u{85}', '\u{2028}', '\u{3000}', '\u{200b}', // white space and not
    '😀', '🏽', '\u{200d}', '€', '©', '\u{0}', '\u{fffd}', '𝐀', '𝐚', '𐐨', // the rest
];

/// xorshift64*: deterministic, so a failure names a reproducible case.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn generated_text_matches_tiktoken() {
    let refs = references();
    let mut rng = Rng(0x5eed_c01d_57a7_0001);
    let mut failures = Vec::new();
    for case in 0..20_000 {
        let len = 1 + rng.below(if case % 10 == 0 { 160 } else { 24 });
        let text: String = (0..len)
            .map(|_| ALPHABET[rng.below(ALPHABET.len())])
            .collect();
        for r in &refs {
            if let Err(e) = r.check(&text) {
                failures.push(format!("case {case}: {e}"));
            }
        }
        if failures.len() >= 10 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------- real pages

/// Raw HTML of corpus pages (markup, scripts, styles, inline data, text in
/// many languages): the same pieces as the regexes and the same counts.
#[test]
fn corpus_pages_match_tiktoken() {
    let pages = webfold_corpus::sample(6);
    assert!(pages.len() >= 150, "{}", pages.len());
    let refs = references();
    let mut failures = Vec::new();
    let mut bytes = 0;
    for p in &pages {
        let html = p.html();
        bytes += html.len();
        for r in &refs {
            if let Err(e) = r.check(&html) {
                failures.push(format!("{}: {e}", p.id));
            }
        }
    }
    assert!(bytes > 10_000_000, "{bytes}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
