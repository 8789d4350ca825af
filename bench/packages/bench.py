"""The Python package beside the tools Python users reach for today, on the
corpus pages, in one process: main content (webfold's view and its
fold_batch, trafilatura, readability-lxml, readabilipy) and whole-page
Markdown (webfold, markdownify, html2text). Then the Node results
(bench.mjs) are scored the same way and every table is printed as Markdown. Run by
scripts/bench-packages, which installs everything this imports.

  bench.py run --corpus DIR --pages pages.jsonl --work DIR [--node node.json] [--meta meta.json]
  bench.py check --work DIR --rust-scorer BIN   # the port against the Rust scorer, every output of `run`
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import scoring

HUGE = 1_000_000_000  # a token budget no page reaches: the whole output


# ---------------------------------------------------------------- pages


def load(path: str) -> list[dict]:
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


# ---------------------------------------------------------------- tools


def webfold_main(html, url):
    import webfold

    e = webfold.Page(html, url=url).markdown(max_lines=0, max_tokens=HUGE)
    return e.text, e


def webfold_fold(html, url):
    import webfold

    out = webfold.fold_batch({"html": [html], "url": [url]})
    return (out["markdown"][0] if out["markdown"] else ""), None


def webfold_whole(html, url):
    import webfold

    e = webfold.Page(html, url=url).markdown(main=False, max_lines=0, max_tokens=HUGE)
    return e.text, e


def trafilatura_md(html, url):
    import trafilatura

    return trafilatura.extract(html, url=url, output_format="markdown") or "", None


def readability_lxml(html, url):
    from readability import Document

    return Document(html, url=url).summary(), None


def readabilipy_py(html, url):
    from readabilipy import simple_json_from_html_string

    return simple_json_from_html_string(html, use_readability=False)["content"] or "", None


def markdownify_md(html, url):
    import markdownify

    return markdownify.markdownify(html), None


def html2text_md(html, url):
    import html2text

    h = html2text.HTML2Text(baseurl=url or "")
    return h.handle(html), None


# name, function, output kind (markdown | html), package for its version
MAIN = [
    ("webfold", webfold_main, "markdown", "webfold"),
    ("webfold fold_batch", webfold_fold, "markdown", "webfold"),
    ("trafilatura", trafilatura_md, "markdown", "trafilatura"),
    ("readability-lxml", readability_lxml, "html", "readability-lxml"),
    ("readabilipy", readabilipy_py, "html", "readabilipy"),
]
WHOLE = [
    ("webfold", webfold_whole, "markdown", "webfold"),
    ("markdownify", markdownify_md, "markdown", "markdownify"),
    ("html2text", html2text_md, "markdown", "html2text"),
]


def measure(tools, pages) -> dict:
    """Each tool over every page in turn, in the same process, as a pipeline
    runs one (taking turns page by page leaves every call the caches of the
    tool before it, which slowed webfold 3.4× and trafilatura 1.3× here, and
    is no one's real workload). CPU and wall time of the call alone; an
    exception is an empty output, counted. One untimed call first, so no
    module's import or first-use set-up counts; garbage is collected between
    tools, untimed."""
    res = {name: {"cpu": 0.0, "wall": 0.0, "failed": 0, "out": {}, "env": {}} for name, *_ in tools}
    for name, fn, *_ in tools:
        print(f"  {name}", file=sys.stderr, flush=True)
        try:
            fn(pages[0]["html"], pages[0]["url"])
        except Exception:  # noqa: BLE001
            pass
        gc.collect()
        for p in pages:
            r = res[name]
            c0, w0 = time.process_time(), time.perf_counter()
            try:
                out, env = fn(p["html"], p["url"])
            except Exception:  # noqa: BLE001 - any failure of a peer is an empty output
                out, env = "", None
                r["failed"] += 1
            r["cpu"] += time.process_time() - c0
            r["wall"] += time.perf_counter() - w0
            r["out"][p["id"]] = out
            if env is not None:
                r["env"][p["id"]] = env
    return res


# ---------------------------------------------------------------- scoring


def visible(text: str, kind: str) -> str:
    return scoring.html_text(text) if kind == "html" else scoring.markdown_visible_text(text)


def judge_all(outs: dict, kind: str, truths: dict, pages) -> dict:
    per = {}
    for p in pages:
        per[p["id"]] = truths[p["id"]].judge(visible(outs.get(p["id"], ""), kind))
    return per


def figures(per: dict, pages) -> dict:
    by_set = {"aeb": [], "readability": []}
    snip = scoring.SnippetCounts()
    for p in pages:
        j = per[p["id"]]
        if p["set"] == "trafilatura":
            snip.add(j)
        else:
            by_set[p["set"]].append(j)
    return {
        "aeb": scoring.aggregate(by_set["aeb"]),
        "readability": scoring.aggregate(by_set["readability"]),
        "trafilatura": snip,
    }


def rust_check(bin_: str, rows_path: Path) -> str:
    """Every output judged by the Rust scorer and by the port: the same
    figures page by page, or the outputs where they differ."""
    with open(rows_path) as f:
        rows = [json.loads(l) for l in f if l.strip()]
    stdin = "".join(json.dumps({"id": r["id"], "text": r["text"], "html": r["kind"] == "html"}) + "\n" for r in rows)
    done = subprocess.run([bin_], input=stdin, capture_output=True, text=True, check=True)
    bad = []
    for r, line in zip(rows, done.stdout.splitlines()):
        theirs, mine = json.loads(line), r["judged"]
        if "with_found" in mine:
            same = all(mine[k] == theirs[k] for k in mine)
        else:
            same = all(abs(mine[k] - theirs[k]) < 1e-9 for k in mine)
        if not same:
            bad.append(f"{r['tool']} {r['id']}")
    if bad:
        return f"the port and the Rust scorer differ on {len(bad)} of {len(rows)} outputs: {', '.join(bad[:10])}"
    return f"the port and the Rust scorer agree on all {len(rows)} outputs (every tool, every page)"


def check(args) -> None:
    print(f"- {rust_check(args.rust_scorer, Path(args.work) / 'check.jsonl')}")


def judged_dict(j) -> dict:
    if isinstance(j, scoring.SnippetCounts):
        return {"with_found": j.with_found, "with_total": j.with_total,
                "without_absent": j.without_absent, "without_total": j.without_total}
    return {"tp": j.tp, "fp": j.fp, "fn": j.fn}


def webfold_body(env) -> str:
    """The view's text without the header it prints over the article (title,
    byline · date, fallback note): what `webfold-bench extract` scores."""
    m = env.data.get("main") or {}
    head = ""
    if m.get("title"):
        head += "# " + m["title"].replace("\n", " ") + "\n"
    by = [x for x in (m.get("byline"), m.get("date")) if x]
    if by:
        head += ("\n" if head else "") + " · ".join(by) + "\n"
    if m.get("fallback"):
        head += ("\n" if head else "") + f"> Note: {m['fallback']}.\n"
    text = env.text
    if head and text.startswith(head + "\n"):
        return text[len(head) + 1 :]
    if head and text == head:
        return ""
    return text


# ---------------------------------------------------------------- tables


def mb(pages) -> float:
    return sum(len(p["html"].encode()) for p in pages) / 1e6


def speed(r, size, n):
    cpu = max(r["cpu"], 1e-9)
    return size / cpu, n / cpu, size / max(r["wall"], 1e-9)


def ratio(x, y) -> str:
    return f"{x / y:.1f}×" if y else "–"


def main_table(title, results, kinds, truths, pages, peer, versions, note="") -> tuple[list, str]:
    size, n = mb(pages), len(pages)
    rows, lines = [], []
    lines.append(f"### {title}\n")
    if note:
        lines.append(note + "\n")
    lines.append("| tool | version | pages | failed | MB/s (CPU) | pages/s | MB/s (wall) | AEB F1 | Readability F1 | trafilatura with / without (F1) | speed vs " + peer + " |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    peer_speed = speed(results[peer], size, n)[0]
    for name, r in results.items():
        per = judge_all(r["out"], kinds[name], truths, pages)
        rows += [(name, pid, r["out"].get(pid, ""), kinds[name], j) for pid, j in per.items()]
        f = figures(per, pages)
        s = speed(r, size, n)
        t = f["trafilatura"]
        lines.append(
            f"| {name} | {versions.get(name, '')} | {n} | {r['failed']} | {s[0]:.2f} | {s[1]:.1f} | {s[2]:.2f} | "
            f"{f['aeb'].f1:.3f} | {f['readability'].f1:.3f} | {t.with_share():.3f} / {t.without_share():.3f} ({t.f1():.3f}) | "
            f"{ratio(s[0], peer_speed)} |"
        )
    return rows, "\n".join(lines) + "\n"


def tokens_of(text: str) -> int:
    """o200k tokens of any text, by webfold's own counter (its raw view of a
    plain-text body counts the text exactly)."""
    import webfold

    if not text:
        return 0
    return webfold.Page(text.encode(), content_type="text/plain").markdown(format="raw", max_tokens=HUGE).tokens


def whole_table(title, results, pages, peer, versions, note="") -> str:
    size, n = mb(pages), len(pages)
    lines = [f"### {title}\n"]
    if note:
        lines.append(note + "\n")
    lines.append(f"| tool | version | pages | failed | MB/s (CPU) | pages/s | MB/s (wall) | median output tokens | speed vs {peer} |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    peer_speed = speed(results[peer], size, n)[0]
    for name, r in results.items():
        toks = [tokens_of(r["out"].get(p["id"], "")) for p in pages]
        s = speed(r, size, n)
        lines.append(
            f"| {name} | {versions.get(name, '')} | {n} | {r['failed']} | {s[0]:.2f} | {s[1]:.1f} | {s[2]:.2f} | "
            f"{statistics.median(toks):.0f} | {ratio(s[0], peer_speed)} |"
        )
    return "\n".join(lines) + "\n"


def version(pkg: str) -> str:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return "?"


def run(args) -> None:
    import webfold  # noqa: F401 - loaded before any timing

    pages = load(args.pages)
    corpus = Path(args.corpus)
    truths = {p["id"]: scoring.Truth(corpus, p) for p in pages}
    work = Path(args.work)
    versions = {name: version(pkg) for name, _, _, pkg in MAIN + WHOLE}
    out = []
    meta = json.loads(Path(args.meta).read_text()) if args.meta else {}
    node = json.loads(Path(args.node).read_text()) if args.node else None

    print("Python main content…", file=sys.stderr)
    main = measure(MAIN, pages)
    kinds = {name: kind for name, _, kind, _ in MAIN}
    rows, table = main_table(
        "Python: main content", main, kinds, truths, pages, "trafilatura", versions,
        "webfold `Page(html, url=url).markdown(max_lines=0, max_tokens=…)` (the main content, whole, under "
        "its title and byline, as an agent reads it); webfold fold_batch `fold_batch({\"html\": [html], \"url\": [url]})` "
        "(the same content without that header, which it returns as columns of its own: the data pipelines' call, "
        "as trafilatura's is); "
        "trafilatura `extract(html, url=url, output_format=\"markdown\")` (its defaults otherwise); "
        "readability-lxml `Document(html, url=url).summary()`; readabilipy "
        "`simple_json_from_html_string(html, use_readability=False)[\"content\"]`. "
        "Markdown is scored on its visible text, HTML on its text, both as the Rust scorer reads them.",
    )
    out.append(table)
    body = {pid: webfold_body(env) for pid, env in main["webfold"]["env"].items()}
    fb = figures(judge_all(body, "markdown", truths, pages), pages)
    t = fb["trafilatura"]
    notes = [
        f"webfold without the view's header (title, byline · date) over the article, as `webfold-bench extract` "
        f"scores the core: AEB F1 {fb['aeb'].f1:.3f}, Readability F1 {fb['readability'].f1:.3f}, "
        f"trafilatura with {t.with_share():.3f} / without {t.without_share():.3f}."
    ]

    print("Python whole page…", file=sys.stderr)
    whole = measure(WHOLE, pages)
    for r in whole.values():
        r.pop("env")
    out.append(whole_table(
        "Python: whole page to Markdown", whole, pages, "markdownify", versions,
        "webfold `markdown(main=False, max_lines=0, max_tokens=…)`; `markdownify.markdownify(html)`; "
        "`html2text.HTML2Text(baseurl=url).handle(html)`. Tokens: o200k, counted by webfold's own counter for every tool.",
    ))
    del whole

    if node:
        nv = node["versions"]
        nres = {k: v for k, v in node["main"].items()}
        nkinds = {k: "markdown" for k in nres}
        nrows, table = main_table(
            "Node: main content", nres, nkinds, truths, pages, "readability+turndown",
            {"webfold": nv["webfold"], "readability+turndown": f"{nv['@mozilla/readability']} + {nv['turndown']} (jsdom {nv['jsdom']})"},
            "webfold `markdown(html, { url, maxLines: 0, maxTokens: … }).text`; "
            "`new Readability(new JSDOM(html, { url }).window.document).parse().content` through "
            "`new TurndownService().turndown(…)` (the jsdom parse timed with the call).",
        )
        rows += [("node " + r[0],) + r[1:] for r in nrows]
        out.append(table)
        wres = node["whole"]
        passes = "; ".join(
            f"{name} " + " / ".join(f"{mb(pages) / max(p['cpu'], 1e-9):.1f}" for p in r.get("passes", []))
            for name, r in wres.items()
        )
        out.append(whole_table(
            "Node: whole page to Markdown", wres, pages, "turndown",
            {"webfold": nv["webfold"], "turndown": nv["turndown"]},
            "webfold `markdown(html, { url, main: false, maxLines: 0, maxTokens: … }).text`; "
            "`new TurndownService().turndown(html)`: turndown in Node parses the string with its bundled "
            f"DOM ({nv.get('turndown_parser', 'domino')}), timed with the call. "
            f"CPU time of the median of {len(wres['webfold'].get('passes', [])) or 1} passes over the pages, "
            f"the tools taking turns (MB/s a pass: {passes}).",
        ))

    with open(work / "check.jsonl", "w") as f:
        for tool, pid, text, kind, j in rows:
            f.write(json.dumps({"tool": tool, "id": pid, "text": text, "kind": kind, "judged": judged_dict(j)}) + "\n")

    if meta:
        lines = ["### Sizes and start-up\n", "| what | figure |", "|---|---:|"]
        for k, v in meta.items():
            lines.append(f"| {k} | {v} |")
        out.append("\n".join(lines) + "\n")
    # Last, so that `bench.py check` adds its line to this list.
    out.append("### Scorer check\n\n" + "\n".join(f"- {c}" for c in notes))

    env = [f"Python {platform.python_version()}", f"{os.cpu_count()} cores", f"{len(pages)} pages, {mb(pages):.1f} MB"]
    print(f"## Package benchmarks ({', '.join(env)})\n")
    print("\n".join(out))
    (work / "python-main-failed.json").write_text(json.dumps({k: v["failed"] for k, v in main.items()}))


def startup(args) -> None:
    """One fresh process: import time and the first call's time, in ms."""
    t0 = time.perf_counter()
    import webfold

    t1 = time.perf_counter()
    html = Path(args.page).read_text()
    t2 = time.perf_counter()
    webfold.Page(html, url="http://fakehost/test/page.html").markdown()
    t3 = time.perf_counter()
    print(json.dumps({"import_ms": (t1 - t0) * 1e3, "first_call_ms": (t3 - t2) * 1e3}))


def cli() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--corpus", required=True)
    r.add_argument("--pages", required=True)
    r.add_argument("--work", required=True)
    r.add_argument("--node")
    r.add_argument("--meta")
    c = sub.add_parser("check")
    c.add_argument("--work", required=True)
    c.add_argument("--rust-scorer", required=True)
    s = sub.add_parser("startup")
    s.add_argument("--page", required=True)
    a = ap.parse_args()
    {"run": run, "check": check, "startup": startup}[a.cmd](a)


if __name__ == "__main__":
    cli()
