"""Main-content scoring against the corpus' ground truth: a line-by-line
port of crates/webfold-corpus/src/scoring.rs, so that a package and its
peers are scored exactly as `webfold-bench extract` scores the core.
scripts/bench-packages checks it page by page against the Rust scorer
(crates/webfold-corpus/examples/score.rs) on every run.
"""

from __future__ import annotations

import json
import string
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import html5lib
import regex

# Rust's char::is_alphanumeric (Alphabetic or Numeric) plus '_'.
_WORD = regex.compile(r"[\p{Alphabetic}\p{N}_]+")
# Rust's str::split_whitespace (the White_Space property).
_SPACE = regex.compile(r"\p{White_Space}+")
_PUNCT = set(string.punctuation)  # char::is_ascii_punctuation


def tokenize(text: str) -> list[str]:
    return _WORD.findall(text)


def shingles(text: str, n: int = 4) -> Counter:
    tokens = tokenize(text)
    out: Counter = Counter()
    count = max(len(tokens) - n, 0) + 1
    for i in range(max(count, 1)):
        s = tuple(tokens[min(i, len(tokens)) : min(i + n, len(tokens))])
        if s:
            out[s] += 1
    return out


@dataclass
class ShingleMatch:
    tp: float = 0.0
    fp: float = 0.0
    fn: float = 0.0

    @classmethod
    def of(cls, truth: str, pred: str) -> "ShingleMatch":
        t, p = shingles(truth), shingles(pred)
        tp = fp = fn = 0.0
        for k, tc in t.items():
            pc = p.get(k, 0)
            tp += min(tc, pc)
            fn += max(tc - pc, 0)
        for k, pc in p.items():
            fp += max(pc - t.get(k, 0), 0)
        s = tp + fp + fn
        if s > 0.0:
            return cls(tp / s, fp / s, fn / s)
        return cls()

    def precision(self) -> float:
        if self.fp == 0.0 and self.fn == 0.0:
            return 1.0
        if self.tp == 0.0 and self.fp == 0.0:
            return 0.0
        return self.tp / (self.tp + self.fp)

    def recall(self) -> float:
        if self.fp == 0.0 and self.fn == 0.0:
            return 1.0
        if self.tp == 0.0 and self.fn == 0.0:
            return 0.0
        return self.tp / (self.tp + self.fn)


@dataclass
class Prf:
    precision: float
    recall: float
    f1: float


def aggregate(matches: list[ShingleMatch]) -> Prf:
    """Mean precision and mean recall over pages, then their harmonic mean."""
    ps = [m.precision() for m in matches if m.tp + m.fp > 0.0]
    rs = [m.recall() for m in matches if m.tp + m.fn > 0.0]
    mean = lambda v: sum(v) / len(v) if v else 0.0  # noqa: E731
    p, r = mean(ps), mean(rs)
    f1 = 0.0 if p + r == 0.0 else 2.0 * p * r / (p + r)
    return Prf(p, r, f1)


def squash(s: str) -> str:
    return " ".join(w for w in _SPACE.split(s) if w).replace("\u00ad", "")


@dataclass
class SnippetCounts:
    with_found: int = 0
    with_total: int = 0
    without_absent: int = 0
    without_total: int = 0

    @classmethod
    def of(cls, output: str, with_: list[str], without: list[str]) -> "SnippetCounts":
        out = squash(output)
        return cls(
            sum(1 for s in with_ if squash(s) in out),
            len(with_),
            sum(1 for s in without if squash(s) not in out),
            len(without),
        )

    def add(self, o: "SnippetCounts") -> None:
        self.with_found += o.with_found
        self.with_total += o.with_total
        self.without_absent += o.without_absent
        self.without_total += o.without_total

    def with_share(self) -> float:
        return self.with_found / max(self.with_total, 1)

    def without_share(self) -> float:
        return self.without_absent / max(self.without_total, 1)

    def f1(self) -> float:
        """Trafilatura's own evaluation formula on the same counts (not in
        scoring.rs): a `with` snippet found is a true positive, one missing
        a false negative, a `without` snippet present a false positive."""
        tp = self.with_found
        fn = self.with_total - self.with_found
        fp = self.without_total - self.without_absent
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        return 2 * p * r / (p + r) if p + r else 0.0


_INLINE = {"a", "b", "i", "em", "strong", "span", "code", "sup", "sub", "abbr", "small"}


def html_text(html: str) -> str:
    """Text of an HTML document, blocks apart: every text node in document
    order, a space at the start of every element but the inline ones."""
    root = html5lib.parse(html, treebuilder="etree", namespaceHTMLElements=False)
    out: list[str] = []

    def walk(el) -> None:
        tag = el.tag
        if isinstance(tag, str) and tag != "<!DOCTYPE>":
            if tag not in _INLINE:
                out.append(" ")
            if el.text:
                out.append(el.text)
            for child in el:
                walk(child)
        if el.tail:
            out.append(el.tail)

    walk(root)
    return "".join(out)


def markdown_visible_text(md: str) -> str:
    """Link text without its destination, no images, no emphasis markers or
    backslash escapes."""
    return _visible(list(md))


def _visible(chars: list[str]) -> str:
    out: list[str] = []
    i, n = 0, len(chars)
    while i < n:
        c = chars[i]
        if c == "\\" and i + 1 < n and chars[i + 1] in _PUNCT:
            out.append(chars[i + 1])
            i += 2
        elif c == "!" and i + 1 < n and chars[i + 1] == "[":
            link = _skip_link(chars, i + 1)
            if link is None:
                out.append(c)
                i += 1
            else:
                i = link[1]
        elif c == "[":
            link = _skip_link(chars, i)
            if link is None:
                out.append(c)
                i += 1
            else:
                out.append(_visible(chars[i + 1 : link[0]]))
                i = link[1]
        elif c in "*`~|":
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _skip_link(chars: list[str], open_: int):
    """`[text](dest)` starting at `open_`: the index of `]` and one past `)`."""
    text_end = _closing(chars, open_, "[", "]", 0, False)
    if text_end is None or text_end + 1 >= len(chars) or chars[text_end + 1] != "(":
        return None
    end = _closing(chars, text_end + 2, "(", ")", 1, True)
    return None if end is None else (text_end, end + 1)


def _closing(chars: list[str], j: int, open_c: str, close_c: str, depth: int, line: bool):
    """The index of the `close_c` that brings `depth` to 0 from `j` on,
    backslash escapes skipped; None at the end (or, with `line`, at a newline)."""
    while j < len(chars):
        c = chars[j]
        if c == "\\":
            j += 1
        elif c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return j
        elif line and c == "\n":
            return None
        j += 1
    return None


class Truth:
    """A corpus page's ground truth, read once."""

    def __init__(self, corpus: Path, page: dict):
        self.set = page["set"]
        d = corpus / page["dir"]
        if self.set == "aeb":
            self.text = _json(d / "expected.json").get("articleBody") or ""
        elif self.set == "readability":
            raw = (d / "readability-expected.html").read_bytes()
            self.text = html_text(raw.decode("utf-8", "replace"))
        elif self.set == "trafilatura":
            truth = _json(d / "expected.json")
            strs = lambda k: [s for s in (truth.get(k) or []) if isinstance(s, str)]  # noqa: E731
            self.with_, self.without = strs("with"), strs("without")

    def judge(self, output: str):
        """A ShingleMatch (AEB, Readability) or SnippetCounts (trafilatura)
        of `output`, the extracted text."""
        if self.set == "trafilatura":
            return SnippetCounts.of(output, self.with_, self.without)
        return ShingleMatch.of(self.text, output)


def _json(path: Path) -> dict:
    try:
        v = json.loads(path.read_bytes())
    except ValueError:
        return {}
    return v if isinstance(v, dict) else {}
