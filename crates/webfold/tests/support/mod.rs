//! Helpers shared by the CLI tests: run the real binary, read its output,
//! write a page file under the target directory.

#![allow(dead_code)] // each test binary uses its own subset

pub mod daemon;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn webfold(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_webfold"))
        .args(args)
        .output()
        .expect("run webfold")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A page file for test binary `group`, in the target directory.
pub fn page_file(group: &str, name: &str, html: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(group);
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let path = dir.join(name);
    // Tests running at once write the same page: each writes a file of its
    // own and renames it in place, so none reads a page half written.
    let tmp = dir.join(format!("{name}.{:?}.tmp", std::thread::current().id()));
    std::fs::write(&tmp, html).expect("write page");
    std::fs::rename(&tmp, &path).expect("place page");
    path
}

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The third-party MCP clients (Python `mcp` SDK, MCP Inspector), installed
/// under target/mcp-clients by `scripts/install-mcp-clients` when missing.
pub fn mcp_clients() -> PathBuf {
    let dir = repo().join("target/mcp-clients");
    let python = dir.join("venv/bin/python");
    let inspector = dir.join("inspector/node_modules/.bin/mcp-inspector");
    if !python.exists() || !inspector.exists() {
        let status = Command::new(repo().join("scripts/install-mcp-clients")).status();
        assert!(
            matches!(status, Ok(s) if s.success()),
            "could not install the MCP test clients (Python `mcp` from PyPI, `@modelcontextprotocol/inspector@0.15` from npm): \
             run scripts/install-mcp-clients and check that python3 (with venv), pip, node and npm work and the registries are reachable"
        );
    }
    dir
}

/// The exact tokens of `text` as budgets count them.
pub fn tokens(text: &str) -> usize {
    webfold_core::tokens::count(text, webfold_core::tokens::Encoding::O200kBase)
}

/// Every number that follows `--max-tokens ` in `text`: the budgets it advises.
pub fn advised(text: &str) -> Vec<usize> {
    text.split("--max-tokens ")
        .skip(1)
        .filter_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}
