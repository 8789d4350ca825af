//! The WebSocket protocol's JSON Schema is checked in; this keeps it current.

use std::path::PathBuf;

#[test]
fn checked_in_protocol_schema_is_current() {
    let generated =
        serde_json::to_string_pretty(&webfold_daemon::protocol::json_schema()).unwrap() + "\n";
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schema/daemon-protocol.schema.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "schema/daemon-protocol.schema.json is stale: run UPDATE_GOLDEN=1 cargo test -p webfold-daemon --test protocol_schema"
    );
}
