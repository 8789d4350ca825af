//! The extension's manifest carries the daemon's public key, so the id the
//! browser gives the extension is the one origin the daemon admits.

use std::path::PathBuf;

use webfold_daemon::auth::{EXTENSION_KEY, is_extension_id};

#[test]
fn the_manifest_key_is_the_daemons_extension_key() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../extension/manifest.json");
    let text = std::fs::read_to_string(&path).expect("extension/manifest.json");
    let manifest: serde_json::Value = serde_json::from_str(&text).expect("the manifest is JSON");
    assert_eq!(
        manifest["key"].as_str(),
        Some(EXTENSION_KEY),
        "extension/manifest.json's key must be webfold_daemon::auth::EXTENSION_KEY: the daemon admits only the id that key gives"
    );
    assert_eq!(manifest["manifest_version"], 3);
    assert!(is_extension_id(webfold_daemon::auth::EXTENSION_ID));
}
