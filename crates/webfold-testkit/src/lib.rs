//! What webfold's tests share, once: a static page server on loopback
//! ([`http`]), a free port and scratch directories, Debian's Chromium
//! ([`chromium`]), a throwaway PostgreSQL cluster ([`pg`]) and an MCP client
//! over stdio ([`mcp`]).
//!
//! Dev-only: crates list it under `[dev-dependencies]`, never as a normal
//! dependency.

pub mod http;
pub mod markdown;
pub mod mcp;
pub mod pg;

use std::path::{Path, PathBuf};
use std::process::Child;

pub use pg::{free_port, unique_tag};

/// Debian's Chromium: `CHROMIUM`, else `/usr/bin/chromium`; panics with the
/// install advice when it is missing.
pub fn chromium() -> PathBuf {
    let path = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        path.exists(),
        "{} is missing: install Debian's Chromium (apt-get install chromium; scripts/test does it) or set CHROMIUM",
        path.display()
    );
    path
}

/// A fresh directory `parent/name-<random>`, created; it stays after the test
/// (under the target directory, for a look after a failure).
pub fn scratch_dir(parent: impl AsRef<Path>, name: &str) -> PathBuf {
    let dir = parent.as_ref().join(format!("{name}-{}", unique_tag()));
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// `webfold-<name>-<pid>` in the system's temp dir, emptied and created;
/// its canonical path. The same name gives the same directory within a run.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webfold-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir.canonicalize().expect("a canonical scratch path")
}

/// A [`temp_dir`] removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        Scratch(temp_dir(name))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A child process killed (and reaped) on drop, so a failing test leaves
/// no server behind.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The ref on the first line of a snapshot containing `needle`
/// (`- button "Press me" [ref=e2]` → `e2`); a missing line fails the test
/// and shows the snapshot.
pub fn ref_of(snapshot: &str, needle: &str) -> String {
    snapshot
        .lines()
        .find(|l| l.contains(needle))
        .and_then(|line| line.split("[ref=").nth(1))
        .and_then(|r| r.split(']').next())
        .unwrap_or_else(|| panic!("no ref on a line with {needle} in\n{snapshot}"))
        .to_string()
}

/// A conversation's messages (`[{"role", "content", …}]`, as the daemon
/// gives a tab's history) as `role: content` lines, to compare at a glance.
pub fn conversation(messages: &serde_json::Value) -> Vec<String> {
    let text = |m: &serde_json::Value, k: &str| m[k].as_str().unwrap_or_default().to_string();
    messages
        .as_array()
        .map(|ms| {
            ms.iter()
                .map(|m| format!("{}: {}", text(m, "role"), text(m, "content")))
                .collect()
        })
        .unwrap_or_default()
}
