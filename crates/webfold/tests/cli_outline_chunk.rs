//! `webfold outline` and `webfold chunk` through the real binary: output,
//! `--json` shapes, budgets and exit codes (0 ok, 1 user error, 2 usage).

mod support;

use std::io::Write;
use std::process::{Command, Output, Stdio};
use support::{page_file, stderr, stdout, webfold};

const PAGE: &str = r#"<!DOCTYPE html><html><head><title>Acme</title><script>var x = 1;</script></head>
<body>
  <header id="main-header"><h1>Acme</h1></header>
  <nav class="navbar"><a href="/">Home</a> <a href="/p">Pricing</a> <a href="/c">Contact</a></nav>
  <main id="content">
    <section class="hero"><h1>Welcome to Our Platform</h1><p>The best solution for your needs</p></section>
    <section class="features"><div class="f">A</div><div class="f">B</div><div class="f">C</div></section>
    <section class="pricing"><p>Plans from $9</p></section>
  </main>
  <footer id="main-footer">© 2024 Acme</footer>
</body></html>"#;

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

#[test]
fn outline_prints_the_tree_and_exits_zero() {
    let path = page_file("cli_outline_chunk", "outline.html", PAGE);
    let o = webfold(&["outline", path.to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("body ("), "{out}");
    assert!(out.contains("├── header#main-header > h1 @"), "{out}");
    assert!(out.contains("│   ├── section.hero\n"), "{out}");
    assert!(
        out.contains("└── footer#main-footer \"© 2024 Acme\""),
        "{out}"
    );
    assert!(!out.contains("var x"), "{out}");
}

#[test]
fn outline_json_has_the_structure_fields() {
    let path = page_file("cli_outline_chunk", "outline_json.html", PAGE);
    let o = webfold(&[
        "outline",
        path.to_str().expect("utf-8 path"),
        "--json",
        "--max-depth",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["maxDepth"], 1);
    assert!(v["totalElements"].as_u64().is_some_and(|n| n > 10));
    // Every view's JSON is the same envelope on every surface.
    assert_eq!(v["view"], "outline");
    assert!(v["tokens"].as_u64().is_some_and(|t| t > 0));
    assert_eq!(v["encoding"], "o200k_base");
    assert!(v["text"].as_str().is_some_and(|t| t.starts_with("body (")));
    let root = &v["root"];
    assert_eq!(root["tag"], "body");
    assert_eq!(root["selector"], "body");
    let main = &root["children"][2];
    assert_eq!(main["tag"], "main");
    assert_eq!(main["id"], "content");
    assert_eq!(main["childCount"], 3);
    assert!(main.get("children").is_none(), "depth 1 stops here: {main}");
    assert!(main["nodeId"].as_u64().is_some());
}

#[test]
fn outline_budget_and_exclude_are_honoured() {
    let rows: String = (0..400)
        .map(|i| format!("<p class=r{i}>row {i} text</p>"))
        .collect();
    let path = page_file(
        "cli_outline_chunk",
        "outline_budget.html",
        &format!("<body><div id=list>{rows}</div><aside>side</aside></body>"),
    );
    let p = path.to_str().expect("utf-8 path");
    let o = webfold(&["outline", p, "--max-tokens", "120", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert!(v["tokens"].as_u64().is_some_and(|t| t <= 120), "{v}");
    assert_eq!(v["truncated"]["maxTokens"], 120);
    assert!(
        v["text"]
            .as_str()
            .is_some_and(|t| t.contains("chunk --selector")),
        "{v}"
    );
    let o = webfold(&["outline", p, "--exclude", "#list", "--exclude", "aside"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "body (1 elements)\n");
    let o = webfold(&["outline", p, "--max-tokens", "2"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("more than the budget of 2"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn chunk_prints_outer_html_from_a_file_or_stdin() {
    let path = page_file("cli_outline_chunk", "chunk.html", PAGE);
    let o = webfold(&[
        "chunk",
        path.to_str().expect("utf-8 path"),
        "--selector",
        "section.hero",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "<section class=\"hero\"><h1>Welcome to Our Platform</h1><p>The best solution for your needs</p></section>\n"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_webfold"))
        .args(["chunk", "-", "--selector", "footer"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(PAGE.as_bytes())
        .expect("write stdin");
    let o = child.wait_with_output().expect("wait");
    assert_eq!(
        stdout(&o),
        "<footer id=\"main-footer\">© 2024 Acme</footer>\n"
    );
}

#[test]
fn chunk_all_and_id_agree_with_outline_ids() {
    let path = page_file("cli_outline_chunk", "chunk_all.html", PAGE);
    let p = path.to_str().expect("utf-8 path");
    let o = webfold(&["chunk", p, "--selector", "section", "--all", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["matches"], 3);
    let chunks = v["chunks"].as_array().expect("chunks");
    assert_eq!(chunks.len(), 3);
    let selectors: Vec<&str> = chunks
        .iter()
        .filter_map(|c| c["selector"].as_str())
        .collect();
    assert_eq!(
        selectors,
        ["section.hero", "section.features", "section.pricing"]
    );
    for c in chunks {
        assert!(c["tokens"].as_u64().is_some_and(|t| t > 0));
        assert!(
            c["html"]
                .as_str()
                .is_some_and(|h| h.starts_with("<section"))
        );
    }
    let text = webfold(&["chunk", p, "--selector", "section", "--all"]);
    assert!(
        stdout(&text).starts_with("<!-- match 1/3: section.hero -->\n<section class=\"hero\">"),
        "{}",
        stdout(&text)
    );

    // The outline's nodeId is what --id takes.
    let outline = json(&webfold(&["outline", p, "--json"]));
    let footer = &outline["root"]["children"][3];
    assert_eq!(footer["tag"], "footer");
    let id = footer["nodeId"].as_u64().expect("nodeId").to_string();
    let o = webfold(&["chunk", p, "--id", &id]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "<footer id=\"main-footer\">© 2024 Acme</footer>\n"
    );
}

#[test]
fn chunk_budget_folds_and_says_how_to_unfold() {
    let items: String = (0..300)
        .map(|i| format!("<li class=item><a href=/{i}>Item {i}</a></li>"))
        .collect();
    let path = page_file(
        "cli_outline_chunk",
        "chunk_budget.html",
        &format!("<body><main><h1>List</h1><ul class=items>{items}</ul></main></body>"),
    );
    let p = path.to_str().expect("utf-8 path");
    let o = webfold(&[
        "chunk",
        p,
        "--selector",
        "main",
        "--max-tokens",
        "150",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert!(v["tokens"].as_u64().is_some_and(|t| t <= 150), "{v}");
    let part = &v["chunks"][0]["folded"][0];
    let sel = part["selector"].as_str().expect("folded selector");
    let html = v["chunks"][0]["html"].as_str().expect("html");
    let all = if part["all"] == true { " --all" } else { "" };
    assert!(
        html.contains(&format!("--selector '{sel}'{all} -->"))
            || html.contains(&format!("--selector {sel}{all} -->")),
        "{html}"
    );
    // The placeholder's own instruction works.
    let mut unfold = vec!["chunk", p, "--selector", sel];
    if !all.is_empty() {
        unfold.push("--all");
    }
    let o = webfold(&unfold);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The default budget shows the first of them and says how to get the rest.
    let out = stdout(&o);
    assert!(out.contains("Item 5<"), "{out}");
    assert!(out.contains("not shown to stay within the budget"), "{out}");
}

#[test]
fn user_errors_exit_one_with_a_reason_and_usage_errors_exit_two() {
    let path = page_file("cli_outline_chunk", "errors.html", PAGE);
    let p = path.to_str().expect("utf-8 path");

    let o = webfold(&["chunk", p, "--selector", "section.heros"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(
        err.starts_with("error: Element not found: section.heros (did you mean: section.hero"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");

    // An invalid selector: the one-line reason, then the selector with a
    // caret under the column.
    let o = webfold(&["chunk", p, "--selector", "section..hero"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "error: invalid selector 'section..hero': expected a class name after '.', found '.' (at column 9)\n  section..hero\n          ^\n"
    );

    let o = webfold(&["chunk", p, "--id", "999999"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unknown node id 999999"),
        "{}",
        stderr(&o)
    );

    let o = webfold(&["outline", p, "--exclude", "div["]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));

    let o = webfold(&["chunk", "/nonexistent/page.html", "--selector", "p"]);
    assert_eq!(o.status.code(), Some(1));

    for usage in [
        vec!["chunk", p],                                 // no target
        vec!["chunk", p, "--selector", "p", "--id", "3"], // two targets
        vec!["chunk", p, "--id", "abc"],                  // not a number
        vec!["outline", p, "--max-depth", "-1"],          // not a count
        vec!["outline", p, "--max-tokens", "0"],          // empty budget
        vec!["outline"],                                  // no input
    ] {
        let o = webfold(&usage);
        assert_eq!(o.status.code(), Some(2), "{usage:?}: {}", stderr(&o));
    }
}

#[test]
fn help_shows_examples() {
    for cmd in ["outline", "chunk"] {
        let o = webfold(&[cmd, "--help"]);
        assert_eq!(o.status.code(), Some(0));
        let out = stdout(&o);
        assert!(out.contains(&format!("webfold {cmd} page.html")), "{out}");
        assert!(
            out.contains("--max-tokens") && out.contains("--json"),
            "{out}"
        );
    }
}
