//! `webfold snapshot`, `webfold find` and `webfold chunk --ref` as a user runs them.

mod support;

use std::path::PathBuf;
use support::{advised, stderr, stdout, tokens, webfold};

/// A scratch directory for this test, under the target directory.
fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_snapshot")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(d: &std::path::Path, name: &str, html: &str) -> String {
    let p = d.join(name);
    std::fs::write(&p, html).unwrap();
    p.to_string_lossy().into_owned()
}

const SHOP: &str = "<title>Shop</title><body><header><nav aria-label=Main><a href=/>Home</a><a href=/deals>Deals</a></nav></header>\
<main><h1>Item</h1><input type=search aria-label='Search products'><button id=buy>Buy</button></main>\
<footer><a href=/imprint>Imprint</a></footer></body>";

#[test]
fn default_full_and_json() {
    let d = dir("basic");
    let page = write(&d, "shop.html", SHOP);
    let o = webfold(&["snapshot", &page]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("- button \"Buy\" [ref="), "{text}");
    assert!(
        text.contains("- searchbox \"Search products\" [ref="),
        "{text}"
    );
    // Interactive only by default, with the headings to read them by.
    assert!(
        text.contains("- heading \"Item\" [level=1] [ref="),
        "{text}"
    );
    let full = stdout(&webfold(&["snapshot", &page, "--full"]));
    assert!(full.starts_with("- generic [active] [ref=e1]:\n"), "{full}");
    assert!(full.contains("heading \"Item\" [level=1]"));
    assert!(
        !full.contains('#'),
        "no header or notes under --full: {full}"
    );
    let aria = stdout(&webfold(&["snapshot", &page, "--full", "--mode", "aria"]));
    assert!(!aria.contains("[ref="), "{aria}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&webfold(&["snapshot", &page, "--json"]))).unwrap();
    assert_eq!(json["kind"], "budgeted");
    assert_eq!(json["total_elements"], json["kept_elements"]);
    assert!(json["tokens"].as_u64().unwrap() > 0);
    assert!(json["text"].as_str().unwrap().contains("button \"Buy\""));
}

#[test]
fn session_file_gives_breadcrumbs_dedup_and_diffs() {
    let d = dir("session");
    let a = write(&d, "a.html", SHOP);
    let b = write(
        &d,
        "b.html",
        &SHOP.replace(
            "<button id=buy>Buy</button>",
            "<button id=buy>Buy</button><button>Gift</button>",
        ),
    );
    let s = d.join("s.json").to_string_lossy().into_owned();
    let first = stdout(&webfold(&[
        "snapshot",
        &a,
        "--url",
        "https://shop.example/item/1",
        "--session",
        &s,
    ]));
    assert!(first.starts_with("# Currently on: Shop\n"), "{first}");
    let second = stdout(&webfold(&[
        "snapshot",
        &a,
        "--url",
        "https://shop.example/item/2",
        "--session",
        &s,
    ]));
    assert!(
        second.starts_with("# Navigation: Shop → Shop\n"),
        "{second}"
    );
    assert!(
        second.contains(": (unchanged since previous page)"),
        "{second}"
    );
    // A diff comes when asked for; an explicit snapshot is the whole view.
    let third = stdout(&webfold(&[
        "snapshot",
        &b,
        "--url",
        "https://shop.example/item/2",
        "--session",
        &s,
        "--diff",
    ]));
    assert!(
        third.contains(
            "# Changes since the last snapshot of this page: 1 added, 0 removed, 0 changed"
        ),
        "{third}"
    );
    assert!(
        third.contains("- button \"Gift\" [ref=") && third.contains("# added"),
        "{third}"
    );
    let whole = stdout(&webfold(&[
        "snapshot",
        &b,
        "--url",
        "https://shop.example/item/2",
        "--session",
        &s,
        "--no-diff",
        "--no-history",
    ]));
    assert!(
        whole.starts_with("- generic [active]") && whole.contains("button \"Buy\""),
        "{whole}"
    );
    // A broken session file is a clear error, not a crash.
    std::fs::write(&s, "not json").unwrap();
    let o = webfold(&["snapshot", &a, "--session", &s]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("is not a webfold snapshot session; delete it"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn scopes_refs_and_errors() {
    let d = dir("scope");
    let page = write(&d, "shop.html", SHOP);
    let full = stdout(&webfold(&["snapshot", &page, "--full"]));
    let buy_ref = full
        .lines()
        .find(|l| l.contains("button \"Buy\""))
        .and_then(|l| l.split("[ref=").nth(1))
        .and_then(|r| r.split(']').next())
        .unwrap()
        .to_string();
    // chunk --ref gives that element's HTML: one identity across views.
    let chunk = webfold(&["chunk", &page, "--ref", &buy_ref]);
    assert!(chunk.status.success(), "{}", stderr(&chunk));
    assert_eq!(stdout(&chunk).trim(), "<button id=\"buy\">Buy</button>");
    let sub = stdout(&webfold(&[
        "snapshot",
        &page,
        "--selector",
        "footer",
        "--full",
    ]));
    assert!(
        sub.starts_with("- contentinfo [ref=") && sub.contains("Imprint") && !sub.contains("Buy"),
        "{sub}"
    );
    let o = webfold(&["snapshot", &page, "--ref", "e999"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no element e999 in the last snapshot"),
        "{}",
        stderr(&o)
    );
    let o = webfold(&["snapshot", &page, "--viewport-only"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("needs a live page"), "{}", stderr(&o));
    let o = webfold(&["snapshot", &page, "--selector", "main", "--ref", "e1"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "conflicting scopes are a usage error"
    );
    // Outside the declared range: refused with the range, not clamped.
    for (flag, value, range) in [
        ("--max-elements", "0", "from 1 to 1000"),
        ("--max-elements", "1001", "from 1 to 1000"),
    ] {
        let o = webfold(&["snapshot", &page, flag, value]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).starts_with(&format!(
                "error: {flag} must be a whole number {range}, not {value}"
            )),
            "{}",
            stderr(&o)
        );
        assert!(
            stderr(&o).contains("Usage: webfold snapshot"),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn any_budget_is_honoured_header_included() {
    let d = dir("budgets");
    let links: String = (0..150)
        .map(|i| format!("<li><a href=/p/{i}>Product number {i}</a></li>"))
        .collect();
    let page = write(
        &d,
        "list.html",
        &format!(
            "<body><main><h1>All products</h1><button>Filter</button><ul>{links}</ul></main></body>"
        ),
    );
    // Below the old 1,000-token floor: as much as fits, header included.
    for budget in [500, 200] {
        let o = webfold(&["snapshot", &page, "--max-tokens", &budget.to_string()]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            stderr(&o),
            "",
            "nothing to note: the budget is used as given"
        );
        let text = stdout(&o);
        assert!(
            tokens(&text) <= budget,
            "{budget}: {} tokens",
            tokens(&text)
        );
        assert!(
            text.starts_with("# Elements: ") && text.contains("(truncated: token budget)"),
            "{text}"
        );
        assert!(text.contains("- button \"Filter\" [ref="), "{text}");
    }
    // Too small for even the header: an error naming a budget that works.
    let o = webfold(&["snapshot", &page, "--max-tokens", "10"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert!(
        err.starts_with("error: the snapshot's header needs at least ")
            && err.contains("than the budget of 10"),
        "{err}"
    );
    let needed = *advised(&err).first().unwrap_or_else(|| panic!("{err}"));
    let o = webfold(&["snapshot", &page, "--max-tokens", &needed.to_string()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(tokens(&stdout(&o)) <= needed, "{}", stdout(&o));
    assert!(
        stdout(&o).starts_with("# Elements: 0 of 152 (truncated: token budget)"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn find_prints_matches_with_refs() {
    let d = dir("find");
    let page = write(&d, "shop.html", SHOP);
    let o = webfold(&["find", &page, "/^(home|deals)$/i"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("# 2 matches for \"/^(home|deals)$/i\""),
        "{text}"
    );
    assert!(
        text.contains("# in: banner [ref=") && text.contains("navigation \"Main\" [ref="),
        "{text}"
    );
    assert!(text.contains("- link \"Deals\" [ref="), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&webfold(&["find", &page, "imprint", "--json"]))).unwrap();
    assert_eq!(json["total"], 1);
    assert_eq!(json["matches"][0]["role"], "link");
    let o = webfold(&["find", &page, "/(/"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with("error: invalid regex /(/:"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stderr(&o).lines().count(), 1);
}
