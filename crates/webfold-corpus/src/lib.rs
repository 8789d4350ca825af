//! The shared corpus (real pages with ground truth, Markdown and ARIA cases),
//! read in place for tests and benchmarks. It is never copied into the repo.
//!
//! The corpus lives in the `shared` folder beside the repository checkout;
//! `WEBFOLD_SHARED` points elsewhere. A missing corpus is a loud failure, not
//! a skipped test: CI always has it.

pub mod peak;
pub mod scoring;
pub mod shapes;
pub mod targets;

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The `shared` folder.
pub fn shared_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("WEBFOLD_SHARED") {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

pub fn corpus_dir() -> PathBuf {
    shared_dir().join("corpus")
}

fn read_required(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}. The shared corpus must sit beside the repository \
             (../shared) or be named by WEBFOLD_SHARED",
            path.display()
        )
    })
}

/// One page of `corpus/manifest.jsonl`.
#[derive(Clone, Debug, Deserialize)]
pub struct CorpusPage {
    pub id: String,
    pub set: String,
    pub dir: String,
    pub source: String,
    pub gzip: bool,
    pub url: Option<String>,
    pub bytes: u64,
    #[serde(default)]
    pub truth: Vec<String>,
}

impl CorpusPage {
    pub fn dir_path(&self) -> PathBuf {
        corpus_dir().join(&self.dir)
    }

    /// The page's raw bytes, un-gzipped.
    pub fn raw(&self) -> Vec<u8> {
        let bytes = read_required(&self.dir_path().join(&self.source));
        if !self.gzip {
            return bytes;
        }
        gunzip(&bytes, &self.id)
    }

    /// The page decoded to text as a browser would.
    pub fn html(&self) -> String {
        webfold_core::decode::decode_html(&self.raw(), None).text
    }

    pub fn truth(&self, name: &str) -> Vec<u8> {
        read_required(&self.dir_path().join(name))
    }
}

fn gunzip(bytes: &[u8], what: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() * 4);
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap_or_else(|e| panic!("{what}: bad gzip: {e}"));
    out
}

/// Every page in the manifest, in manifest order.
pub fn pages() -> Vec<CorpusPage> {
    let text = String::from_utf8(read_required(&corpus_dir().join("manifest.jsonl")))
        .expect("manifest is UTF-8");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("manifest line {l}: {e}")))
        .collect()
}

/// Pages of one set: `readability`, `aeb` or `trafilatura`.
pub fn pages_of(set: &str) -> Vec<CorpusPage> {
    pages().into_iter().filter(|p| p.set == set).collect()
}

/// At least `target` bytes of real pages' bodies (the readability set's,
/// from `<body` on), one after another: a large page of real content.
pub fn pages_run_together(target: usize) -> String {
    let pages = pages_of("readability");
    let mut body = String::with_capacity(target + 200_000);
    while body.len() < target && !pages.is_empty() {
        for p in &pages {
            let html = p.html();
            body.push_str(&html[html.find("<body").unwrap_or(0)..]);
            if body.len() >= target {
                break;
            }
        }
    }
    body
}

/// Every `n`-th page (at least one page per set), for tests that must stay quick.
pub fn sample(every: usize) -> Vec<CorpusPage> {
    pages()
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % every.max(1) == 0)
        .map(|(_, p)| p)
        .collect()
}

/// A case of turndown's own test suite.
#[derive(Clone, Debug, Deserialize)]
pub struct TurndownCase {
    pub id: String,
    pub html: String,
    pub expected_md: String,
    #[serde(default)]
    pub options: serde_json::Map<String, serde_json::Value>,
}

pub fn turndown_cases() -> Vec<TurndownCase> {
    jsonl(&corpus_dir().join("markdown/turndown-cases.jsonl"))
}

/// An accessibility-snapshot conformance case, with Playwright's outputs.
#[derive(Clone, Debug, Deserialize)]
pub struct AriaCase {
    pub id: String,
    pub html: String,
    pub aria: String,
    pub ai: String,
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub tags: Vec<String>,
}

pub fn aria_cases() -> Vec<AriaCase> {
    jsonl(&corpus_dir().join("aria/cases.jsonl"))
}

fn jsonl<T: serde::de::DeserializeOwned>(path: &Path) -> Vec<T> {
    let text = String::from_utf8(read_required(path)).expect("UTF-8");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}
