//! Exact token counts with a real BPE tokenizer.
//!
//! Budgets are promises, so we never estimate (chars/4 was 2–4× off in the
//! seed project). Counts are tiktoken's, exactly (`tests/tokens_exact.rs`
//! compares them with tiktoken-rs on the corpus and on generated text). But
//! the CLI runs once per agent step, and tiktoken-rs spent most of a 0.4 s
//! start-up decoding its vocabulary into hash maps (and their copies) before
//! the first count. So the vocabularies are compiled into lookup tables at
//! build time (`build.rs`) and read in place from the binary, and the split
//! patterns are scans written out by hand (`split`): nothing is built at run
//! time but a 64 KB table of Unicode classes and, per thread that counts, up
//! to 0.6 MB of memos per encoding (`bpe::Scratch`).

mod bpe;
mod memo;
mod split;

pub use memo::Memo;

use std::cell::RefCell;
use std::fmt;
use std::str::FromStr;

/// A BPE vocabulary.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// GPT-4o and later; our default.
    #[default]
    O200kBase,
    /// GPT-4 / GPT-3.5.
    Cl100kBase,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    fn vocab(self) -> &'static bpe::Vocab {
        match self {
            Encoding::O200kBase => &bpe::O200K_BASE,
            Encoding::Cl100kBase => &bpe::CL100K_BASE,
        }
    }

    fn pattern(self) -> split::Pattern {
        match self {
            Encoding::O200kBase => split::Pattern::O200k,
            Encoding::Cl100kBase => split::Pattern::Cl100k,
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "o200k_base" | "o200k" => Ok(Encoding::O200kBase),
            "cl100k_base" | "cl100k" => Ok(Encoding::Cl100kBase),
            other => Err(format!(
                "unknown encoding '{other}': use o200k_base (default) or cl100k_base"
            )),
        }
    }
}

/// The token count's request (see [`crate::contract`]).
#[derive(
    Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct CountRequest {
    /// Tokenizer vocabulary
    pub encoding: Encoding,
}

/// The vocabulary is this request's option, not the surface's.
impl crate::contract::Request for CountRequest {}

/// Whether `bytes` bytes of text fit `budget` tokens whatever they say:
/// every token of a byte-level BPE vocabulary is at least one byte. A text
/// that does needs no count to be held to its budget.
pub fn fits_by_bytes(bytes: usize, budget: usize) -> bool {
    bytes <= budget
}

/// Exact number of tokens in `text`. Special-token markers in page text count
/// as the ordinary text they are.
pub fn count(text: &str, enc: Encoding) -> usize {
    if text.is_empty() {
        return 0;
    }
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => {
            let [o200k, cl100k] = &mut *scratch;
            let scratch = match enc {
                Encoding::O200kBase => o200k,
                Encoding::Cl100kBase => cl100k,
            };
            count_with(text, enc, scratch.get_or_insert_with(bpe::Scratch::new))
        }
        // Only a count inside a count could get here; it gets its own.
        Err(_) => count_with(text, enc, &mut bpe::Scratch::new()),
    })
}

thread_local! {
    /// Per encoding, so a piece's memoised count is always its own vocabulary's.
    static SCRATCH: RefCell<[Option<bpe::Scratch>; 2]> = const { RefCell::new([None, None]) };
}

fn count_with(text: &str, enc: Encoding, scratch: &mut bpe::Scratch) -> usize {
    enc.vocab().count(
        text.as_bytes(),
        split::Pieces::new(text, enc.pattern()),
        scratch,
    )
}

/// The pieces the pre-tokenizer cuts `text` into before merging bytes: the
/// matches of tiktoken's split pattern for `enc`, in order; they tile the text.
pub fn pieces(text: &str, enc: Encoding) -> impl Iterator<Item = &str> {
    split::Pieces::new(text, enc.pattern()).filter_map(move |r| text.get(r))
}

/// Token count with the default encoding.
pub fn count_default(text: &str) -> usize {
    count(text, Encoding::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_known_values() {
        // Reference counts from OpenAI's tiktoken for these strings.
        assert_eq!(count("hello world", Encoding::O200kBase), 2);
        assert_eq!(count("hello world", Encoding::Cl100kBase), 2);
        assert_eq!(count("", Encoding::O200kBase), 0);
        assert_eq!(count("<|endoftext|>", Encoding::Cl100kBase), 7);
    }

    #[test]
    fn parses_names() {
        assert_eq!(
            "cl100k_base".parse::<Encoding>().unwrap(),
            Encoding::Cl100kBase
        );
        assert!(
            "gpt2"
                .parse::<Encoding>()
                .unwrap_err()
                .contains("o200k_base")
        );
    }
}
