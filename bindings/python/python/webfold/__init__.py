"""Fold a web page into a small, token-budgeted view an LLM agent can read.

``Page(html, url=None)`` parses a page once; each view is a method of it
(``page.snapshot(max_tokens=4000)``, ``page.markdown()``, ``page.chunk(selector="main")``),
with the options, defaults and limits of the ``webfold`` command, returning
an :class:`Envelope` whose ``text`` is what the command prints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from . import _webfold
from ._webfold import WebfoldError

__version__ = _webfold.__version__
__all__ = ["Page", "Envelope", "WebfoldError", "fetch", "view", "fold_batch", "read_warc", "FOLDED_FIELDS", "VIEWS"]

# The envelope's own fields; everything else a view returns is its data.
_FIELDS = ("view", "text", "tokens", "max_tokens", "cut", "note", "hints", "url", "version")


@dataclass(frozen=True)
class Envelope:
    """What every view returns: the text a model reads, its exact tokens,
    the budget it was held to, whether anything was cut and how to get it,
    and the view's own structured data."""

    view: str
    text: str
    max_tokens: Optional[int] = None
    cut: bool = False
    note: Optional[str] = None
    hints: List[Dict[str, Any]] = field(default_factory=list)
    url: Optional[str] = None
    version: Optional[int] = None
    data: Dict[str, Any] = field(default_factory=dict)
    # The count, or the native envelope that counts it when first read: a
    # caller that wants the text alone never pays for a count.
    _tokens: Any = field(default=None, repr=False, compare=False)

    @property
    def tokens(self) -> int:
        """Exact tokens of ``text``."""
        n = self._tokens
        if not isinstance(n, int):
            n = n.tokens
            object.__setattr__(self, "_tokens", n)
        return n

    def __str__(self) -> str:
        return self.text

    @classmethod
    def _from_native(cls, native: Any) -> "Envelope":
        raw = json.loads(native.rest)
        own = {k: raw.pop(k) for k in _FIELDS if k in raw}
        return cls(**own, text=native.text, data=raw, _tokens=native)


class Page:
    """A page, parsed once. Every view of webfold is a method of it."""

    def __init__(self, html: "str | bytes", url: Optional[str] = None, content_type: Optional[str] = None):
        self._page = _webfold.Page(html, url, content_type)

    @property
    def url(self) -> str:
        return self._page.url

    def view(self, name: str, **options: Any) -> Envelope:
        """Runs the view ``name`` (as ``webfold NAME`` on the command line) with ``options``."""
        return Envelope._from_native(self._page.view(name, options))


def _method(name: str, about: str, schema: Dict[str, Any]) -> Callable[..., Envelope]:
    def run(self: Page, **options: Any) -> Envelope:
        return self.view(name, **options)

    lines = [about + "."]
    props = schema.get("properties", {})
    if props:
        lines += ["", "Options:"]
        for opt, spec in props.items():
            doc = spec.get("description", "").replace("\n", " ")
            default = f" (default {spec['default']!r})" if "default" in spec else ""
            lines.append(f"    {opt}: {doc}{default}")
    run.__name__ = name
    run.__qualname__ = f"Page.{name}"
    run.__doc__ = "\n".join(lines)
    return run


#: Every view: its method name, what it shows, its options' JSON Schema, and
#: whether it keeps the page's snapshot session ("none", "reads", "moves").
VIEWS: List[tuple] = [(n, a, json.loads(s), u) for n, a, s, u in _webfold.views()]


def view(name: str, html: "str | bytes", url: Optional[str] = None, content_type: Optional[str] = None, **options: Any) -> Envelope:
    """The view ``name`` of ``html``, parsed for this call alone: ``Page(html).view(name, **options)``."""
    return Page(html, url=url, content_type=content_type).view(name, **options)


def _function(name: str, method: Callable[..., Envelope]) -> Callable[..., Envelope]:
    def run(html: "str | bytes", url: Optional[str] = None, content_type: Optional[str] = None, **options: Any) -> Envelope:
        return view(name, html, url=url, content_type=content_type, **options)

    run.__name__ = run.__qualname__ = name
    run.__doc__ = f"{method.__doc__}\n\n``html`` is parsed for this call alone; for more views of one page, make a ``Page``."
    return run


for _name, _about, _schema, _ in VIEWS:
    setattr(Page, _name, _method(_name, _about, _schema))
    globals()[_name] = _function(_name, getattr(Page, _name))
    __all__.append(_name)


def fetch(url: str) -> Page:
    """Fetches ``url`` and parses it: the page, known by its address after redirects."""
    body, content_type, final_url = _webfold.fetch(url)
    return Page(body, url=final_url, content_type=content_type)


#: The fields of each folded page: the columns ``fold_batch`` returns, the
#: keys of each line ``webfold batch`` writes.
FOLDED_FIELDS = tuple(_webfold.FOLDED_FIELDS)


def fold_batch(batch: Dict[str, Any]) -> Dict[str, Any]:
    """Folds a batch of pages into their main content, as ``webfold batch`` does.

    ``batch`` is a dict of columns, as Ray Data's ``map_batches`` passes it:
    ``html`` (bytes or str), optionally ``url``, ``content_type`` and
    ``content_language``. Returns a dict of columns named by
    ``FOLDED_FIELDS``, one row per page; pages that are not HTML are left
    out, each named in a warning on the ``webfold`` logger. Columns come back as numpy arrays when ``html`` came as one, else
    as lists. The GIL is released while pages fold.
    """
    out = _webfold.fold_batch(batch)
    if type(batch.get("html")).__module__ == "numpy":
        import numpy as np

        return {k: _array(np, v) for k, v in out.items()}
    return out


def _array(np: Any, values: List[Any]) -> Any:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def read_warc(path: "str | Any") -> "Any":
    """Iterates the pages of a WARC file (plain or gzip, WARC/1.0 or 1.1) as
    dicts with ``url``, ``html`` (bytes), ``content_type`` and
    ``content_language``: the input ``fold_batch`` takes. Records holding no
    page (requests, metadata) are passed over; broken or non-HTML ones are
    listed, with where and why, in the iterator's ``skipped``."""
    return _webfold.read_warc(str(path))
