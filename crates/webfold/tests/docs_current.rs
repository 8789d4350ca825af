//! `docs/cli.md` generated from the built binary's own help (`webfold help
//! SUBCOMMAND` for every subcommand `webfold --help` lists), and every local
//! link in the README and `docs/` checked to resolve. A checked-in copy that
//! differs fails here; `WEBFOLD_BLESS=1 cargo test -p webfold --test
//! docs_current` rewrites the generated part (below the marker line) and
//! keeps the hand-written part above it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use webfold_testkit::markdown::{cell, check_generated, slug, text};

const TEST: &str = "cargo test -p webfold --test docs_current";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The line that ends a file's hand-written part.
fn marker() -> String {
    format!(
        "<!-- Generated from the code below this line: `{TEST}` checks it, \
         WEBFOLD_BLESS=1 rewrites it. Edit the text above it by hand. -->"
    )
}

/// The binary's help, unwrapped: one line per paragraph.
fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_webfold"))
        .args(args)
        .env("COLUMNS", "10000")
        .output()
        .unwrap();
    assert!(out.status.success(), "webfold {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands `webfold --help` lists, with their one-line summaries.
fn subcommands() -> Vec<(String, String)> {
    let top = help(&["--help"]);
    let list = top
        .split("\nCommands:\n")
        .nth(1)
        .expect("webfold --help lists its commands")
        .split("\n\n")
        .next()
        .unwrap();
    list.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let (name, about) = l.split_once("  ")?;
            Some((name.to_string(), about.trim().to_string()))
        })
        .filter(|(name, _)| name != "help")
        .collect()
}

/// One argument or option of a help text.
struct Item {
    name: String,
    default: String,
    values: String,
    description: String,
}

/// A help text's parts, in the order clap lays them out.
enum Block {
    /// A paragraph of the about text or of the text after the options.
    Prose(String),
    Usage(String),
    /// `Arguments:`, `Options:` or `Commands:` and their items.
    Items(String, Vec<Item>),
    /// Any other titled run of indented lines (`Examples:`): commands.
    Code(String, Vec<String>),
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn parse(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.trim().is_empty() {
            continue;
        }
        if let Some(usage) = line.strip_prefix("Usage: ") {
            blocks.push(Block::Usage(usage.to_string()));
            continue;
        }
        let titled = indent(line) == 0
            && line.ends_with(':')
            && lines[i..]
                .iter()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| indent(l) > 0);
        if titled {
            let title = line.trim_end_matches(':').to_string();
            if matches!(title.as_str(), "Arguments" | "Options" | "Commands") {
                let (items, next) = parse_items(&lines, i);
                blocks.push(Block::Items(title, items));
                i = next;
            } else {
                let mut code = Vec::new();
                while i < lines.len() && (indent(lines[i]) > 0 || lines[i].trim().is_empty()) {
                    if !lines[i].trim().is_empty() {
                        code.push(lines[i].strip_prefix("  ").unwrap_or(lines[i]).to_string());
                    }
                    i += 1;
                }
                blocks.push(Block::Code(title, code));
            }
            continue;
        }
        blocks.push(Block::Prose(line.trim().to_string()));
    }
    blocks
}

/// The items from line `i` on, to the first unindented line; and the index
/// of that line.
fn parse_items(lines: &[&str], mut i: usize) -> (Vec<Item>, usize) {
    let mut items = Vec::new();
    while i < lines.len() {
        let line = lines[i];
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        if indent(line) == 0 {
            break;
        }
        i += 1;
        // The item's own line, then (long help) its paragraphs indented
        // further, or (short help) its text after a gap on the same line.
        let (name, first) = match line.trim().split_once("  ") {
            Some((n, d)) => (n.to_string(), d.trim().to_string()),
            None => (line.trim().to_string(), String::new()),
        };
        let mut paragraphs: Vec<String> = Vec::new();
        if !first.is_empty() {
            paragraphs.push(first);
        }
        while i < lines.len() {
            let next = lines[i];
            if next.trim().is_empty() {
                i += 1;
                continue;
            }
            if indent(next) <= 6 {
                break;
            }
            paragraphs.push(next.trim().to_string());
            i += 1;
        }
        let mut item = Item {
            name,
            default: String::new(),
            values: String::new(),
            description: String::new(),
        };
        let mut kept = Vec::new();
        for p in paragraphs {
            let p = take_bracket(&p, "[possible values: ", &mut item.values);
            let p = take_bracket(&p, "[default: ", &mut item.default);
            if !p.is_empty() {
                kept.push(p);
            }
        }
        item.description = kept.join(" ");
        if item.name != "-h, --help" {
            items.push(item);
        }
    }
    (items, i)
}

/// Removes `[PREFIX…]` from the end of `p`, keeping what it held in `into`.
fn take_bracket(p: &str, prefix: &str, into: &mut String) -> String {
    match p.rfind(prefix) {
        Some(i) if p.ends_with(']') => {
            *into = p[i + prefix.len()..p.len() - 1].to_string();
            p[..i].trim().to_string()
        }
        _ => p.to_string(),
    }
}

fn cli_reference() -> String {
    let mut out = String::new();
    out.push_str(
        "## Commands\n\nAs the binary prints them: `webfold help COMMAND` (or `webfold COMMAND \
         --help`) prints the same help, `-h` a summary.\n\n",
    );
    let subs = subcommands();
    out.push_str("| Command | What it does |\n|---|---|\n");
    for (name, about) in &subs {
        writeln!(
            out,
            "| [`{name}`](#{}) | {} |",
            slug(&format!("webfold {name}")),
            cell(about)
        )
        .unwrap();
    }
    out.push('\n');
    for (name, _) in &subs {
        writeln!(out, "## webfold {name}\n").unwrap();
        for block in parse(&help(&["help", name])) {
            match block {
                Block::Prose(p) => writeln!(out, "{}\n", text(&p)).unwrap(),
                Block::Usage(u) => writeln!(out, "```\n{u}\n```\n").unwrap(),
                Block::Items(title, items) => {
                    if items.is_empty() {
                        continue;
                    }
                    let what = match title.as_str() {
                        "Arguments" => "Argument",
                        "Options" => "Option",
                        "Commands" => "Command",
                        other => other,
                    };
                    writeln!(out, "| {what} | Default | Description |\n|---|---|---|").unwrap();
                    for item in items {
                        writeln!(
                            out,
                            "| `{}` | {} | {} |",
                            item.name,
                            code_or_empty(&item.default),
                            item_description(&item)
                        )
                        .unwrap();
                    }
                    out.push('\n');
                }
                Block::Code(title, lines) => {
                    writeln!(
                        out,
                        "{}:\n\n```sh\n{}\n```\n",
                        text(&title),
                        lines.join("\n")
                    )
                    .unwrap();
                }
            }
        }
    }
    out
}

fn code_or_empty(s: &str) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!("`{s}`")
    }
}

/// An item's help, with the values it takes.
fn item_description(item: &Item) -> String {
    let mut description = cell(&item.description);
    if !item.values.is_empty() {
        let values: Vec<String> = item.values.split(", ").map(|v| format!("`{v}`")).collect();
        let gap = if description.is_empty() || description.ends_with('.') {
            " "
        } else {
            ". "
        };
        write!(description, "{gap}Values: {}.", values.join(", ")).unwrap();
    }
    description.trim().to_string()
}

#[test]
fn cli_reference_is_current() {
    let generated = cli_reference();
    // Every subcommand the binary lists has its section.
    for (name, _) in subcommands() {
        assert!(
            generated.contains(&format!("\n## webfold {name}\n")),
            "{name} has no section"
        );
    }
    check("docs/cli.md", &generated);
}

// ---- Links -------------------------------------------------------------

/// The text of a Markdown heading line as rendered: links to their text,
/// emphasis and code marks gone.
fn heading_text(h: &str) -> String {
    let mut out = String::new();
    let mut rest = h;
    while let Some(i) = rest.find('[') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find("](") {
            Some(j) if after[j..].contains(')') => {
                out.push_str(&after[..j]);
                let close = after[j..].find(')').unwrap();
                rest = &after[j + close + 1..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.replace(['`', '*'], "")
}

/// The file's text outside fenced code blocks, with code spans blanked;
/// line breaks are kept so that positions still mean something.
fn prose(md: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push('\n');
            continue;
        }
        if !fenced {
            let mut in_code = false;
            for c in line.chars() {
                if c == '`' {
                    in_code = !in_code;
                    out.push(' ');
                } else {
                    out.push(if in_code { ' ' } else { c });
                }
            }
        }
        out.push('\n');
    }
    out
}

/// The anchors of a Markdown file's headings, numbered as GitHub numbers
/// repeats (`-1`, `-2`, …).
fn anchors(md: &str) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(heading_text(line[hashes..].trim()).trim());
        let n = seen.entry(base.clone()).or_insert(0);
        out.push(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// Every inline link or image target in `md` outside code.
fn link_targets(md: &str) -> Vec<String> {
    let text = prose(md);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("](") {
        let start = from + i + 2;
        let end = text[start..]
            .find([')', ' ', '\n'])
            .map_or(text.len(), |j| start + j);
        out.push(text[start..end].to_string());
        from = end;
    }
    out
}

/// What is wrong with the local links of `file` (relative to the root).
fn broken_links(file: &Path) -> Vec<String> {
    let md = std::fs::read_to_string(file).unwrap();
    let dir = file.parent().unwrap();
    let mut broken = Vec::new();
    for target in link_targets(&md) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let linked = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(path)
        };
        if !linked.exists() {
            broken.push(format!("{target}: no such file"));
            continue;
        }
        if let Some(anchor) = anchor {
            let text = std::fs::read_to_string(&linked).unwrap_or_default();
            if !anchors(&text).iter().any(|a| a == anchor) {
                broken.push(format!("{target}: no heading with that anchor"));
            }
        }
    }
    broken
}

/// The Markdown files whose links are checked: the README and `docs/`.
fn documents() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn local_links_resolve() {
    let mut broken = Vec::new();
    for file in documents() {
        for b in broken_links(&file) {
            broken.push(format!(
                "{}: {b}",
                file.strip_prefix(root()).unwrap_or(&file).display()
            ));
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_checker_finds_what_is_broken() {
    let md = "# Set up\n\n## The `chunk` view: one element\n\n### Set up\n\n\
              [ok](#set-up) [ok](#set-up-1) [ok](#the-chunk-view-one-element)\n\
              [bad](#set_up) [file](missing.md) `[code](#nowhere)`\n\
              ```\n[fenced](#nowhere)\n```\n[split\nlink](#also-missing)\n";
    let dir = std::env::temp_dir().join(format!("webfold-docs-links-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("t.md");
    std::fs::write(&file, md).unwrap();
    let broken = broken_links(&file);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        broken,
        vec![
            "#set_up: no heading with that anchor",
            "missing.md: no such file",
            "#also-missing: no heading with that anchor",
        ]
    );
}

/// Compares the generated part of `file` with `generated`, or writes it
/// under `WEBFOLD_BLESS`.
fn check(file: &str, generated: &str) {
    check_generated(&root().join(file), &marker(), generated, "", TEST);
}
