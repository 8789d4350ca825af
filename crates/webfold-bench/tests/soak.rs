//! `webfold-bench soak` for two seconds: the real server answers mixed bridge
//! and MCP load without errors, and every line reports sane figures.

use std::process::Command;

use serde_json::Value;

#[test]
fn a_short_soak_reports_requests_memory_and_fds() {
    let out = Command::new(env!("CARGO_BIN_EXE_webfold-bench"))
        .args([
            "soak",
            "--seconds",
            "2",
            "--interval",
            "0.5",
            "--clients",
            "2",
            "--json",
        ])
        .output()
        .expect("run webfold-bench soak");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let (verdict, samples) = lines.split_last().expect("samples and a verdict");
    assert!(samples.len() >= 3, "{stdout}");
    let mut requests = 0;
    for s in samples {
        let rss = s["rss_kb"].as_u64().unwrap();
        let fds = s["fds"].as_u64().unwrap();
        // A process that parses real pages holds megabytes, and at least
        // stdio, the listener and the database.
        assert!((1024..16 * 1024 * 1024).contains(&rss), "{s}");
        assert!((4..10_000).contains(&fds), "{s}");
        let now = s["requests"].as_u64().unwrap();
        assert!(now >= requests, "requests only grow: {stdout}");
        requests = now;
        assert_eq!(s["errors"], 0, "{stdout}");
    }
    assert!(requests > 0, "{stdout}");
    assert_eq!(verdict["requests"].as_u64(), Some(requests), "{verdict}");
    assert_eq!(verdict["errors"], 0, "{verdict}");
    assert_eq!(verdict["first_errors"], serde_json::json!([]), "{verdict}");
    assert!(verdict["flat"].is_boolean(), "{verdict}");
    assert!(verdict["rss_growth_percent"].is_number(), "{verdict}");
    assert!(verdict["fds_growth_percent"].is_number(), "{verdict}");
}
