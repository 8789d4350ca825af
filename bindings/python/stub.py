"""Writes the package's type stub (python/webfold/__init__.pyi) from the
installed package's views: one method per view, its options as keyword
arguments with their types and defaults. Run it with the package
installed; the tests check the committed stub is what it writes."""

import sys
from pathlib import Path

import webfold

TYPES = {"integer": "int", "boolean": "bool", "string": "str", "number": "float"}


def annotation(spec):
    kinds = spec.get("type")
    if isinstance(kinds, list):
        names = [TYPES.get(k, "Any") for k in kinds if k != "null"]
        return " | ".join(names) + (" | None" if "null" in kinds else "")
    if "enum" in spec:
        return "Literal[" + ", ".join(repr(v) for v in spec["enum"]) + "]"
    return TYPES.get(kinds, "Any")


def options(schema):
    """A view's options as keyword parameters, each optional."""
    return [f"{opt}: {annotation(spec)} | None = None" for opt, spec in schema.get("properties", {}).items()]


def method(name, about, schema):
    params = ["self", "*", *options(schema)]
    lines = [f"    def {name}({', '.join(params)}) -> Envelope:", f'        """{about}."""', "        ..."]
    return "\n".join(lines)


def function(name, about, schema):
    params = ["html: str | bytes", "url: Optional[str] = None", "content_type: Optional[str] = None", "*", *options(schema)]
    lines = [f"def {name}({', '.join(params)}) -> Envelope:", f'    """{about}; `html` is parsed for this call alone."""', "    ..."]
    return "\n".join(lines)


def stub():
    head = '''# The package's types, written by stub.py from the views: do not edit.
from typing import Any, Dict, List, Literal, Optional

__version__: str
VIEWS: List[tuple]

class WebfoldError(Exception): ...

class Envelope:
    view: str
    text: str
    @property
    def tokens(self) -> int: ...
    max_tokens: Optional[int]
    cut: bool
    note: Optional[str]
    hints: List[Dict[str, Any]]
    url: Optional[str]
    version: Optional[int]
    data: Dict[str, Any]

class Page:
    def __init__(self, html: str | bytes, url: Optional[str] = None, content_type: Optional[str] = None) -> None: ...
    @property
    def url(self) -> str: ...
    def view(self, name: str, **options: Any) -> Envelope: ...
'''
    methods = "\n".join(method(n, a, s) for n, a, s, _ in webfold.VIEWS)
    functions = "\n\n".join(function(n, a, s) for n, a, s, _ in webfold.VIEWS)
    one = (
        "\n\ndef view(name: str, html: str | bytes, url: Optional[str] = None,"
        " content_type: Optional[str] = None, **options: Any) -> Envelope: ...\n\n"
    )
    return head + methods + "\n\ndef fetch(url: str) -> Page: ..." + one + functions + "\n" + BATCH


BATCH = '''
FOLDED_FIELDS: tuple

def fold_batch(batch: Dict[str, Any]) -> Dict[str, Any]:
    """Folds a batch of pages (columns html, url, content_type, content_language) as `webfold batch` does."""
    ...

class WarcPages:
    skipped: List[str]
    def __iter__(self) -> "WarcPages": ...
    def __next__(self) -> Dict[str, Any]: ...

def read_warc(path: Any) -> WarcPages:
    """Iterates a WARC file's pages as dicts: url, html, content_type, content_language."""
    ...
'''


if __name__ == "__main__":
    out = Path(__file__).resolve().parent / "python" / "webfold" / "__init__.pyi"
    out.write_text(stub())
    sys.stdout.write(f"wrote {out}\n")
