//! The fuzz targets' smoke run: each target's checks over starting inputs
//! from the shared corpus plus a fixed set of deterministic mutations. The
//! long coverage-guided runs are cargo-fuzz's (see fuzz/README.md).

use webfold_fuzz::Target;
use webfold_fuzz::inputs::{self, Amount};
use webfold_fuzz::mutate;

fn smoke(target: Target, mutations: usize) {
    let starts = inputs::for_target(target, Amount::Smoke);
    assert!(!starts.is_empty(), "{}: no starting inputs", target.name());
    let cases = mutate::cases(
        &starts,
        mutations,
        target.dictionary(),
        target.max_len(),
        0x5EED_F00D ^ target.name().len() as u64,
    );
    for (i, case) in cases.iter().enumerate() {
        // Says which input broke a check before the check's own message.
        let guard = Reporter(target, i, case);
        target.check(case);
        std::mem::forget(guard);
    }
}

/// Prints the failing input when a check panics (its drop runs while unwinding).
struct Reporter<'a>(Target, usize, &'a [u8]);

impl Drop for Reporter<'_> {
    fn drop(&mut self) {
        eprintln!(
            "{} smoke case {} failed; input ({} bytes): {:?}",
            self.0.name(),
            self.1,
            self.2.len(),
            String::from_utf8_lossy(self.2)
        );
    }
}

#[test]
fn page() {
    smoke(Target::Page, 300);
}

#[test]
fn selector() {
    smoke(Target::Selector, 10_000);
}

#[test]
fn snapshot_yaml() {
    smoke(Target::SnapshotYaml, 20_000);
}

#[test]
fn http() {
    smoke(Target::Http, 3000);
}

#[test]
fn mcp() {
    smoke(Target::Mcp, 1500);
}

#[test]
fn ws_frame() {
    smoke(Target::WsFrame, 3000);
}
