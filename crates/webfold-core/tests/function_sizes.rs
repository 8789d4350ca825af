//! Functions that fit on a screen: no production function in the workspace
//! is over 120 lines, and at most 15 are over 80.
//!
//! The measure is deliberately simple, so anyone can redo it by hand: a
//! function runs from the line holding its `fn` to the line where its braces
//! close. Attributes and doc comments above it do not count. Braces inside
//! strings, characters and comments are not braces. Tests, benches, fuzz
//! targets and `#[cfg(test)]` modules are left out: the rule is about the
//! code a reader has to follow to know what webfold does.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// No function may be longer than this many lines.
const HARD_LIMIT: usize = 120;
/// Functions longer than this are allowed, but only a few of them.
const SOFT_LIMIT: usize = 80;
/// How many functions may be over `SOFT_LIMIT`.
const MAX_OVER_SOFT: usize = 15;

/// Crates whose code is not production code.
const SKIPPED_CRATES: &[&str] = &["webfold-bench", "webfold-fuzz"];

#[derive(Debug)]
struct Function {
    path: String,
    name: String,
    line: usize,
    lines: usize,
}

#[test]
fn functions_fit_on_a_screen() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let functions = workspace_functions(&root);
    assert!(
        functions.len() > 1000,
        "found only {} functions: is the workspace layout what this test expects?",
        functions.len()
    );

    let mut over_soft: Vec<&Function> = functions.iter().filter(|f| f.lines > SOFT_LIMIT).collect();
    over_soft.sort_by(|a, b| b.lines.cmp(&a.lines).then(a.path.cmp(&b.path)));
    let over_hard: Vec<&Function> = over_soft
        .iter()
        .copied()
        .filter(|f| f.lines > HARD_LIMIT)
        .collect();

    println!(
        "{} functions; {} over {SOFT_LIMIT} lines (at most {MAX_OVER_SOFT}), {} over {HARD_LIMIT} (none)",
        functions.len(),
        over_soft.len(),
        over_hard.len()
    );
    for f in &over_soft {
        println!("{:5} {}:{} {}", f.lines, f.path, f.line, f.name);
    }

    let mut problems: Vec<String> = over_hard
        .iter()
        .map(|f| {
            format!(
                "{}:{} `{}` is {} lines, over {HARD_LIMIT}",
                f.path, f.line, f.name, f.lines
            )
        })
        .collect();
    if over_soft.len() > MAX_OVER_SOFT {
        problems.push(format!(
            "{} functions are over {SOFT_LIMIT} lines; at most {MAX_OVER_SOFT} may be",
            over_soft.len()
        ));
    }
    assert!(
        problems.is_empty(),
        "functions too long:\n{}",
        problems.join("\n")
    );
}

/// Every function of the production sources: `crates/*/src/**/*.rs`, less
/// the skipped crates, `tests` directories and test modules.
fn workspace_functions(root: &Path) -> Vec<Function> {
    let mut files = Vec::new();
    let crates =
        std::fs::read_dir(root.join("crates")).expect("the workspace has a crates directory");
    for entry in crates {
        let dir = entry.expect("readable crates directory").path();
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if SKIPPED_CRATES.contains(&name) {
            continue;
        }
        rust_files(&dir.join("src"), &mut files);
    }
    files.sort();

    let sources: Vec<(PathBuf, Vec<String>)> = files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("readable source file");
            let code = code_only(&text);
            (path, code)
        })
        .collect();
    let test_files: HashSet<PathBuf> = sources
        .iter()
        .flat_map(|(path, code)| test_module_files(path, code))
        .collect();

    let mut functions = Vec::new();
    for (path, code) in &sources {
        if test_files.contains(path) {
            continue;
        }
        let shown = path
            .strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        functions.extend(file_functions(&shown, code));
    }
    functions
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("readable directory").path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "tests") {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The files of modules declared `#[cfg(test)] mod name;` in `path`.
fn test_module_files(path: &Path, code: &[String]) -> Vec<PathBuf> {
    // Submodules of `lib.rs`, `main.rs` and `mod.rs` sit beside them; those
    // of `foo.rs` sit in `foo/`.
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let parent = path.parent().unwrap_or(Path::new(""));
    let dir = if matches!(stem, "lib" | "main" | "mod") {
        parent.to_path_buf()
    } else {
        parent.join(stem)
    };
    let mut out = Vec::new();
    for (i, line) in code.iter().enumerate() {
        if line.trim() != "#[cfg(test)]" {
            continue;
        }
        let Some(next) = code[i + 1..]
            .iter()
            .map(|l| l.trim())
            .find(|l| !l.is_empty())
        else {
            continue;
        };
        let decl = next.strip_prefix("pub ").unwrap_or(next);
        if let Some(name) = decl
            .strip_prefix("mod ")
            .and_then(|rest| rest.strip_suffix(';'))
        {
            let name = name.trim();
            out.push(dir.join(format!("{name}.rs")));
            out.push(dir.join(name).join("mod.rs"));
        }
    }
    out
}

/// The functions of one file, measured on its code-only lines.
fn file_functions(path: &str, code: &[String]) -> Vec<Function> {
    let start =
        regex::Regex::new(r"^\s*(pub(\([^)]*\))?\s+)?(async\s+)?(const\s+)?(unsafe\s+)?fn\s+(\w+)")
            .expect("valid pattern");
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        if is_test_module(code, i) {
            // Skip the whole module: from its `mod` line to its closing brace.
            let mod_line = i
                + 1
                + code[i + 1..]
                    .iter()
                    .position(|l| !l.trim().is_empty())
                    .unwrap_or(0);
            i = body_end(code, mod_line, 0).map_or(code.len(), |end| end + 1);
            continue;
        }
        if let Some(m) = start.captures(&code[i]) {
            let name = m.get(6).expect("the name group");
            let fn_column = code[i][..name.start()].rfind("fn").unwrap_or(0);
            if let Some(end) = body_end(code, i, fn_column) {
                out.push(Function {
                    path: path.to_string(),
                    name: name.as_str().to_string(),
                    line: i + 1,
                    lines: end - i + 1,
                });
            }
        }
        i += 1;
    }
    out
}

/// Whether line `i` is a `#[cfg(test)]` that opens an inline module.
fn is_test_module(code: &[String], i: usize) -> bool {
    if code[i].trim() != "#[cfg(test)]" {
        return false;
    }
    let Some(next) = code[i + 1..]
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())
    else {
        return false;
    };
    let decl = next.strip_prefix("pub ").unwrap_or(next);
    decl.starts_with("mod ") && decl.contains('{')
}

/// The line where the item starting at `(line, column)` closes its braces,
/// or `None` when it ends in `;` before opening any (a signature without a
/// body, or a module declared in another file).
fn body_end(code: &[String], line: usize, column: usize) -> Option<usize> {
    let mut braces = 0usize;
    let mut nesting = 0usize; // parentheses and brackets: `[u8; 4]` is no end
    for (n, text) in code.iter().enumerate().skip(line) {
        let from = if n == line { column } else { 0 };
        for c in text[from..].chars() {
            match c {
                '(' | '[' => nesting += 1,
                ')' | ']' => nesting = nesting.saturating_sub(1),
                ';' if braces == 0 && nesting == 0 => return None,
                '{' => braces += 1,
                '}' => {
                    braces = braces.saturating_sub(1);
                    if braces == 0 {
                        return Some(n);
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// The text's lines with the insides of strings, characters and comments
/// blanked out, so what is left is code: its braces are real braces and a
/// line starting with `fn` starts a function.
fn code_only(text: &str) -> Vec<String> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Code,
        LineComment,
        BlockComment(usize),
        Str,
        RawStr(usize),
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut state = State::Code;
    let mut i = 0;
    // Blanks keep lines where they were: newlines stay, the rest turns to spaces.
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match state {
            State::Code => {
                let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
                if c == '/' && next == Some('/') {
                    state = State::LineComment;
                    out.push_str("  ");
                    i += 2;
                    continue;
                }
                if c == '/' && next == Some('*') {
                    state = State::BlockComment(1);
                    out.push_str("  ");
                    i += 2;
                    continue;
                }
                if c == '"' {
                    state = State::Str;
                    out.push('"');
                    i += 1;
                    continue;
                }
                // `r"…"`, `r#"…"#`, `br"…"`: count the hashes up to the quote.
                let raw_start = c == 'r'
                    && (!ident_before
                        || (chars[i - 1] == 'b' && !is_ident_at(&chars, i.wrapping_sub(2))));
                if raw_start {
                    let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
                    if chars.get(i + 1 + hashes) == Some(&'"') {
                        state = State::RawStr(hashes);
                        out.extend(std::iter::repeat_n(' ', hashes + 2));
                        i += hashes + 2;
                        continue;
                    }
                }
                if c == '\'' {
                    // A character (`'x'`, `'\n'`, `'\u{7b}'`) or a lifetime (`'a`).
                    let len = if next == Some('\\') {
                        chars[i + 3..]
                            .iter()
                            .position(|&q| q == '\'')
                            .map(|p| p + 4)
                    } else if chars.get(i + 2) == Some(&'\'') {
                        Some(3)
                    } else {
                        None
                    };
                    if let Some(len) = len {
                        out.extend(std::iter::repeat_n(' ', len));
                        i += len;
                        continue;
                    }
                }
                out.push(c);
            }
            State::LineComment => {
                if c == '\n' {
                    state = State::Code;
                }
                out.push(blank(c));
            }
            State::BlockComment(depth) => {
                if c == '*' && next == Some('/') {
                    state = if depth == 1 {
                        State::Code
                    } else {
                        State::BlockComment(depth - 1)
                    };
                    out.push_str("  ");
                    i += 2;
                    continue;
                }
                if c == '/' && next == Some('*') {
                    state = State::BlockComment(depth + 1);
                    out.push_str("  ");
                    i += 2;
                    continue;
                }
                out.push(blank(c));
            }
            State::Str => {
                if c == '\\' {
                    out.push(' ');
                    if let Some(escaped) = next {
                        out.push(blank(escaped));
                    }
                    i += 2;
                    continue;
                }
                if c == '"' {
                    state = State::Code;
                    out.push('"');
                } else {
                    out.push(blank(c));
                }
            }
            State::RawStr(hashes) => {
                let closes = c == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#'));
                if closes {
                    state = State::Code;
                    out.extend(std::iter::repeat_n(' ', hashes + 1));
                    i += hashes + 1;
                    continue;
                }
                out.push(blank(c));
            }
        }
        i += 1;
    }
    out.lines().map(str::to_string).collect()
}

fn is_ident_at(chars: &[char], i: usize) -> bool {
    chars
        .get(i)
        .is_some_and(|c| c.is_alphanumeric() || *c == '_')
}
