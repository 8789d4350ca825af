//! `webfold batch` through the real binary on corpus pages: a folder and a
//! WARC of the same pages give the same lines, in input order whatever the
//! jobs; each line's Markdown is the `markdown` command's; bad inputs are
//! named and skipped; a closed pipe ends the run quietly.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_webfold");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webfold-cli-batch-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn response(uri: &str, body: &[u8]) -> Vec<u8> {
    let mut block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec();
    block.extend_from_slice(body);
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(&block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// Some 20 corpus pages written as `pages/NNN.html`, and a WARC (gzip per
/// record) holding the same pages under their files' URLs.
fn corpus_inputs(dir: &Path) -> (PathBuf, PathBuf, Vec<String>) {
    let folder = dir.join("pages");
    std::fs::create_dir_all(&folder).unwrap();
    let mut warc = Vec::new();
    let mut urls = Vec::new();
    for (i, page) in webfold_corpus::sample(45).iter().enumerate() {
        let path = folder.join(format!("{i:03}.html"));
        let raw = page.raw();
        std::fs::write(&path, &raw).unwrap();
        let url = format!("file://{}", std::fs::canonicalize(&path).unwrap().display());
        warc.extend(gz(&response(&url, &raw)));
        urls.push(url);
    }
    let warc_path = dir.join("pages.warc.gz");
    std::fs::write(&warc_path, warc).unwrap();
    (folder, warc_path, urls)
}

fn batch(args: &[&str]) -> Output {
    Command::new(BIN).arg("batch").args(args).output().unwrap()
}

fn lines(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_folder_and_a_warc_of_the_same_pages_give_the_same_lines() {
    let dir = scratch("same");
    let (folder, warc, urls) = corpus_inputs(&dir);
    let from_folder = batch(&[folder.to_str().unwrap(), "--jobs", "2"]);
    let from_warc = batch(&[warc.to_str().unwrap(), "--jobs", "3"]);
    let one_job = batch(&[warc.to_str().unwrap(), "--jobs", "1"]);
    assert!(
        from_folder.status.success(),
        "{}",
        String::from_utf8_lossy(&from_folder.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&from_folder.stdout),
        String::from_utf8_lossy(&from_warc.stdout)
    );
    assert_eq!(from_warc.stdout, one_job.stdout, "lines depend on --jobs");
    let got = lines(&from_warc);
    let got_urls: Vec<&str> = got.iter().map(|l| l["url"].as_str().unwrap()).collect();
    assert_eq!(got_urls, urls, "lines are not in input order");
    let stderr = String::from_utf8_lossy(&from_warc.stderr);
    assert!(
        stderr.starts_with(&format!(
            "batch: {} pages written, 0 skipped, in ",
            urls.len()
        )),
        "{stderr}"
    );
    for l in &got {
        let keys: Vec<&str> = l.as_object().unwrap().keys().map(String::as_str).collect();
        let mut fields = webfold_batch::Folded::FIELDS;
        fields.sort();
        assert_eq!(keys, fields);
        let markdown = l["markdown"].as_str().unwrap();
        let tokens = webfold_core::tokens::count_default(markdown);
        assert_eq!(l["tokens"].as_u64(), Some(tokens as u64));
        assert!(l["main_chars"].as_u64() <= l["page_chars"].as_u64(), "{l}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn each_line_holds_what_the_markdown_command_prints_whole() {
    let dir = scratch("markdown");
    let (folder, _, urls) = corpus_inputs(&dir);
    let got = lines(&batch(&[folder.to_str().unwrap()]));
    for (i, (line, url)) in got.iter().zip(&urls).enumerate().step_by(4) {
        let path = folder.join(format!("{i:03}.html"));
        let printed = Command::new(BIN)
            .args(["markdown", path.to_str().unwrap(), "--base-url", url])
            .args(["--max-lines", "0", "--max-tokens", "100000000"])
            .output()
            .unwrap();
        let printed = String::from_utf8(printed.stdout).unwrap();
        let markdown = line["markdown"].as_str().unwrap();
        // The command cuts lines over 2,000 characters; the batch never does.
        if markdown.lines().all(|l| l.chars().count() <= 2000) {
            // The command's header (title, byline · date, or the note that
            // there was no article) is the line's fields instead.
            let header = printed
                .trim_end()
                .strip_suffix(markdown.trim_end())
                .unwrap_or_else(|| panic!("{url}: not the command's Markdown"));
            let lines = header.lines().filter(|l| !l.trim().is_empty()).count();
            assert!(lines <= 3, "{url}: {header:?} is more than a header");
            if let Some(title) = header.strip_prefix("# ") {
                assert!(title.starts_with(line["title"].as_str().unwrap()), "{url}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let dir = scratch("pipe");
    let (_, warc, _) = corpus_inputs(&dir);
    // The same WARC many times over: more than a pipe holds.
    let args: Vec<String> = std::iter::repeat_n(warc.display().to_string(), 20).collect();
    let mut child = Command::new(BIN)
        .arg("batch")
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("{\"url\":"), "{first}");
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_inputs_are_named_and_skipped() {
    let dir = scratch("bad");
    let (_, warc, urls) = corpus_inputs(&dir);
    let bytes = std::fs::read(&warc).unwrap();
    let cut = dir.join("cut.warc.gz");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let png = dir.join("logo.html");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let missing = dir.join("missing.warc");
    let not_warc = dir.join("notes.warc");
    std::fs::write(&not_warc, "<p>a page, not a WARC</p>").unwrap();
    let out = batch(&[
        cut.to_str().unwrap(),
        missing.to_str().unwrap(),
        not_warc.to_str().unwrap(),
        png.to_str().unwrap(),
        warc.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let got = lines(&out);
    assert!(
        got.len() > urls.len() && got.len() < 2 * urls.len(),
        "{}",
        got.len()
    );
    assert!(
        stderr.contains(&format!(
            "{}: stopped reading at the gzip member at byte",
            cut.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("truncated; going on with the next input"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "cannot read '{}': no such file or folder",
            missing.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "cannot read '{}': not a WARC file",
            not_warc.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("skipped {}: not HTML (", png.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 skipped") && stderr.contains("2 inputs could not be read"),
        "{stderr}"
    );

    let out = batch(&[missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error: no input could be read"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn output_goes_to_a_file_when_asked() {
    let dir = scratch("output");
    let (folder, _, urls) = corpus_inputs(&dir);
    let file = dir.join("out.jsonl");
    let out = batch(&[folder.to_str().unwrap(), "--output", file.to_str().unwrap()]);
    assert!(out.status.success() && out.stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().lines().count(),
        urls.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
