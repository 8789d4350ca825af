//! `webfold markdown` and `webfold fetch` through the real binary, against a
//! local HTTP server the test starts on 127.0.0.1 (never the internet).

use std::io::{Read, Write};
use std::process::{Command, Stdio};

mod support;
use support::{advised, tokens};
use webfold_testkit::free_port;
use webfold_testkit::http::{Response, Site};

const PAGE: &str = r##"<!doctype html><html><head><title>Guide page</title>
<style>p { color: red }</style><script>var tracking = 1;</script></head>
<body><nav><a href="/">Home</a></nav>
<h1>The guide</h1>
<p>See <a href="../other.html">the other page</a>, <a href="/about.html">about</a>,
<a href="#part2">part 2</a> and <a href="https://example.org/x">elsewhere</a>.</p>
<p><img src="img/logo.png" alt="Logo"></p>
<pre><code class="language-rust">fn main() {}</code></pre>
</body></html>"##;

fn long_page() -> String {
    let paras: String = (1..=500)
        .map(|i| format!("<p>Paragraph number {i}.</p>\n"))
        .collect();
    format!("<html><body>{paras}</body></html>")
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR";

/// Starts the server; its base URL.
fn server() -> String {
    let notes: String = (1..=300).map(|i| format!("line {i}\n")).collect();
    Site::new()
        .page("/docs/guide/page.html", PAGE)
        .route(
            "/moved",
            Response::redirect("302 Found", "/docs/guide/page.html"),
        )
        .route("/long.html", Response::ok("text/html", long_page()))
        .route(
            "/data.json",
            Response::ok(
                "application/json",
                br#"{"items": [1, 2, 3], "note": "<b>raw</b>"}"#.to_vec(),
            ),
        )
        .route(
            "/notes.txt",
            Response::ok("text/plain; charset=utf-8", notes),
        )
        .route("/logo.png", Response::ok("image/png", PNG))
        .route(
            "/big.html",
            Response::ok("text/html", vec![b'x'; 64 * 1024]),
        )
        .fallback(Response::status(
            "404 Not Found",
            "text/html",
            "<h1>Not Found</h1>",
        ))
        .serve()
}

/// Runs webfold. These tests are about converting and paging whole pages, so
/// `markdown` and `fetch` get `--no-main` unless a test says `--main`.
fn webfold(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let whole = matches!(args.first(), Some(&"markdown" | &"fetch"))
        && !args.iter().any(|a| *a == "--main" || *a == "--no-main");
    let mut args = args.to_vec();
    if whole {
        args.push("--no-main");
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_webfold"))
        .args(&args)
        .env("NO_PROXY", "*")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("HTTPS_PROXY")
        .env_remove("https_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    if let Some(s) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(s.as_bytes())
            .expect("write");
    }
    let mut out = String::new();
    let mut err = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("read");
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read");
    let code = child.wait().expect("wait").code().unwrap_or(-1);
    (code, out, err)
}

#[test]
fn fetch_html_gives_markdown_with_resolved_links() {
    let base = server();
    let url = format!("{base}/moved");
    let (code, out, err) = webfold(&["fetch", &url], None);
    assert_eq!(code, 0, "{err}");
    let page = format!("{base}/docs/guide/page.html");
    assert!(out.starts_with(&format!(
        "URL: {page}\nContent-Type: text/html; charset=utf-8 (shown as markdown)\nTitle: Guide page\n\n"
    )), "{out}");
    for want in [
        "# The guide".to_owned(),
        format!("[the other page]({base}/docs/other.html)"),
        format!("[about]({base}/about.html)"),
        "[part 2](#part2)".to_owned(),
        "[elsewhere](https://example.org/x)".to_owned(),
        format!("![Logo]({base}/docs/guide/img/logo.png)"),
        "```rust\nfn main() {}\n```".to_owned(),
        format!("[Home]({base}/)"),
    ] {
        assert!(out.contains(&want), "missing {want:?} in:\n{out}");
    }
    assert!(
        !out.contains("tracking") && !out.contains("color: red"),
        "{out}"
    );
    assert!(!out.contains("truncated"), "{out}");
}

#[test]
fn fetch_json_and_text_are_raw_and_never_cut() {
    let base = server();
    let (code, out, _) = webfold(&["fetch", &format!("{base}/data.json")], None);
    assert_eq!(code, 0);
    assert!(out.contains("(shown as raw)"), "{out}");
    assert!(
        out.ends_with("{\"items\": [1, 2, 3], \"note\": \"<b>raw</b>\"}\n"),
        "{out}"
    );
    let (code, out, _) = webfold(&["fetch", &format!("{base}/notes.txt")], None);
    assert_eq!(code, 0);
    assert!(
        out.contains("line 300\n") && !out.contains("truncated"),
        "{out}"
    );
}

#[test]
fn fetch_png_gives_base64() {
    let base = server();
    let (code, out, _) = webfold(&["fetch", &format!("{base}/logo.png"), "--json"], None);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "base64");
    assert_eq!(v["text"], "iVBORw0KGgoAAAANSUhEUg==");
    assert_eq!(v["content_type"], "image/png");
    let (code, out, _) = webfold(
        &["fetch", &format!("{base}/logo.png"), "--format", "base64"],
        None,
    );
    assert_eq!(code, 0);
    assert!(
        out.contains("(shown as base64)\n\niVBORw0KGgoAAAANSUhEUg==\n"),
        "{out}"
    );
}

#[test]
fn a_format_asked_for_is_given_or_refused() {
    let base = server();
    let page = format!("{base}/docs/guide/page.html");
    // HTML as base64: the body's bytes, whole.
    let (code, out, err) = webfold(&["fetch", &page, "--format", "base64", "--json"], None);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "base64");
    assert_eq!(v["text"], webfold_core::fetch_view::base64(PAGE.as_bytes()));
    // What a body cannot be shown as is refused, saying what it can.
    let (code, out, err) = webfold(
        &["fetch", &format!("{base}/logo.png"), "--format", "markdown"],
        None,
    );
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(
        err,
        "error: cannot show image/png as markdown: only HTML converts to Markdown; ask for --format base64 (or leave out --format for base64)\n"
    );
    let (code, _, err) = webfold(
        &[
            "fetch",
            &format!("{base}/data.json"),
            "--format",
            "markdown",
        ],
        None,
    );
    assert_eq!(code, 1);
    assert!(err.contains("ask for --format raw"), "{err}");
    let (code, _, err) = webfold(
        &["markdown", &format!("{base}/logo.png"), "--format", "raw"],
        None,
    );
    assert_eq!(code, 1);
    assert!(
        err.starts_with("error: cannot show image/png as raw"),
        "{err}"
    );

    // `markdown` does what the flag says too: a file's HTML as it is...
    let (code, out, err) = webfold(&["markdown", "-", "--format", "raw"], Some(PAGE));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, format!("{PAGE}\n"));
    let (code, out, _) = webfold(
        &["markdown", "-", "--format", "base64", "--json"],
        Some(PAGE),
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["text"], webfold_core::fetch_view::base64(PAGE.as_bytes()));
    // ...and a long page's raw HTML whole, never cut at 200 lines.
    let (code, out, err) = webfold(
        &[
            "markdown",
            &format!("{base}/long.html"),
            "--format",
            "raw",
            "--max-tokens",
            "100000",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, format!("{}\n", long_page()));
    // Whole or refused: over the budget it says which budget takes it.
    let (code, out, err) = webfold(
        &[
            "markdown",
            &format!("{base}/long.html"),
            "--format",
            "raw",
            "--max-tokens",
            "100",
        ],
        None,
    );
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.contains("never cut") && err.contains("raise --max-tokens "),
        "{err}"
    );
}

/// The first budget `text` advises.
fn first_advised(text: &str) -> usize {
    *advised(text)
        .first()
        .unwrap_or_else(|| panic!("no --max-tokens N in: {text}"))
}

#[test]
fn fetch_budgets_count_the_header_and_advice_works_when_pasted() {
    let base = server();
    for (path, format) in [
        ("/docs/guide/page.html", "raw"),
        ("/docs/guide/page.html", "markdown"),
        ("/long.html", "markdown"),
        ("/notes.txt", "raw"),
        ("/logo.png", "base64"),
    ] {
        let url = format!("{base}{path}");
        for budget in ["5", "30"] {
            let (code, out, err) = webfold(
                &["fetch", &url, "--format", format, "--max-tokens", budget],
                None,
            );
            let text = if code == 0 { out } else { err };
            let needed = first_advised(&text).to_string();
            let (code, out, err) = webfold(
                &["fetch", &url, "--format", format, "--max-tokens", &needed],
                None,
            );
            assert_eq!(
                code, 0,
                "{path} as {format}: advised {needed} after {budget}, which fails: {err}"
            );
            assert!(out.starts_with(&format!("URL: {url}\n")), "{out}");
            assert!(tokens(&out) <= needed.parse().unwrap(), "{path}: {out}");
        }
    }
}

#[test]
fn whichever_limit_cut_the_page_says_so_and_how_to_get_the_rest() {
    let html = long_page();
    // The line limit cut: the seed's indicator, read on from the next line.
    let (_, out, _) = webfold(&["markdown", "-"], Some(&html));
    assert!(out.ends_with(
        "_Content truncated to first 200 lines. 799 more lines available._\n_To read on: --start-line 201._\n"
    ), "{out}");
    // `--max-lines 0` shows all but a budget still holds: the budget cut,
    // and it says so, with both ways on.
    let (code, out, err) = webfold(
        &["markdown", "-", "--max-lines", "0", "--max-tokens", "300"],
        Some(&html),
    );
    assert_eq!(code, 0, "{err}");
    assert!(tokens(&out) <= 300);
    let tail = out.rsplit("---\n").next().unwrap();
    let shown = tail
        .strip_prefix("_Content truncated to first ")
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        tail.contains(&format!(
            "_Cut to fit the token budget. To read on: --start-line {}; to show through line 999 at once: --max-tokens ",
            shown + 1
        )),
        "{tail}"
    );
    let all = first_advised(tail);
    let (code, out, err) = webfold(
        &[
            "markdown",
            "-",
            "--max-lines",
            "0",
            "--max-tokens",
            &all.to_string(),
        ],
        Some(&html),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.trim_end().ends_with("Paragraph number 500."), "{out}");
    assert!(!out.contains("truncated"), "{out}");
    assert!(tokens(&out) <= all);
}

#[test]
fn fetch_raw_html_on_request() {
    let base = server();
    let (code, out, _) = webfold(
        &[
            "fetch",
            &format!("{base}/docs/guide/page.html"),
            "--format",
            "raw",
        ],
        None,
    );
    assert_eq!(code, 0);
    assert!(
        out.contains("(shown as raw)") && out.contains("<h1>The guide</h1>"),
        "{out}"
    );
}

#[test]
fn long_pages_are_truncated_with_the_seed_indicator() {
    let base = server();
    let url = format!("{base}/long.html");
    let (code, out, _) = webfold(&["fetch", &url], None);
    assert_eq!(code, 0);
    // 500 paragraphs separated by blank lines: 999 lines.
    assert!(out.ends_with(
        "Paragraph number 100.\n\n\n---\n_Content truncated to first 200 lines. 799 more lines available._\n_To read on: --start-line 201._\n"
    ), "{}", &out[out.len().saturating_sub(300)..]);
    let (_, out, _) = webfold(&["fetch", &url, "--start-line", "201", "--json"], None);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["first_line"], 201);
    assert_eq!(v["next_start_line"], 401);
    assert!(
        v["text"]
            .as_str()
            .unwrap()
            .starts_with("Paragraph number 101.")
    );
    let (_, out, _) = webfold(&["fetch", &url, "--max-lines", "0"], None);
    assert!(out.contains("Paragraph number 500.") && !out.contains("truncated"));
    let (_, out, _) = webfold(&["fetch", &url, "--max-tokens", "300"], None);
    let n = webfold_core::tokens::count(&out, webfold_core::tokens::Encoding::O200kBase);
    assert!(n <= 300, "{n} tokens");
    assert!(out.contains("_Content truncated to first "), "{out}");
}

#[test]
fn oversized_missing_and_unreachable_are_clear_errors() {
    let base = server();
    let (code, out, err) = webfold(
        &["fetch", &format!("{base}/big.html"), "--max-bytes", "1000"],
        None,
    );
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("larger than the 1000 bytes limit") && err.contains("--max-bytes"),
        "{err}"
    );
    let (code, _, err) = webfold(&["fetch", &format!("{base}/missing")], None);
    assert_eq!(code, 1);
    assert!(
        err.contains("HTTP 404") && err.contains("Not Found"),
        "{err}"
    );
    let closed = free_port();
    let (code, _, err) = webfold(&["fetch", &format!("http://127.0.0.1:{closed}/")], None);
    assert_eq!(code, 1);
    assert!(err.starts_with("error: could not connect to"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let (code, _, _) = webfold(&["fetch"], None);
    assert_eq!(code, 2);
    let (code, _, err) = webfold(&["fetch", "ftp://example.com/x"], None);
    assert_eq!(code, 1);
    assert!(err.contains("use an http:// or https:// URL"), "{err}");
}

#[test]
fn markdown_command_resolves_against_base_url_or_fetched_url() {
    let (code, out, _) = webfold(
        &[
            "markdown",
            "-",
            "--base-url",
            "https://example.com/blog/post.html",
        ],
        Some("<p><a href='../x.html'>X</a> <img src='/i.png' alt='I'></p>"),
    );
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "[X](https://example.com/x.html) ![I](https://example.com/i.png)\n"
    );

    let base = server();
    let (code, out, _) = webfold(&["markdown", &format!("{base}/moved"), "--json"], None);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["url"], format!("{base}/docs/guide/page.html"));
    assert_eq!(v["title"], "Guide page");
    assert!(
        v["text"]
            .as_str()
            .unwrap()
            .contains(&format!("({base}/docs/other.html)"))
    );

    let (code, _, err) = webfold(
        &["markdown", "-", "--base-url", "not a url"],
        Some("<p>x</p>"),
    );
    assert_eq!(code, 1);
    assert!(err.contains("invalid --base-url"), "{err}");
    let (code, _, err) = webfold(&["markdown", &format!("{base}/logo.png")], None);
    assert_eq!(code, 1);
    assert!(err.contains("webfold fetch"), "{err}");
}

#[test]
fn markdown_command_pages_and_budgets() {
    let html = long_page();
    let (code, out, _) = webfold(&["markdown", "-", "--max-lines", "10"], Some(&html));
    assert_eq!(code, 0);
    assert!(out.ends_with("Paragraph number 5.\n\n\n---\n_Content truncated to first 10 lines. 989 more lines available._\n_To read on: --start-line 11._\n"), "{out}");
    let (_, out, _) = webfold(&["markdown", "-", "--max-tokens", "50"], Some(&html));
    assert!(webfold_core::tokens::count(&out, webfold_core::tokens::Encoding::O200kBase) <= 50);
    let (_, out, _) = webfold(
        &["markdown", "-", "--start-line", "997", "--json"],
        Some(&html),
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["total_lines"], 999);
    assert_eq!(v["truncated"], false);
    assert_eq!(
        v["text"],
        "Paragraph number 499.\n\nParagraph number 500.\n\n---\n_Showing lines 997–999 of 999 (end of content)._"
    );
}
