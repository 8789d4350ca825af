//! The WARC reader on records built here: plain, gzip per record and gzip
//! over the whole file; records that are not pages; a broken record in the
//! middle; files cut short.

use std::io::Write;

use webfold_batch::source::{Item, Note, items};
use webfold_batch::warc::{Record, WarcError, WarcReader};

fn record(kind: &str, uri: &str, content_type: &str, block: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\n\
         WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000000>\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn response(uri: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut block = format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n\r\n").into_bytes();
    block.extend_from_slice(body);
    record(
        "response",
        uri,
        "application/http; msgtype=response",
        &block,
    )
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

const ARTICLE: &str = "<html lang=en><title>A</title><body><article><h1>A</h1><p>Some words in a paragraph that is long enough to be the article of this page, and then some more words.</p></article></body></html>";

/// A small crawl: one record of each kind.
fn crawl() -> Vec<Vec<u8>> {
    vec![
        record(
            "warcinfo",
            "",
            "application/warc-fields",
            b"software: test\r\n",
        ),
        record(
            "request",
            "https://a.example/",
            "application/http; msgtype=request",
            b"GET / HTTP/1.1\r\nHost: a.example\r\n\r\n",
        ),
        response(
            "https://a.example/",
            "text/html; charset=utf-8",
            ARTICLE.as_bytes(),
        ),
        record(
            "metadata",
            "https://a.example/",
            "application/warc-fields",
            b"fetchTimeMs: 12\r\n",
        ),
        response(
            "https://a.example/logo.png",
            "image/png",
            b"\x89PNG\r\n\x1a\n\0\0\0",
        ),
        record(
            "resource",
            "https://b.example/page",
            "text/html",
            ARTICLE.as_bytes(),
        ),
    ]
}

fn read(bytes: &[u8]) -> Vec<Result<Record, WarcError>> {
    WarcReader::new(bytes).unwrap().collect()
}

/// (type, target) of every record read, errors as their message.
fn summary(read: &[Result<Record, WarcError>]) -> Vec<String> {
    read.iter()
        .map(|r| match r {
            Ok(r) => format!("{} {}", r.kind, r.target_uri.as_deref().unwrap_or("")),
            Err(e) => e.to_string(),
        })
        .collect()
}

#[test]
fn plain_and_gzip_files_read_alike() {
    let records = crawl();
    let plain: Vec<u8> = records.concat();
    let per_record: Vec<u8> = records.iter().flat_map(|r| gz(r)).collect();
    let whole = gz(&plain);
    let expected = summary(&read(&plain));
    assert_eq!(expected.len(), 6, "{expected:?}");
    assert_eq!(summary(&read(&per_record)), expected);
    assert_eq!(summary(&read(&whole)), expected);
    // Page records keep their block; the others are passed over unread.
    let got = read(&per_record);
    let blocks: Vec<usize> = got
        .iter()
        .map(|r| r.as_ref().unwrap().block.len())
        .collect();
    assert!(
        blocks[2] > 0 && blocks[5] > 0 && blocks[0] == 0 && blocks[1] == 0,
        "{blocks:?}"
    );
    // Per record, a record's place is its gzip member's byte in the file.
    let second = got[1].as_ref().unwrap().at;
    assert_eq!(
        (second.byte, second.within),
        (gz(&records[0]).len() as u64, Some(0))
    );
}

#[test]
fn a_broken_record_in_the_middle_is_skipped() {
    let mut records = crawl();
    let broken = b"WARC/1.1\r\nWARC-Type: response\r\nthis line is no header\r\n\r\n<html>lost</html>\r\n\r\n".to_vec();
    records.insert(3, broken);
    for (name, bytes) in [
        ("plain", records.concat()),
        (
            "gzip per record",
            records.iter().flat_map(|r| gz(r)).collect(),
        ),
        ("gzip whole", gz(&records.concat())),
    ] {
        let got = summary(&read(&bytes));
        assert_eq!(got.len(), 7, "{name}: {got:?}");
        assert!(
            got[3].starts_with("broken record at ") && got[3].contains("has no ':'"),
            "{name}: {got:?}"
        );
        assert_eq!(got[6], "resource https://b.example/page", "{name}");
    }
}

#[test]
fn a_missing_length_is_a_broken_record() {
    let mut bytes = b"WARC/1.0\r\nWARC-Type: response\r\n\r\nno length\r\n\r\n".to_vec();
    bytes.extend(crawl().concat());
    let got = summary(&read(&bytes));
    assert!(got[0].contains("Content-Length is missing"), "{got:?}");
    assert_eq!(got.len(), 7, "{got:?}");
}

#[test]
fn a_truncated_file_stops_where_it_ends() {
    let records = crawl();
    let plain = records.concat();
    let cut = &plain[..plain.len() - 40];
    let got = summary(&read(cut));
    assert_eq!(got.len(), 6, "{got:?}");
    assert!(
        got[5].starts_with("stopped reading at byte ") && got[5].contains("truncated"),
        "{got:?}"
    );

    let per_record: Vec<u8> = records.iter().flat_map(|r| gz(r)).collect();
    // Cut inside the last member's trailer: its record is whole, the file is not.
    let cut = &per_record[..per_record.len() - 10];
    let got = summary(&read(cut));
    assert_eq!(got.len(), 7, "{got:?}");
    assert!(
        got[6].starts_with("stopped reading at the gzip member at byte "),
        "{got:?}"
    );
    assert!(got[6].contains("truncated"), "{got:?}");
    // Cut inside the last record's data.
    let last = gz(&records[5]).len();
    let cut = &per_record[..per_record.len() - last / 2];
    let got = summary(&read(cut));
    assert_eq!(got.len(), 6, "{got:?}");
    assert!(got[5].contains("truncated"), "{got:?}");

    let whole = gz(&plain);
    let got = summary(&read(&whole[..whole.len() / 2]));
    assert!(got.last().unwrap().contains("truncated"), "{got:?}");
}

#[test]
fn corrupt_gzip_data_stops_the_file() {
    let records = crawl();
    let mut per_record: Vec<u8> = records.iter().flat_map(|r| gz(r)).collect();
    let second = gz(&records[0]).len();
    per_record[second + 20] ^= 0xff;
    per_record[second + 21] ^= 0xff;
    let got = summary(&read(&per_record));
    assert!(
        got.len() <= 2
            && got
                .last()
                .unwrap()
                .starts_with("stopped reading at the gzip member at byte"),
        "{got:?}"
    );
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("webfold-batch-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn pages_of_a_warc_and_what_is_said_of_the_rest() {
    let dir = scratch("items");
    let path = dir.join("crawl.warc.gz");
    let mut records = crawl();
    // Latin-1 by the HTTP header only.
    records.push(response(
        "https://c.example/",
        "text/html; charset=iso-8859-1",
        b"<p>caf\xe9</p>",
    ));
    std::fs::write(
        &path,
        records.iter().flat_map(|r| gz(r)).collect::<Vec<u8>>(),
    )
    .unwrap();
    let got: Vec<Item> = items(vec![path.clone(), dir.join("missing.warc")]).collect();
    let shape: Vec<String> = got
        .iter()
        .map(|i| match i {
            Item::Page(p) => format!("page {}", p.url),
            Item::Note(Note::Skipped { why, .. }) => format!("skipped: {why}"),
            Item::Note(n) => format!("{n:?}"),
        })
        .collect();
    assert_eq!(shape.len(), 6, "{shape:?}");
    assert!(shape[0].starts_with("Opened"), "{shape:?}");
    assert_eq!(
        &shape[1..4],
        [
            "page https://a.example/",
            "skipped: not HTML (image/png)",
            "page https://b.example/page"
        ]
    );
    assert_eq!(shape[4], "page https://c.example/");
    assert!(
        shape[5].starts_with("Unreadable") && shape[5].contains("no such file"),
        "{shape:?}"
    );
    let Item::Page(latin) = &got[4] else {
        unreachable!()
    };
    let folded = webfold_batch::fold(latin.page_in()).unwrap();
    assert!(folded.markdown.contains("café"), "{}", folded.markdown);
    let _ = std::fs::remove_dir_all(&dir);
}
