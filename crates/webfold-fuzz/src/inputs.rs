//! Starting inputs for each target, drawn from the shared corpus at run time
//! (pages, ARIA cases, turndown cases) and from the routes and tools the
//! surfaces answer. The smoke test takes a few of them; `webfold-fuzz-corpus`
//! writes them all out for the cargo-fuzz runs.

use std::collections::BTreeSet;

use webfold_core::Page;
use webfold_core::page::NodeData;

use crate::Target;

/// How much of the corpus to draw on.
#[derive(Clone, Copy, Debug)]
pub enum Amount {
    /// A few inputs per target, for the smoke run of every test run.
    Smoke,
    /// Everything, for the long fuzzing runs.
    Full,
}

impl Amount {
    /// Take every `n`-th item of a list of cases.
    fn every(self, smoke: usize) -> usize {
        match self {
            Amount::Smoke => smoke,
            Amount::Full => 1,
        }
    }
}

/// Bytes of a page a fuzz input keeps: small inputs run fast, and libFuzzer
/// grows them where coverage says it pays.
const PAGE_WINDOW: usize = 4 * 1024;

pub fn for_target(target: Target, amount: Amount) -> Vec<Vec<u8>> {
    match target {
        Target::Page => pages(amount),
        Target::Selector => selectors(amount),
        Target::SnapshotYaml => snapshots(amount),
        Target::Http => requests(amount),
        Target::Mcp => mcp_sessions(amount),
        Target::WsFrame => ws_frames(amount),
    }
}

/// The HTML of ARIA and turndown cases: small, and each about one feature.
fn case_pages(amount: Amount) -> Vec<String> {
    let aria = webfold_corpus::aria_cases();
    let turndown = webfold_corpus::turndown_cases();
    aria.into_iter()
        .step_by(amount.every(40))
        .map(|c| c.html)
        .chain(
            turndown
                .into_iter()
                .step_by(amount.every(20))
                .map(|c| c.html),
        )
        .collect()
}

/// Corpus pages cut to a window from the start and one from `<body`, each
/// under the next plan.
fn pages(amount: Amount) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for p in webfold_corpus::sample(amount.every(100)) {
        let raw = p.raw();
        out.push(raw[..raw.len().min(PAGE_WINDOW)].to_vec());
        if let Some(at) = find(&raw, b"<body") {
            let end = raw.len().min(at + PAGE_WINDOW);
            out.push(raw[at..end].to_vec());
        }
    }
    out.extend(case_pages(amount).into_iter().map(String::into_bytes));
    out.iter()
        .enumerate()
        .map(|(n, page)| crate::page::starting_input(n, page))
        .collect()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Selectors in the syntax the corpus pages use (tags, ids, classes,
/// attributes, combinators), plus the pseudo-classes real agents write.
fn selectors(amount: Amount) -> Vec<Vec<u8>> {
    let mut out: BTreeSet<String> = [
        "*",
        "body > main p:first-child",
        "ul.menu > li.item:nth-child(2n+1 of .item)",
        "a[href^=\"/\" i]:not(.logo)",
        ":is(h1, h2) + p ~ p",
        "li:has(> a[rel~=next])",
        "input:checked, option:checked, :disabled",
        "[lang|=fr] :where(em, strong)",
        "td:nth-last-of-type(-n+2)",
        "svg|a, *|text",
        "#\\31 23",
        ":root:empty",
        "form :required:placeholder-shown",
        "a[",
        "p:nth-child(2n+",
        ":not(",
        "div > > p",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for html in case_pages(amount) {
        let page = Page::parse(&html);
        for node in page.nodes() {
            let NodeData::Element(e) = &node.data else {
                continue;
            };
            let tag = e.local_name();
            out.insert(tag.to_string());
            if let Some(id) = e.id() {
                out.insert(format!("#{id}"));
            }
            if let Some(c) = e.classes().next() {
                out.insert(format!("{tag}.{c}"));
            }
            for a in &e.attrs {
                out.insert(format!("{tag}[{}=\"{}\"]", &*a.name.local, a.value));
            }
        }
    }
    out.into_iter()
        .filter(|s| s.len() <= Target::Selector.max_len())
        .step_by(amount.every(10))
        .map(String::into_bytes)
        .collect()
}

/// Playwright's snapshots of the ARIA cases, in both modes.
fn snapshots(amount: Amount) -> Vec<Vec<u8>> {
    webfold_corpus::aria_cases()
        .into_iter()
        .step_by(amount.every(25))
        .flat_map(|c| [c.aria.into_bytes(), c.ai.into_bytes()])
        .collect()
}

const HOST: &str = "host: 127.0.0.1:3456";

/// Every route with its parameters, a page upload, an MCP exchange, and the
/// requests the guard refuses.
fn requests(amount: Amount) -> Vec<Vec<u8>> {
    let mut out: Vec<String> = Vec::new();
    let views = [
        "chunk?selector=li.product&all=true&max_tokens=60",
        "chunk?id=12",
        "chunk?ref=e3",
        "outline?max_depth=2&exclude=nav&max_tokens=40",
        "markdown?main=false&max_lines=3&start_line=2",
        "snapshot?mode=aria&full_snapshot=true",
        "snapshot?max_elements=2&diff=true",
        "cnt?max_tokens=30&expand=3",
        "find?query=add&lines=1",
    ];
    for v in views {
        out.push(format!(
            "GET /conversations/{{id}}/{v} HTTP/1.1\n{HOST}\n\n"
        ));
    }
    for r in [
        "GET /health",
        "GET /conversations?limit=2",
        "GET /conversations/{id}",
        "DELETE /conversations/{id}",
        "GET /conversations/0123",
        "PUT /health",
        "GET /nowhere",
    ] {
        out.push(format!("{r} HTTP/1.1\n{HOST}\n\n"));
    }
    let json = "content-type: application/json";
    for html in case_pages(amount).into_iter().take(match amount {
        Amount::Smoke => 4,
        Amount::Full => usize::MAX,
    }) {
        let body = serde_json::json!({"html": html, "url": "https://fuzz.example/p"});
        out.push(format!(
            "POST /conversations HTTP/1.1\n{HOST}\n{json}\n\n{body}"
        ));
    }
    out.push(format!(
        "POST /conversations/{{id}}/refresh HTTP/1.1\n{HOST}\n{json}\n\n{{\"html\":\"<p>new</p>\"}}"
    ));
    out.push(format!(
        "POST /conversations HTTP/1.1\n{HOST}\n{json}\n\n{{\"html\": 5}}"
    ));
    out.push(format!(
        "OPTIONS /conversations HTTP/1.1\n{HOST}\norigin: http://127.0.0.1:3456\naccess-control-request-method: POST\n\n"
    ));
    out.push("GET /health HTTP/1.1\nhost: evil.example\n\n".into());
    let init = crate::mcp::HANDSHAKE.lines().next().unwrap_or_default();
    out.push(format!(
        "POST /mcp HTTP/1.1\n{HOST}\n{json}\naccept: application/json, text/event-stream\n\n{init}"
    ));
    out.push(format!(
        "GET /mcp HTTP/1.1\n{HOST}\nmcp-session-id: nope\n\n"
    ));
    out.into_iter().map(String::into_bytes).collect()
}

/// The handshake (first byte even) and calls of every tool on corpus HTML.
fn mcp_sessions(amount: Amount) -> Vec<Vec<u8>> {
    let call = |id: usize, name: &str, args: serde_json::Value| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": args}})
        .to_string()
    };
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut push = |lines: Vec<String>| {
        let mut bytes = vec![0u8];
        for l in lines {
            bytes.extend_from_slice(l.as_bytes());
            bytes.push(b'\n');
        }
        out.push(bytes);
    };
    push(vec![
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.into(),
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#.into(),
    ]);
    for (i, html) in case_pages(amount).into_iter().enumerate() {
        use serde_json::json;
        let h = html.as_str();
        push(vec![
            call(1, "get_dom_outline", json!({"html": h, "max_tokens": 50})),
            call(
                2,
                "get_html_chunk",
                json!({"html": h, "selector": "*", "max_tokens": 40}),
            ),
            call(
                3,
                "page_snapshot",
                json!({"html": h, "session_id": format!("s{i}")}),
            ),
            call(4, "page_find", json!({"html": h, "query": "/./"})),
            call(5, "cnt_view", json!({"html": h, "max_tokens": 30})),
            call(6, "count_tokens", json!({"text": h})),
            call(7, "get_html_chunk", json!({"html": h, "ref": "e2"})),
        ]);
    }
    // Without the handshake: what a confused client sends first.
    out.push(
        [
            b"\x01".as_slice(),
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        ]
        .concat(),
    );
    out.push(b"\x01not json\n".to_vec());
    out
}

/// Every frame a tab sends: selections carrying the case pages, messages to
/// the context they made (and to none), agent choices, pings and hellos.
fn ws_frames(amount: Amount) -> Vec<Vec<u8>> {
    use serde_json::json;
    let mut out: Vec<Vec<u8>> = vec![
        br#"{"type":"ping"}"#.to_vec(),
        br#"{"type":"hello","token":"00"}"#.to_vec(),
        br#"{"type":"select_agent","payload":{"agentId":"fuzz-agent"}}"#.to_vec(),
        br#"{"type":"user_message","payload":{"contextId":"c-1","message":"hi","agentId":"fuzz-agent"}}"#.to_vec(),
    ];
    for (i, html) in case_pages(amount).into_iter().enumerate().step_by(4) {
        let frame = json!({"type": "set_context", "payload": {
            "element": {"tagName": "BUTTON", "id": format!("b{i}"), "classList": ["cta"],
                        "textContent": "Buy", "attributes": {"type": "submit"},
                        "boundingBox": {"x": 1.5, "y": 2, "width": 80, "height": 24}},
            "ancestors": [{"tagName": "FORM", "classList": []}],
            "children": [{"tagName": "SPAN", "classList": [], "textContent": "Buy"}],
            "page": {"url": "http://shop.test/", "title": "Shop"},
            "selector": "#b", "html": html,
            "screenshot": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="}});
        out.push(frame.to_string().into_bytes());
    }
    out
}
