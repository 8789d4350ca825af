"""The installed package against the command line, on real corpus pages:
every view of the registry gives the command's text byte for byte, options
and errors keep their wording, and the package's stub is current.

Needs WEBFOLD_BIN (the `webfold` binary the same sources built) and the
shared corpus (WEBFOLD_SHARED, else the folder beside the repository)."""

import gzip
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import webfold

HERE = Path(__file__).resolve().parent
BIN = os.environ.get("WEBFOLD_BIN")
SHARED = Path(os.environ.get("WEBFOLD_SHARED", HERE.parents[2] / ".." / "shared")).resolve()

# Options each view is called with, besides its defaults.
CALLS = {
    "outline": [{}, {"max_tokens": 300}],
    "chunk": [{"selector": "body", "max_tokens": 1500}],
    "snapshot": [{}, {"max_tokens": 800}],
    "find": [{"query": "the"}],
    "markdown": [{}, {"max_tokens": 500}],
    "cnt": [{}, {"max_tokens": 1000}],
    "links": [{}],
}


def corpus_pages(n=6):
    """The first `n` pages of the corpus that are stored plainly, from several sets."""
    seen, pages = set(), []
    with open(SHARED / "corpus" / "manifest.jsonl") as f:
        for line in f:
            p = json.loads(line)
            if p["set"] in seen:
                continue
            seen.add(p["set"])
            path = SHARED / "corpus" / p["dir"] / p["source"]
            pages.append(pytest.param(path, id=p["id"]))
            if len(pages) == n:
                break
    return pages


def page_bytes(path):
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def flags(view, options):
    args = []
    for name, value in options.items():
        if view == "find" and name == "query":
            continue
        args += [f"--{name.replace('_', '-')}", str(value)]
    if view == "find":
        args.append(options["query"])
    return args


def cli(view, path, options, session=None):
    """The command's output for `view` of the page in `path`, as it prints
    it; with `session`, a new session file there (a Page keeps one)."""
    assert BIN, "set WEBFOLD_BIN to the webfold binary"
    extra = ["--session", str(session)] if session else []
    out = subprocess.run([BIN, view, str(path), *flags(view, options), *extra], capture_output=True)
    assert out.returncode == 0, out.stderr.decode()
    return out.stdout.decode()


def test_every_view_is_a_method():
    names = {v[0] for v in webfold.VIEWS}
    assert names == set(CALLS), f"new views need a call here: {names ^ set(CALLS)}"
    for name in names:
        assert callable(getattr(webfold.Page, name))
        assert getattr(webfold.Page, name).__doc__


@pytest.mark.parametrize("path", corpus_pages())
def test_each_view_prints_what_the_command_prints(path, tmp_path):
    plain = tmp_path / "page.html"
    plain.write_bytes(page_bytes(path))
    for name, _, _, session in webfold.VIEWS:
        # A page keeps a snapshot session, as the command with --session
        # does, and the command knows the page by its file.
        keeps = session != "none"
        url = f"file://{plain.resolve()}" if keeps else None
        for n, options in enumerate(CALLS[name]):
            page = webfold.Page(plain.read_bytes(), url=url)
            got = page.view(name, **options)
            want = cli(name, plain, options, tmp_path / f"{name}-{n}.json" if keeps else None)
            assert want in (got.text, got.text + "\n"), f"{name} {options} differs from the command"
            if "max_tokens" in options:
                assert got.tokens <= options["max_tokens"]
                assert got.max_tokens == options["max_tokens"]


def test_each_view_is_a_function_too_giving_the_methods_text():
    for param in corpus_pages(3):
        html = page_bytes(param.values[0])
        for name, _, _, _ in webfold.VIEWS:
            for options in CALLS[name]:
                want = webfold.Page(html, url="https://example.test/a/").view(name, **options)
                got = getattr(webfold, name)(html, url="https://example.test/a/", **options)
                assert (got.text, got.tokens, got.hints) == (want.text, want.tokens, want.hints), f"{name} {options}"
    assert name in webfold.__all__ and getattr(webfold, name).__doc__
    with pytest.raises(webfold.WebfoldError, match="max_tokens must be a whole number above 0"):
        webfold.markdown("<p>x", max_tokens=0)
    with pytest.raises(webfold.WebfoldError, match="no view named 'nope'"):
        webfold.view("nope", "<p>x")


def test_errors_are_exceptions_in_the_commands_words():
    page = webfold.Page("<html><body><main><a href='/x'>Sign in</a></main></body></html>")
    with pytest.raises(webfold.WebfoldError, match="max_tokens must be a whole number above 0"):
        page.snapshot(max_tokens=0)
    with pytest.raises(webfold.WebfoldError, match="unknown option 'max_token'"):
        page.snapshot(max_token=10)
    with pytest.raises(webfold.WebfoldError, match="Element not found: nav"):
        page.chunk(selector="nav")
    with pytest.raises(webfold.WebfoldError, match="invalid selector"):
        page.chunk(selector="a[")
    with pytest.raises(webfold.WebfoldError, match="empty input"):
        webfold.Page("   ")
    with pytest.raises(webfold.WebfoldError, match="no view named 'nope'"):
        page.view("nope")
    with pytest.raises(ValueError):
        webfold.Page(42)


def test_a_str_is_read_as_the_text_it_is_bytes_by_their_charset():
    html = '<html><head><meta charset="iso-8859-1"></head><body><p>Café crème</p></body></html>'
    assert "Café crème" in webfold.Page(html).markdown(main=False).text
    assert "Café crème" in webfold.Page(html.encode("latin-1")).markdown(main=False).text


def test_snapshot_refs_carry_across_calls_on_one_page():
    page = webfold.Page("<html><body><button>Buy</button><a href='/t'>Terms</a></body></html>", url="https://shop.test/")
    snap = page.snapshot().text
    ref = snap.split("[ref=")[1].split("]")[0]
    chunk = page.chunk(ref=ref)
    assert "<button>Buy</button>" in chunk.text


def test_the_gil_is_released_while_a_view_runs():
    html = "<html><body>" + "<p>word " * 20000 + "</body></html>"
    page = webfold.Page(html)
    done = []
    ticks = []
    worker = threading.Thread(target=lambda: done.append(page.markdown()))
    worker.start()
    while worker.is_alive():
        ticks.append(1)
    worker.join()
    assert done and done[0].tokens > 0
    # The main thread ran Python while the view ran in Rust.
    assert len(ticks) > 10


def test_fetch_reads_a_local_server():
    import http.server

    body = b"<html><head><title>Local</title></head><body><h1>Here</h1></body></html>"

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        page = webfold.fetch(f"http://127.0.0.1:{server.server_port}/p")
        assert page.url == f"http://127.0.0.1:{server.server_port}/p"
        assert "# Here" in page.markdown().text
        with pytest.raises(webfold.WebfoldError):
            webfold.fetch("not a url")
    finally:
        server.shutdown()


def test_the_stub_is_current():
    from stub import stub

    committed = (HERE.parent / "python" / "webfold" / "__init__.pyi").read_text()
    assert committed == stub(), "run `python bindings/python/stub.py` with the package installed"


def installed_command():
    """The `webfold` script the package installed, beside this Python."""
    path = Path(sys.executable).parent / "webfold"
    assert path.exists(), f"the package installs a webfold script: {path}"
    return str(path)


def test_the_package_installs_the_command():
    out = subprocess.run([installed_command(), "--version"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"webfold {webfold.__version__}"
    bad = subprocess.run([installed_command(), "outline", "/no/such/page.html"], capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.startswith("error: "), bad.stderr


def test_the_installed_command_serves_mcp_over_stdio():
    proc = subprocess.Popen(
        [installed_command(), "mcp", "--no-db"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def ask(id, method, params):
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}) + "\n")
        proc.stdin.flush()
        while True:
            msg = json.loads(proc.stdout.readline())
            if msg.get("id") == id:
                return msg["result"]

    try:
        ask(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pytest", "version": "1"}})
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        proc.stdin.flush()
        tools = {t["name"] for t in ask(2, "tools/list", {})["tools"]}
        assert {"get_dom_outline", "page_snapshot", "get_html_chunk"} <= tools, tools
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
