//! Corpus check for `webfold_core::decode`: every Trafilatura page (multilingual, some
//! of them windows-1252 / ISO-8859-1 / GB2312 as served) must decode to clean text,
//! and pages that declare a non-UTF-8 charset must be decoded with that charset.
//! The corpus lives in the shared folder beside the repository; the test is skipped
//! (with a note) when it is absent.

use std::io::Read;
use std::path::{Path, PathBuf};

use encoding_rs::{Encoding, UTF_8};
use webfold_core::decode::{
    EncodingSource, check_page, decode_html, decode_html_owned, prescan_meta_charset,
};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

struct Page {
    id: String,
    url: Option<String>,
    bytes: Vec<u8>,
}

fn load_set(set: &str) -> Option<Vec<Page>> {
    let dir = corpus_dir();
    let manifest = std::fs::read_to_string(dir.join("manifest.jsonl")).ok()?;
    let mut pages = Vec::new();
    for line in manifest.lines().filter(|l| !l.trim().is_empty()) {
        let m: serde_json::Value = serde_json::from_str(line).expect("manifest line is JSON");
        if m["set"] != set {
            continue;
        }
        let path = dir
            .join(m["dir"].as_str().expect("dir"))
            .join(m["source"].as_str().expect("source"));
        let raw = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let bytes = if m["gzip"] == true {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(raw.as_slice())
                .read_to_end(&mut out)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            out
        } else {
            raw
        };
        pages.push(Page {
            id: m["id"].as_str().expect("id").to_owned(),
            url: m["url"].as_str().map(str::to_owned),
            bytes,
        });
    }
    Some(pages)
}

/// An independent, deliberately naive reading of the declared charset: the label
/// after `charset=` inside the first `<meta …>` tag that has one, in the first 20 KB.
/// Good enough to cross-check the real prescan on this corpus.
fn naive_declared_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(20_000)];
    let lower = head.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].windows(5).position(|w| w == b"<meta") {
        let start = from + i;
        let end = lower[start..]
            .iter()
            .position(|&c| c == b'>')
            .map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        if let Some(at) = tag.windows(8).position(|w| w == b"charset=") {
            let label: Vec<u8> = tag[at + 8..]
                .iter()
                .copied()
                .skip_while(|&c| c == b'"' || c == b'\'')
                .take_while(|c| c.is_ascii_alphanumeric() || *c == b'-' || *c == b'_')
                .collect();
            return Encoding::for_label(&label);
        }
        from = end;
    }
    None
}

#[test]
fn trafilatura_pages_decode_cleanly() {
    let Some(pages) = load_set("trafilatura") else {
        eprintln!(
            "shared corpus not found at {}; skipping",
            corpus_dir().display()
        );
        return;
    };
    assert!(
        pages.len() > 100,
        "expected the trafilatura set, got {} pages",
        pages.len()
    );
    let (not_utf8, declared_non_utf8) = check_pages(&pages);
    assert!(
        not_utf8 >= 10,
        "expected the non-UTF-8 pages in the set, saw {not_utf8}"
    );
    assert!(
        declared_non_utf8 >= 10,
        "saw only {declared_non_utf8} non-UTF-8 declarations"
    );
}

/// The other two sets are saved as UTF-8 (one still declares GBK): they must
/// decode cleanly too.
#[test]
fn readability_and_aeb_pages_decode_cleanly() {
    for set in ["readability", "aeb"] {
        let Some(pages) = load_set(set) else {
            return;
        };
        assert!(!pages.is_empty(), "{set}: no pages");
        check_pages(&pages);
    }
}

/// Asserts every page is taken for a page, decodes with < 0.1 % U+FFFD and
/// with its declared legacy charset (unless the bytes are valid UTF-8); returns (not-UTF-8 pages, pages
/// that declare a non-UTF-8 charset).
fn check_pages(pages: &[Page]) -> (usize, usize) {
    let mut not_utf8 = 0;
    let mut declared_non_utf8 = 0;
    let mut failures = Vec::new();
    for page in pages {
        let is_utf8 = std::str::from_utf8(&page.bytes).is_ok();
        if !is_utf8 {
            not_utf8 += 1;
        }
        let declared = naive_declared_charset(&page.bytes);
        let d = decode_html_owned(page.bytes.clone(), None, page.url.as_deref());

        // A real page is never taken for empty input or a binary file.
        if let Err(e) = check_page(&page.bytes, &d.text) {
            failures.push(format!("{}: {e}", page.id));
        }
        let chars = d.text.chars().count().max(1);
        let bad = d.text.chars().filter(|&c| c == '\u{FFFD}').count();
        if bad * 1000 >= chars {
            failures.push(format!(
                "{}: {bad} of {chars} chars are U+FFFD ({})",
                page.id,
                d.encoding.name()
            ));
        }
        if let Some(declared) = declared.filter(|e| *e != UTF_8 && !is_utf8) {
            declared_non_utf8 += 1;
            if d.encoding != declared {
                failures.push(format!(
                    "{}: declared {} but decoded as {} ({:?})",
                    page.id,
                    declared.name(),
                    d.encoding.name(),
                    d.source
                ));
            }
        }
        // The borrowed entry point agrees with the owned one (no URL hint involved
        // unless the guess needed it).
        if d.source != EncodingSource::Sniffed {
            assert_eq!(
                decode_html(&page.bytes, None).encoding,
                d.encoding,
                "{}",
                page.id
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    (not_utf8, declared_non_utf8)
}

#[test]
fn header_charset_overrides_page_declaration_on_corpus_page() {
    let Some(pages) = load_set("trafilatura") else {
        return;
    };
    // A page that declares a legacy charset, re-encoded to UTF-8 and served with a
    // UTF-8 header, must come out identical to decoding it with its own charset.
    let Some(page) = pages.iter().find(|p| {
        std::str::from_utf8(&p.bytes).is_err()
            && prescan_meta_charset(&p.bytes) == Some(encoding_rs::WINDOWS_1252)
    }) else {
        panic!("no windows-1252 page in the corpus");
    };
    let original = decode_html(&page.bytes, None);
    assert_eq!(original.source, EncodingSource::Meta, "{}", page.id);
    let utf8 = original.text.clone().into_bytes();
    let served = decode_html(&utf8, Some("text/html; charset=utf-8"));
    assert_eq!(served.source, EncodingSource::Header);
    assert_eq!(served.text, original.text);
}
