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

/// The view commands, each with the arguments it needs besides INPUT.
const VIEWS: &[&[&str]] = &[
    &["outline"],
    &["chunk", "--selector", "p"],
    &["snapshot"],
    &["find", "anything"],
    &["markdown"],
    &["cnt"],
];

fn view_of(view: &[&str], input: &str) -> Vec<String> {
    let mut args = vec![view[0].to_string(), input.to_string()];
    args.extend(view[1..].iter().map(|s| s.to_string()));
    args
}

#[test]
fn empty_input_is_an_error_not_an_empty_view() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-input");
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.html");
    std::fs::write(&empty, b"").unwrap();
    let blank = dir.join("blank.html");
    std::fs::write(&blank, b"\xef\xbb\xbf \n\t\n").unwrap();
    for view in VIEWS {
        for (input, stdin) in [
            ("-", Some(&b""[..])),
            (empty.to_str().unwrap(), None),
            (blank.to_str().unwrap(), None),
        ] {
            let args = view_of(view, input);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, out, err) = webfold(&args, stdin);
            assert_eq!(code, 1, "{args:?}: {out}{err}");
            assert!(out.is_empty(), "{args:?}: {out}");
            assert_eq!(
                err, "error: empty input: there is no page to read; pass the HTML of a web page\n",
                "{args:?}"
            );
        }
    }
    // Counting tokens is not a view: nothing counts as 0.
    let (code, out, _) = webfold(&["tokens", "-"], Some(b""));
    assert_eq!((code, out.trim()), (0, "0"));
}

#[test]
fn binary_files_are_not_html() {
    let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89";
    let pdf = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n";
    let gzip = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcb\x48\xcd\xc9\xc9\x07\x00";
    // No known format: bytes with control characters all through them.
    let noise: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    for view in VIEWS {
        for (bytes, says) in [
            (&png[..], "not HTML (a PNG image): "),
            (&pdf[..], "not HTML (a PDF document): "),
            (&gzip[..], "not HTML (gzip-compressed data): "),
            (&noise[..], "not HTML (binary data: "),
        ] {
            let args = view_of(view, "-");
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, out, err) = webfold(&args, Some(bytes));
            assert_eq!(code, 1, "{args:?}: {out}{err}");
            assert!(out.is_empty(), "{args:?}: {out}");
            assert!(
                err.starts_with(&format!("error: {says}")),
                "{args:?}: {err}"
            );
            assert!(err.ends_with("pass the HTML of a web page\n"), "{err}");
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }
}

#[test]
fn pages_in_other_encodings_are_still_pages() {
    let utf16: Vec<u8> = "\u{feff}<p>Grüße aus Köln</p>"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    for bytes in [
        &utf16[..],
        b"<meta charset=windows-1251><p>\xcf\xf0\xe8\xe2\xe5\xf2</p>",
        b"<meta charset=shift_jis><p>\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd</p>",
    ] {
        let (code, out, err) = webfold(&["markdown", "-", "--no-main"], Some(bytes));
        assert_eq!(code, 0, "{err}");
        assert!(
            ["Grüße aus Köln", "Привет", "こんにちは"]
                .iter()
                .any(|t| out.contains(t)),
            "{out}"
        );
    }
}
