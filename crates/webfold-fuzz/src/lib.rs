//! webfold-fuzz: the invariants every input must keep, one check per fuzz
//! target, written once in stable Rust.
//!
//! The cargo-fuzz targets in `fuzz/` (nightly, coverage-guided) and the smoke
//! test in `tests/smoke.rs` (stable, part of `cargo test --workspace`) call
//! the same [`Target::check`]: the fuzzers explore, the smoke test replays
//! corpus-drawn starting inputs ([`inputs`]) plus a fixed number of
//! deterministic mutations ([`mutate`]) on every test run.
//!
//! A check panics when an invariant breaks: a panic is how both libFuzzer and
//! the test harness report a finding. Everything the checks call must instead
//! answer with a value or an error, whatever the input.

pub mod handles;
pub mod http;
pub mod inputs;
pub mod mcp;
pub mod mutate;
pub mod page;
pub mod panics;
pub mod selector;
pub mod ws;
pub mod yaml;

/// The fuzz targets. Each has a cargo-fuzz target of the same name in
/// `fuzz/fuzz_targets/`.
///
/// A new target needs: a check module here, a file in `fuzz/fuzz_targets/`
/// and a `[[bin]]` in `fuzz/Cargo.toml`, starting inputs in
/// [`inputs::for_target`], its name in `scripts/fuzz`, a smoke test and a row
/// in `fuzz/README.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Bytes → decode → parse → every view at several budgets.
    Page,
    /// A CSS selector against a fixed page.
    Selector,
    /// The snapshot YAML reader and the views built on its tree.
    SnapshotYaml,
    /// One HTTP request to the bridge app, in-process.
    Http,
    /// A JSON-RPC byte stream to the MCP server, in-process.
    Mcp,
    /// One WebSocket text frame from a paired tab to the daemon, in-process.
    WsFrame,
}

impl Target {
    pub const ALL: [Target; 6] = [
        Target::Page,
        Target::Selector,
        Target::SnapshotYaml,
        Target::Http,
        Target::Mcp,
        Target::WsFrame,
    ];

    /// The cargo-fuzz target's name.
    pub fn name(self) -> &'static str {
        match self {
            Target::Page => "page",
            Target::Selector => "selector",
            Target::SnapshotYaml => "snapshot_yaml",
            Target::Http => "http",
            Target::Mcp => "mcp",
            Target::WsFrame => "ws_frame",
        }
    }

    /// Runs the target's invariant checks on one input.
    pub fn check(self, input: &[u8]) {
        match self {
            Target::Page => page::check(input),
            Target::Selector => selector::check(input),
            Target::SnapshotYaml => yaml::check(input),
            Target::Http => http::check(input),
            Target::Mcp => mcp::check(input),
            Target::WsFrame => ws::check(input),
        }
    }

    /// Tokens worth splicing into this target's inputs when mutating.
    pub fn dictionary(self) -> &'static [&'static [u8]] {
        match self {
            Target::Page => mutate::HTML_TOKENS,
            Target::Selector => mutate::SELECTOR_TOKENS,
            Target::SnapshotYaml => mutate::YAML_TOKENS,
            Target::Http => mutate::HTTP_TOKENS,
            Target::Mcp | Target::WsFrame => mutate::JSON_TOKENS,
        }
    }

    /// The longest input the target is fuzzed with (libFuzzer's `-max_len`).
    pub fn max_len(self) -> usize {
        match self {
            Target::Page => 8 * 1024,
            Target::Selector => 512,
            Target::SnapshotYaml => 8 * 1024,
            Target::Http => 4 * 1024,
            Target::Mcp => 8 * 1024,
            Target::WsFrame => 16 * 1024,
        }
    }
}
