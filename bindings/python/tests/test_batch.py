"""Corpus scale: `webfold batch` on a WARC built here from corpus pages,
the same WARC through Ray Data (`read_warc` + `fold_batch` on a local
cluster, two workers), and the datatrove extractor step. Ray's rows equal
the command's lines.

Needs WEBFOLD_BIN, the shared corpus, and the packages of
requirements-batch.txt (scripts/test-python installs them)."""

import gzip
import json
import os
import subprocess
from pathlib import Path

import pytest

import webfold

HERE = Path(__file__).resolve().parent
BIN = os.environ.get("WEBFOLD_BIN")
SHARED = Path(os.environ.get("WEBFOLD_SHARED", HERE.parents[2] / ".." / "shared")).resolve()


def corpus(n):
    """(url, html bytes) of `n` corpus pages, spread over the manifest."""
    with open(SHARED / "corpus" / "manifest.jsonl") as f:
        entries = [json.loads(line) for line in f if line.strip()]
    step = max(1, len(entries) // n)
    pages = []
    for i, p in enumerate(entries[::step][:n]):
        data = (SHARED / "corpus" / p["dir"] / p["source"]).read_bytes()
        if p["gzip"]:
            data = gzip.decompress(data)
        # Distinct addresses: some sets share one placeholder URL.
        pages.append((f"https://corpus.example/{i:03d}/{p['id']}", data))
    return pages


def warc_record(url, body):
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
    head = (
        "WARC/1.1\r\nWARC-Type: response\r\n"
        f"WARC-Target-URI: {url}\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(http)}\r\n\r\n"
    ).encode()
    return gzip.compress(head + http + b"\r\n\r\n")


@pytest.fixture(scope="module")
def warc(tmp_path_factory):
    """A WARC.gz (gzip per record) of ~30 corpus pages, a request and an image among them."""
    path = tmp_path_factory.mktemp("batch") / "corpus.warc.gz"
    request = (
        b"WARC/1.1\r\nWARC-Type: request\r\nWARC-Target-URI: https://corpus.example/\r\n"
        b"Content-Length: 4\r\n\r\nGET \r\n\r\n"
    )
    with open(path, "wb") as f:
        f.write(gzip.compress(request))
        for url, body in corpus(30):
            f.write(warc_record(url, body))
    return path


@pytest.fixture(scope="module")
def lines(warc):
    assert BIN, "set WEBFOLD_BIN to the webfold binary"
    out = subprocess.run([BIN, "batch", str(warc)], capture_output=True, check=True)
    assert b"30 pages written, 0 skipped" in out.stderr, out.stderr
    return [json.loads(line) for line in out.stdout.decode().splitlines()]


def test_read_warc_gives_the_pages(warc):
    records = webfold.read_warc(warc)
    pages = list(records)
    assert len(pages) == 30
    assert set(pages[0]) == {"url", "html", "content_type", "content_language"}
    assert pages[0]["content_type"] == "text/html" and isinstance(pages[0]["html"], bytes)
    assert records.skipped == []


def test_fold_batch_equals_the_command(warc, lines):
    pages = list(webfold.read_warc(warc))
    columns = {k: [p[k] for p in pages] for k in ("html", "url", "content_type")}
    got = webfold.fold_batch(columns)
    assert tuple(got) == webfold.FOLDED_FIELDS
    rows = [dict(zip(got, values)) for values in zip(*got.values())]
    assert rows == lines


def test_fold_batch_reads_a_str_as_the_text_it_is():
    html = '<html><head><meta charset="iso-8859-1"></head><body><p>Café crème</p></body></html>'
    batch = {"html": [html, html.encode("latin-1")], "content_type": ["text/html; charset=iso-8859-1"] * 2}
    assert webfold.fold_batch(batch)["markdown"] == ["Café crème", "Café crème"]


def test_fold_batch_names_what_it_leaves_out(caplog):
    png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"
    batch = {"html": [png, "<p>Hello</p>"], "url": ["https://x.example/logo", None]}
    with caplog.at_level("WARNING", logger="webfold"):
        got = webfold.fold_batch(batch)
    assert got["markdown"] == ["Hello"]
    assert [r.getMessage() for r in caplog.records] == [
        "skipped page 0 (https://x.example/logo): not HTML (a PNG image)"
    ]


def test_ray_data_equals_the_command(warc, lines):
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        ds = ray.data.from_items(list(webfold.read_warc(warc)))
        folded = ds.map_batches(webfold.fold_batch, batch_size=4, compute=ray.data.TaskPoolStrategy(size=2))
        rows = [{k: _plain(r[k]) for k in webfold.FOLDED_FIELDS} for r in folded.take_all()]
    finally:
        ray.shutdown()
    by_url = lambda r: r["url"]
    assert sorted(rows, key=by_url) == sorted(lines, key=by_url)


def _plain(value):
    """numpy scalars as Python values, for comparing with JSON."""
    return value.item() if hasattr(value, "item") else value


def test_datatrove_extractor(lines):
    from datatrove.data import Document

    from webfold.datatrove import WebfoldExtractor

    pages = [p for p in corpus(30) if _utf8(p[1])][:4]
    docs = [Document(text=html.decode("utf-8", "replace"), id=str(i), metadata={"url": url}) for i, (url, html) in enumerate(pages)]
    docs.append(Document(text="", id="empty", metadata={}))
    out = list(WebfoldExtractor().run(iter(docs)))
    assert [d.id for d in out] == ["0", "1", "2", "3"]
    expected = {line["url"]: line for line in lines}
    for d in out:
        line = expected[d.metadata["url"]]
        assert d.text == line["markdown"]
        assert d.metadata["tokens"] == line["tokens"] and d.metadata["title"] == line["title"]
    assert WebfoldExtractor().extract("<p>Hello <b>there</b></p>") == "Hello **there**"


def _utf8(data):
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False
