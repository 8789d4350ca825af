//! What is generated from the protocol's types is checked in: the JSON
//! Schema (for any client) and the extension's TypeScript declarations.
//! These keep both current.

use std::path::PathBuf;

fn check(relative: &str, generated: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{relative} is stale: run UPDATE_GOLDEN=1 cargo test -p webfold-protocol --test generated"
    );
}

#[test]
fn checked_in_protocol_schema_is_current() {
    let schema = serde_json::to_string_pretty(&webfold_protocol::ws::json_schema()).unwrap();
    check("schema/daemon-protocol.schema.json", &(schema + "\n"));
}

#[test]
fn extension_protocol_types_are_current() {
    check(
        "extension/src/protocol.gen.d.ts",
        &webfold_protocol::ts::declarations(),
    );
}
