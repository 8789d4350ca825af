//! INPUT handling and exit codes, through the real binary.

use std::io::Write;
use std::process::{Command, Stdio};

fn webfold(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_webfold"))
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().expect("stdin");
        // A usage error exits before reading stdin: the pipe may be closed.
        if let Err(e) = pipe.write_all(bytes) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
        }
    }
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn tokens_counts_stdin_exactly() {
    let (code, out, _) = webfold(&["tokens", "-"], Some(b"hello world"));
    assert_eq!(code, 0);
    assert_eq!(out.trim(), "2");
    let (code, out, _) = webfold(
        &["tokens", "-", "--json", "--encoding", "cl100k_base"],
        Some(b"hello world"),
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["tokens"], 2);
    assert_eq!(v["encoding"], "cl100k_base");
}

#[test]
fn missing_file_is_a_one_line_user_error() {
    let (code, out, err) = webfold(&["tokens", "no/such/page.html"], None);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no/such/page.html") && err.contains("stdin"),
        "{err}"
    );
}

#[test]
fn directory_is_refused_clearly() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let (code, _, err) = webfold(&["tokens", dir], None);
    assert_eq!(code, 1);
    assert!(err.contains("directory"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, err) = webfold(&["tokens"], None);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = webfold(&["tokens", "-", "--encoding", "gpt2"], Some(b"x"));
    assert_eq!(code, 2);
    assert!(err.contains("o200k_base"), "{err}");
    let (code, _, _) = webfold(&["no-such-command"], None);
    assert_eq!(code, 2);
}

#[test]
fn non_utf8_bytes_are_decoded_not_rejected() {
    // windows-1252 "café" declared by <meta>, and raw invalid bytes.
    let (code, out, _) = webfold(
        &["tokens", "-", "--json"],
        Some(b"<meta charset=windows-1252><p>caf\xe9 \xff\xfe</p>"),
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["tokens"].as_u64().unwrap() > 5);
}
