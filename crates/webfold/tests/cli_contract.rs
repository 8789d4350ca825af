//! The view contract as a command-line user meets it: a reader that stops
//! early is no error, options and defaults are the core's, and hints name
//! flags this command line has.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use support::{advised, page_file, stderr, stdout, tokens, webfold};

/// A page whose views are far larger than a pipe's buffer.
fn big_page() -> std::path::PathBuf {
    let items: String = (0..4_000)
        .map(|i| format!("<li class=\"item\"><a href=\"/p/{i}\">Item {i}</a></li>\n"))
        .collect();
    page_file(
        "contract",
        "big.html",
        &format!("<html><body><main><ul id=\"list\">{items}</ul></main></body></html>"),
    )
}

#[test]
fn a_closed_pipe_ends_output_quietly() {
    let page = big_page();
    let page = page.to_str().unwrap();
    let runs: [&[&str]; 5] = [
        &[
            "chunk",
            page,
            "--selector",
            "#list",
            "--max-tokens",
            "1000000",
        ],
        &[
            "markdown",
            page,
            "--no-main",
            "--max-lines",
            "0",
            "--max-tokens",
            "1000000",
        ],
        &["outline", page, "--max-depth", "64"],
        &["snapshot", page, "--full"],
        &["cnt", page, "--max-tokens", "50000"],
    ];
    for args in runs {
        let mut child = Command::new(env!("CARGO_BIN_EXE_webfold"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run webfold");
        // Read one line, then hang up, as `| head -1` does.
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!first.is_empty(), "{args:?} printed nothing");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        assert!(out.status.success(), "{args:?}: {:?} {err}", out.status);
    }
}

#[test]
fn defaults_are_the_cores_and_budgets_hold_by_default() {
    let page = big_page();
    let page = page.to_str().unwrap();
    // Every view is budgeted to 8,000 tokens unless told otherwise.
    let out = webfold(&["chunk", page, "--selector", "#list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(json["tokens"].as_u64().unwrap() <= 8000);
    assert!(stdout(&out).contains("folded"));
    let out = webfold(&["markdown", page, "--max-lines", "0", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(json["tokens"].as_u64().unwrap() <= 8000, "{json}");
}

#[test]
fn bad_values_and_budgets_say_what_to_do() {
    let page = page_file(
        "contract",
        "small.html",
        "<main><p>Hello there, reader.</p></main>",
    );
    let page = page.to_str().unwrap();
    let out = webfold(&["outline", page, "--max-tokens", "lots"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--max-tokens must be a whole number above 0, not 'lots'"),
        "{}",
        stderr(&out)
    );
    // A budget no line fits is an error, not empty output.
    let out = webfold(&["markdown", page, "--max-tokens", "3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).contains("raise --max-tokens"),
        "{}",
        stderr(&out)
    );
    let out = webfold(&["snapshot", page, "--mode", "yaml"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A page every view has plenty to say about.
fn shop_page() -> std::path::PathBuf {
    let items: String = (0..40)
        .map(|i| {
            format!(
                "<li class=\"product\"><h3>Product {i}</h3><p>A fine thing, number {i}, with a longer description to read.</p><a href=\"/p/{i}\">Buy product {i}</a></li>\n"
            )
        })
        .collect();
    let paras: String = (0..30)
        .map(|i| {
            format!("<p>Paragraph {i} of the guide says something about products and prices.</p>\n")
        })
        .collect();
    page_file(
        "contract",
        "shop.html",
        &format!(
            "<html><head><title>Shop</title></head><body><nav><a href=\"/\">Home</a><a href=\"/deals\">Deals</a></nav>\
             <main><h1>All products</h1><form><input type=\"search\" aria-label=\"Search\"><button>Go</button></form>\
             <ul class=\"products\">{items}</ul><article>{paras}</article></main><footer>Imprint</footer></body></html>"
        ),
    )
}

/// Whatever budget a view is given, a number it advises for `--max-tokens`
/// (in an error, or in its text: "raise --max-tokens N") works when pasted
/// back: the view runs, within that budget.
#[test]
fn every_advised_budget_works_when_pasted() {
    let page = shop_page();
    let page = page.to_str().unwrap();
    let views: &[&[&str]] = &[
        &["outline", page],
        &["chunk", page, "--selector", "ul.products"],
        &["chunk", page, "--selector", "li.product", "--all"],
        &["cnt", page],
        &["find", page, "product"],
        &["snapshot", page],
        &["markdown", page, "--no-main"],
        &["markdown", page, "--no-main", "--max-lines", "0"],
        &["markdown", page, "--no-main", "--start-line", "20"],
        &["markdown", page, "--format", "raw"],
        &["markdown", page, "--format", "base64"],
    ];
    let run = |args: &[&str], budget: usize| {
        let mut args = args.to_vec();
        let b = budget.to_string();
        args.extend(["--max-tokens", &b]);
        webfold(&args)
    };
    let mut pasted = 0;
    for args in views {
        for budget in [1, 8, 40, 150, 600] {
            let out = run(args, budget);
            let (text, err) = (stdout(&out), stderr(&out));
            assert!(!err.contains("panicked"), "{args:?} {budget}: {err}");
            let numbers = if out.status.success() {
                assert!(
                    tokens(&text) <= budget,
                    "{args:?} at {budget}: {} tokens\n{text}",
                    tokens(&text)
                );
                advised(&text)
            } else {
                assert_eq!(out.status.code(), Some(1), "{args:?} {budget}: {err}");
                assert!(err.starts_with("error: "), "{args:?} {budget}: {err}");
                let n = advised(&err);
                assert!(
                    !n.is_empty(),
                    "{args:?} at {budget} refused without a budget that works: {err}"
                );
                n
            };
            for n in numbers {
                let again = run(args, n);
                let (t, e) = (stdout(&again), stderr(&again));
                assert!(
                    again.status.success(),
                    "{args:?}: at {budget} advised --max-tokens {n}, which fails: {e}"
                );
                assert!(tokens(&t) <= n, "{args:?} at {n}: {} tokens", tokens(&t));
                // A number in a view's text shows more than that view did.
                if out.status.success() {
                    assert!(
                        tokens(&t) > tokens(&text),
                        "{args:?}: {n} after {budget} shows no more"
                    );
                }
                pasted += 1;
            }
        }
    }
    assert!(pasted >= 20, "only {pasted} advised budgets were tried");
}

/// `--json` is for programs: the budget counts the text view it carries
/// (whose exact count is `tokens`), not the JSON, and every view's help says so.
#[test]
fn json_carries_the_budgeted_text_view_and_says_so() {
    let page = shop_page();
    let page = page.to_str().unwrap();
    let budget = 300;
    let b = budget.to_string();
    for (args, key) in [
        (vec!["outline", page], "text"),
        (vec!["snapshot", page], "text"),
        (vec!["find", page, "product"], "text"),
        (vec!["markdown", page, "--no-main"], "text"),
    ] {
        let mut args = args;
        args.extend(["--json", "--max-tokens", &b]);
        let out = webfold(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let text = json[key].as_str().unwrap();
        assert!(tokens(text) <= budget, "{args:?}: {} tokens", tokens(text));
        assert_eq!(json["tokens"], tokens(text), "{args:?}");
    }
    let out = webfold(&[
        "chunk",
        page,
        "--selector",
        "ul.products",
        "--json",
        "--max-tokens",
        &b,
    ]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let html = json["chunks"][0]["html"].as_str().unwrap();
    assert!(
        tokens(html) <= budget && json["tokens"] == tokens(html),
        "{json}"
    );
    for cmd in [
        "outline", "chunk", "snapshot", "find", "cnt", "markdown", "fetch",
    ] {
        let help = stdout(&webfold(&[cmd, "--help"]));
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            help.contains("--max-tokens budgets the text view it carries, not the JSON"),
            "{cmd} --help: {help}"
        );
    }
}

/// An option the core refuses is a usage error of the subcommand: its own
/// usage line, not the top-level one, and values outside a declared range are
/// refused with the range.
#[test]
fn usage_errors_show_the_subcommands_usage() {
    let page = page_file("contract", "usage.html", "<main><p>Hello</p></main>");
    let page = page.to_str().unwrap();
    for (args, says, usage) in [
        (
            &["outline", page, "--max-tokens", "0"][..],
            "error: --max-tokens must be a whole number above 0, not 0",
            "Usage: webfold outline [OPTIONS] <INPUT>",
        ),
        (
            &["outline", page, "--max-depth", "65"],
            "error: --max-depth must be a whole number from 1 to 64, not 65",
            "Usage: webfold outline [OPTIONS] <INPUT>",
        ),
        (
            &["chunk", page],
            "error: name the element: give one of --selector, --id or --ref",
            "Usage: webfold chunk [OPTIONS] <INPUT>",
        ),
        (
            &["find", page, ""],
            "error: say what to find: TEXT is empty; give text (matched ignoring case) or a /regex/",
            "Usage: webfold find [OPTIONS] <INPUT> <TEXT>",
        ),
    ] {
        let out = webfold(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with(says), "{args:?}: {err}");
        assert!(err.contains(usage), "{args:?}: {err}");
        assert!(!err.contains("--query"), "{err}");
    }
    let out = webfold(&["outline", page, "--max-depth", "64"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// `--help` reads as sentences: the switch that turns an option off says
/// what it does, and an empty list has no default to show.
#[test]
fn help_reads_well() {
    let help = |sub: &str| stdout(&webfold(&[sub, "--help"]));
    let snapshot = help("snapshot");
    assert!(
        snapshot.contains("Don't show navigation breadcrumbs"),
        "{snapshot}"
    );
    assert!(
        snapshot.contains("Not only interactive elements (with headings and live regions)"),
        "{snapshot}"
    );
    let markdown = help("markdown");
    assert!(markdown.contains("Not only the main content"), "{markdown}");
    for sub in [
        "outline", "chunk", "snapshot", "find", "markdown", "cnt", "fetch",
    ] {
        let text = help(sub);
        assert!(!text.contains("Turn off"), "{sub}: {text}");
        assert!(!text.contains("[default: []]"), "{sub}: {text}");
    }
}
