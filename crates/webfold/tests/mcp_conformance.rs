//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned with its Node 22 in tools/mcp-conformance) against `/mcp` of a real
//! `webfold serve`. `scripts/install-conformance` installs it from the npm
//! registry; this test runs the script, which does nothing once installed.
//!
//! The suite itself fails on a scenario that fails and is not in
//! tools/mcp-conformance/expected-failures.yml, and on one listed there that
//! passes, so its exit status is the verdict.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;
use webfold_testkit::{KillOnDrop, scratch_dir};

const BIN: &str = env!("CARGO_BIN_EXE_webfold");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch() -> PathBuf {
    scratch_dir(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-conformance"),
        "run",
    )
}

#[test]
fn official_conformance_suite_passes_on_streamable_http() {
    let tools = repo().join("tools/mcp-conformance");
    let installed = Command::new(repo().join("scripts/install-conformance")).status();
    assert!(
        matches!(installed, Ok(s) if s.success()),
        "could not install the MCP conformance suite: run scripts/install-conformance and check that node and npm work and the npm registry is reachable"
    );

    let dir = scratch();
    let mut child = Command::new(BIN)
        .args(["serve", "--port", "0", "--json", "--db"])
        .arg(dir.join("webfold.db"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let server = KillOnDrop(child);
    let info: Value = serde_json::from_str(&line).unwrap();
    let mcp = info["mcp"].as_str().unwrap().to_string();

    let results = dir.join("results");
    let out = Command::new(tools.join("node_modules/.bin/node"))
        .arg(tools.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"))
        .args([
            "server",
            "--url",
            &mcp,
            "--suite",
            "all",
            "--expected-failures",
        ])
        .arg(tools.join("expected-failures.yml"))
        .arg("--output-dir")
        .arg(&results)
        .output()
        .unwrap();
    drop(server);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let summary = stdout
        .split_once("=== SUMMARY ===")
        .map_or(stdout.as_ref(), |(_, s)| s);
    println!("{summary}");
    assert!(
        out.status.success(),
        "conformance suite failed:\n{summary}\n{stderr}"
    );

    // The scenario the server's Origin check was changed for passes both ways:
    // a rebinding Host/Origin is refused, our own origin is accepted.
    let rebinding = std::fs::read_dir(&results)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("dns-rebinding-protection"))
        .expect("dns-rebinding-protection ran");
    let checks: Value =
        serde_json::from_str(&std::fs::read_to_string(rebinding.join("checks.json")).unwrap())
            .unwrap();
    let checks = checks.as_array().unwrap();
    assert_eq!(checks.len(), 2, "{checks:?}");
    for c in checks {
        assert_eq!(c["status"], "SUCCESS", "{c}");
    }
}
