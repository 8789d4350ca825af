//! Scores extraction outputs with the Rust scorer, so a port of it can be
//! checked page by page (`scripts/bench-packages` checks its Python one).
//! Reads JSON lines `{"id", "text", "html"}` on stdin (`html`: the text is
//! HTML, read as the scorer reads Readability's expected HTML; otherwise
//! Markdown, read as `webfold-bench extract` reads its own) and prints one
//! JSON line per input with what `judge` says of it.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use webfold_corpus::scoring::{html_text, judge, markdown_visible_text};

fn main() {
    let pages: HashMap<String, webfold_corpus::CorpusPage> = webfold_corpus::pages()
        .into_iter()
        .map(|p| (p.id.clone(), p))
        .collect();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
        let id = v["id"].as_str().expect("id");
        let text = v["text"].as_str().unwrap_or("");
        let cp = pages
            .get(id)
            .unwrap_or_else(|| panic!("{id}: not in the manifest"));
        let visible = if v["html"].as_bool().unwrap_or(false) {
            html_text(text)
        } else {
            markdown_visible_text(text)
        };
        let judged = judge(cp, &visible);
        let mut row = serde_json::json!({ "id": id });
        if let Some(m) = judged.shingles {
            row["tp"] = m.tp.into();
            row["fp"] = m.fp.into();
            row["fn"] = m.fn_.into();
        }
        if let Some(s) = judged.snippets {
            row["with_found"] = s.with_found.into();
            row["with_total"] = s.with_total.into();
            row["without_absent"] = s.without_absent.into();
            row["without_total"] = s.without_total.into();
        }
        writeln!(out, "{row}").expect("stdout");
    }
}
