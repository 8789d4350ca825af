//! Writing generated Markdown (the reference pages under `docs/`) and
//! keeping it current: text that shows as written, table cells, GitHub's
//! heading anchors, and the check of a file's generated part.

use std::path::Path;

/// Plain text as Markdown that shows it as written: outside code spans,
/// `<` cannot open an HTML tag and `*` or a word-edge `_` cannot emphasise.
pub fn text(s: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == '`' {
            in_code = !in_code;
            out.push(c);
            continue;
        }
        if in_code {
            out.push(c);
            continue;
        }
        let word = |j: Option<&char>| j.is_some_and(|c| c.is_alphanumeric());
        match c {
            '<' => out.push_str("&lt;"),
            '*' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '_' if !(i > 0 && word(chars.get(i - 1)) && word(chars.get(i + 1))) => {
                out.push_str("\\_")
            }
            _ => out.push(c),
        }
    }
    out
}

/// [`text`] for a table cell: on one line, `|` escaped.
pub fn cell(s: &str) -> String {
    text(&s.replace('\n', " ")).replace('|', "\\|")
}

/// A heading's anchor as GitHub makes it from the heading's text:
/// lowercased, spaces to `-`, punctuation other than `-` and `_` dropped.
pub fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Compares the part of the file at `path` below `marker` with
/// `generated`, or rewrites it when `WEBFOLD_BLESS` is set; the text above
/// the marker is kept (`new_head` for a file that has none yet). A stale
/// file fails with the first line that differs and `rerun`, the command
/// that rewrites it.
pub fn check_generated(path: &Path, marker: &str, generated: &str, new_head: &str, rerun: &str) {
    let current = std::fs::read_to_string(path).unwrap_or_default();
    let head = match current.split_once(marker) {
        Some((head, _)) => head.to_string(),
        None => new_head.to_string(),
    };
    let want = format!("{head}{marker}\n\n{generated}");
    if std::env::var_os("WEBFOLD_BLESS").is_some() {
        std::fs::write(path, &want).expect("write the generated file");
        return;
    }
    if current != want {
        let first = current
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(current.lines().count().min(want.lines().count()));
        panic!(
            "{} is stale: it differs from what the code generates, first at line {}:\n  file:      {}\n  generated: {}\n(rewrite it with WEBFOLD_BLESS=1 {rerun})",
            path.display(),
            first + 1,
            current.lines().nth(first).unwrap_or("<end>"),
            want.lines().nth(first).unwrap_or("<end>")
        );
    }
}
