//! `webfold mcp` with the browser tools, over real stdio: `--viewport`
//! reaches the browser, Chromium (with every helper process it started) is
//! gone once the server exits, and a crashed or hung Chromium is reported
//! and replaced by the next call.

use std::collections::HashSet;
use std::process::{Child, Command, Stdio};
use webfold_testkit::ref_of;

use serde_json::json;
use webfold_testkit::mcp::{self, McpClient, page_text};

use webfold_testkit::http::serve_page;

const PAGE: &str = r#"<!doctype html><html><head><title>Stdio fixture</title></head><body>
<button onclick="this.textContent = 'Clicked'">Press me</button></body></html>"#;

/// A page whose button's handler never returns: its renderer hangs.
const FROZEN: &str = r#"<!doctype html><html><head><title>Frozen fixture</title></head><body>
<button onclick="for (;;) {}">Freeze</button></body></html>"#;

/// Waits for the server to exit; a server that hangs on the way out is
/// killed after a minute so the test fails instead of hanging.
fn wait_for_exit(child: &mut Child) -> std::process::ExitStatus {
    let pid = child.id().to_string();
    let (done, watchdog) = std::sync::mpsc::channel::<()>();
    let guard = std::thread::spawn(move || {
        if watchdog
            .recv_timeout(std::time::Duration::from_secs(60))
            .is_err()
        {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
        }
    });
    let status = child.wait().expect("server exits");
    let _ = done.send(());
    let _ = guard.join();
    status
}

/// Every process below `root`, with its start time (so a reused pid does
/// not count as the same process).
fn descendants(root: u32) -> HashSet<(u32, u64)> {
    let mut parent_of = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some((ppid, start)) = stat(pid) {
            parent_of.push((pid, ppid, start));
        }
    }
    let mut found = HashSet::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for &(pid, ppid, start) in &parent_of {
            if ppid == p && found.insert((pid, start)) {
                frontier.push(pid);
            }
        }
    }
    found
}

/// Parent pid and start time from /proc/PID/stat (fields 4 and 22).
fn stat(pid: u32) -> Option<(u32, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces; fields restart after its ')'.
    let rest = &text[text.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some((fields.get(1)?.parse().ok()?, fields.get(19)?.parse().ok()?))
}

/// The processes of `procs` still running once the browser process they
/// belong to has had `within` to take them down: Chromium's helpers
/// (zygote, renderers) end after it, each on its own, so a loaded machine
/// may show one for a moment after the server has exited.
fn left_after(procs: &HashSet<(u32, u64)>, within: std::time::Duration) -> Vec<(u32, u64)> {
    let deadline = std::time::Instant::now() + within;
    loop {
        let left = alive(procs);
        if left.is_empty() || std::time::Instant::now() >= deadline {
            return left;
        }
        std::thread::yield_now();
    }
}

fn alive(procs: &HashSet<(u32, u64)>) -> Vec<(u32, u64)> {
    procs
        .iter()
        .filter(|&&(pid, start)| {
            // A zombie still has a stat line until reaped; it is no longer running.
            let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|t| {
                    t.rsplit(')')
                        .next()
                        .unwrap_or("")
                        .trim_start()
                        .starts_with('Z')
                })
                .unwrap_or(true);
            stat(pid).is_some_and(|(_, s)| s == start) && !zombie
        })
        .copied()
        .collect()
}

/// Starts `webfold mcp` and completes the MCP handshake.
fn start(args: &[&str]) -> (Child, McpClient) {
    let (child, client, init) = mcp::start(
        Command::new(env!("CARGO_BIN_EXE_webfold"))
            .arg("mcp")
            .args(args)
            .stderr(Stdio::null()),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "webfold", "{init}");
    (child, client)
}

#[test]
fn browser_tools_over_stdio_use_the_viewport_and_stop_chromium_on_exit() {
    let url = serve_page(PAGE);
    let (mut child, mut client) = start(&["--no-db", "--viewport", "800x600"]);

    // No browser runs until a browser tool needs one.
    assert!(descendants(child.id()).is_empty());

    let r = client.call_ok("browser_navigate", json!({"url": url}));
    let button = ref_of(&page_text(&r), "button \"Press me\"");
    let r = client.call_ok("browser_click", json!({"ref": button}));
    assert!(page_text(&r).contains("button \"Clicked\""), "{r}");
    let r = client.call_ok("browser_screenshot", json!({}));
    assert_eq!(r["structuredContent"]["inline_width"], 800, "{r}");
    assert_eq!(r["structuredContent"]["inline_height"], 600, "{r}");

    let chromium = descendants(child.id());
    assert!(!chromium.is_empty(), "Chromium runs under the server");

    // The client goes away: the server exits and takes Chromium with it.
    client.close();
    let status = wait_for_exit(&mut child);
    assert!(status.success(), "{status:?}");
    let left = left_after(&chromium, std::time::Duration::from_secs(10));
    assert!(left.is_empty(), "still running after exit: {left:?}");
}

#[test]
fn sigterm_stops_the_server_and_chromium() {
    let url = serve_page(PAGE);
    let (mut child, mut client) = start(&["--no-db"]);
    client.call_ok("browser_navigate", json!({"url": url}));
    let chromium = descendants(child.id());
    assert!(!chromium.is_empty(), "Chromium runs under the server");

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    let status = wait_for_exit(&mut child);
    assert!(status.success(), "a clean exit on SIGTERM: {status:?}");
    let left = left_after(&chromium, std::time::Duration::from_secs(10));
    assert!(left.is_empty(), "still running after SIGTERM: {left:?}");
}

/// Waits (ten seconds at most) until none of `procs` runs.
fn wait_gone(procs: &HashSet<(u32, u64)>, what: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !alive(procs).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: {:?}",
            alive(procs)
        );
        std::thread::yield_now();
    }
}

/// The next browser call launches a new Chromium (none of `old`) and works;
/// then the server exits cleanly.
fn next_call_starts_a_new_browser(
    mut child: Child,
    mut client: McpClient,
    url: &str,
    old: &HashSet<(u32, u64)>,
) {
    let r = client.call_ok("browser_navigate", json!({"url": url}));
    assert!(page_text(&r).contains("button \"Press me\""), "{r}");
    let new = descendants(child.id());
    assert!(!new.is_empty() && new.is_disjoint(old));
    client.close();
    assert!(wait_for_exit(&mut child).success());
}

#[test]
fn a_crashed_chromium_is_reported_and_the_next_call_starts_a_new_one() {
    let url = serve_page(PAGE);
    let (child, mut client) = start(&["--no-db"]);
    client.call_ok("browser_navigate", json!({"url": url}));
    let first = descendants(child.id());
    assert!(!first.is_empty(), "Chromium runs under the server");
    for (pid, _) in &first {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    wait_gone(&first, "Chromium outlived kill -9");
    let r = client.request(
        "tools/call",
        json!({"name": "browser_snapshot", "arguments": {}}),
    )["result"]
        .clone();
    assert_eq!(r["isError"], true, "{r}");
    let text = r["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("the browser went away"), "{text}");
    next_call_starts_a_new_browser(child, client, &url, &first);
}

#[test]
fn a_hung_page_is_reported_within_the_limit_and_the_next_call_starts_a_new_browser() {
    let url = serve_page(PAGE);
    let frozen = serve_page(FROZEN);
    // Pages may take 5 s to load, so a call is stopped after 10 s.
    let (child, mut client) = start(&["--no-db", "--browser-timeout", "5"]);
    let r = client.call_ok("browser_navigate", json!({"url": frozen}));
    let button = ref_of(&page_text(&r), "button \"Freeze\"");
    let first = descendants(child.id());
    assert!(!first.is_empty(), "Chromium runs under the server");

    // The click's handler never returns: the renderer hangs mid-call.
    let started = std::time::Instant::now();
    let r = client.request(
        "tools/call",
        json!({"name": "browser_click", "arguments": {"ref": button}}),
    )["result"]
        .clone();
    let took = started.elapsed();
    assert_eq!(r["isError"], true, "{r}");
    let text = r["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("the browser did not answer within 10 s")
            && text.contains("a page script stuck in a loop")
            && text.contains("call again and a new one starts"),
        "{text}"
    );
    // The limit, then at most the few seconds closing a browser may take.
    assert!(
        took < std::time::Duration::from_secs(30),
        "answered after {took:?}"
    );
    // The hung browser is closed, not left behind.
    wait_gone(&first, "the hung Chromium still runs");
    next_call_starts_a_new_browser(child, client, &url, &first);
}
