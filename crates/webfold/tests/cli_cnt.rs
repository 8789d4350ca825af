//! `webfold cnt` through the real binary: the view, budgets, expand, JSON,
//! HTML, one identity with `chunk`, and exit codes (0 ok, 1 user error, 2 usage).

mod support;

use std::io::Write;
use std::process::{Command, Stdio};
use support::{page_file, stderr, stdout, webfold};

use webfold_core::tokens;

/// A shop page: a nav, a long product list, a search form.
fn shop_page() -> String {
    let items: String = (0..60)
        .map(|i| format!("<li><a href=\"/p/{i}\">Product {i}</a></li>"))
        .collect();
    format!(
        "<!DOCTYPE html><html><head><title>Acme Shop</title><script>var x=1;</script></head><body>\
         <nav><a href=\"/\">Home</a><a href=\"/cart\">Cart</a></nav>\
         <ul class=\"products\">{items}</ul>\
         <form role=\"search\"><input type=\"text\" name=\"q\" placeholder=\"Search products\"><button>Search</button></form>\
         </body></html>"
    )
}

#[test]
fn cnt_prints_the_tree_within_the_default_budget() {
    let path = page_file("cli_cnt", "shop.html", &shop_page());
    let out = webfold(&["cnt", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("# Acme Shop\n"), "{text}");
    assert!(
        text.contains("\n 9 nav\n  10 a* href=/ Home\n  12 a* href=/cart Cart\n"),
        "{text}"
    );
    assert!(
        text.contains(" input* type=text name=q placeholder=\"Search products\"\n"),
        "{text}"
    );
    assert!(
        text.contains(" li,a* href=/p/59 Product 59\n"),
        "everything fits 8000 tokens: {text}"
    );
    assert!(!text.contains("var x"), "scripts are dropped");
    assert!(tokens::count_default(&text) <= 8000);
}

/// The marker id on the first `… N hidden [ID]` line.
fn marker(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("… "))
        .expect("a marker line");
    line.rsplit('[')
        .next()
        .unwrap()
        .trim_end_matches(']')
        .to_string()
}

#[test]
fn a_small_budget_compresses_and_expand_shows_the_hidden_children() {
    let path = page_file("cli_cnt", "shop-small.html", &shop_page());
    let p = path.to_str().unwrap();
    let out = webfold(&["cnt", p, "--max-tokens", "200"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(tokens::count_default(&text) <= 200, "{text}");
    assert!(
        text.ends_with("`…+N` characters): cnt --expand ID\n"),
        "the cut is announced in the command line's words: {text}"
    );
    let id = marker(&text);
    let hidden: usize = text
        .lines()
        .find(|l| l.contains(&format!("[{id}]")))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .expect("hidden count");
    let out = webfold(&["cnt", p, "--max-tokens", "200", "--expand", &id]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let more = stdout(&out);
    assert!(more.starts_with(&format!("# expand {id}\n")), "{more}");
    assert!(tokens::count_default(&more) <= 200);
    // Node lines of the expansion are at the top level; with its own marker
    // they account for every hidden child.
    let shown = more
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
        .count();
    let nested: usize = more
        .lines()
        .filter(|l| l.starts_with("… "))
        .map(|l| {
            l.split_whitespace()
                .nth(1)
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(shown + nested, hidden, "{more}");
}

#[test]
fn json_and_html_show_the_same_view() {
    let path = page_file("cli_cnt", "shop-json.html", &shop_page());
    let p = path.to_str().unwrap();
    let out = webfold(&["cnt", p, "--max-tokens", "200", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["title"], "Acme Shop");
    assert_eq!(json["max_tokens"], 200);
    assert!(json["tokens"].as_u64().unwrap() <= 200);
    let text = stdout(&webfold(&["cnt", p, "--max-tokens", "200"]));
    let id = marker(&text);
    let body = &json["nodes"][0];
    for key in ["id", "tag", "text", "attrs", "clickable", "children"] {
        assert!(body.get(key).is_some(), "{key} in {body}");
    }
    // The marker sits on the product list, wherever it is in the tree.
    let mut stack = vec![body];
    let mut found = None;
    while let Some(n) = stack.pop() {
        if let Some(c) = n.get("compressed") {
            found = Some(c.clone());
        }
        stack.extend(n["children"].as_array().unwrap());
    }
    assert_eq!(found.expect("a compressed node")["id"], id.as_str());

    let out = webfold(&["cnt", p, "--max-tokens", "200", "--html"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let html = stdout(&out);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(
        html.contains("class=\"node compressed\""),
        "compressed nodes are marked"
    );
    assert!(html.contains(&format!("[{id}]</li>")), "{html}");
}

#[test]
fn cnt_ids_are_node_ids_that_chunk_unfolds() {
    let path = page_file("cli_cnt", "shop-chunk.html", &shop_page());
    let p = path.to_str().unwrap();
    let text = stdout(&webfold(&["cnt", p]));
    let line = text
        .lines()
        .find(|l| l.contains("Product 7\n") || l.ends_with("Product 7"))
        .expect("product 7");
    let id = line.split_whitespace().next().unwrap();
    let out = webfold(&["chunk", p, "--id", id]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("<li><a href=\"/p/7\">Product 7</a></li>"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn reads_standard_input() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_webfold"))
        .args(["cnt", "-", "--max-tokens", "100"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(shop_page().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(tokens::count_default(&stdout(&out)) <= 100);
}

#[test]
fn errors_say_what_to_do() {
    let path = page_file("cli_cnt", "shop-err.html", &shop_page());
    let p = path.to_str().unwrap();
    let out = webfold(&["cnt", p, "--max-tokens", "5"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("raise --max-tokens"),
        "{}",
        stderr(&out)
    );
    // Node 2 is <head>: a real node, not in the CNT.
    let out = webfold(&["cnt", p, "--expand", "2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("chunk --id 2"), "{}", stderr(&out));
    let out = webfold(&["cnt", p, "--expand", "9.0-9999"]);
    assert_eq!(out.status.code(), Some(1));
    let out = webfold(&["cnt", p, "--expand", "banana"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a malformed id is a usage error"
    );
    assert!(stderr(&out).contains("12.3-97"), "{}", stderr(&out));
    let out = webfold(&["cnt", "/nonexistent/page.html"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn help_has_an_example() {
    let out = webfold(&["cnt", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("webfold cnt page.html --expand 12.3-97"));
}
