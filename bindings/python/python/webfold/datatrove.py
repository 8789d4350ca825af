"""A datatrove extractor step folding each document's HTML to its main
content as Markdown, as ``webfold batch`` does::

    from webfold.datatrove import WebfoldExtractor
    pipeline = [WarcReader("crawl/"), WebfoldExtractor(), JsonlWriter("out/")]

datatrove is imported when this module is, so the package itself does not
depend on it.
"""

from __future__ import annotations

from typing import Optional

from datatrove.data import DocumentsPipeline
from datatrove.pipeline.extractors.base import BaseExtractor
from datatrove.utils.typeshelper import StatHints

from . import _webfold

__all__ = ["WebfoldExtractor"]


class WebfoldExtractor(BaseExtractor):
    """Replaces each document's text (its HTML) by its main content as
    Markdown, with links absolute against the document's ``url`` metadata;
    adds ``title``, ``byline``, ``date``, ``language``, ``tokens``,
    ``main_chars``, ``page_chars`` and ``fallback`` to its metadata. A document that is not HTML is dropped.

    webfold's extraction is linear in the page and never hangs, so documents
    fold in this process (the GIL released), not in datatrove's per-document
    sandbox process; ``timeout`` is accepted for compatibility only."""

    name = "🪶 webfold"
    _requires_dependencies = []

    def __init__(self, timeout: float = 1):
        super().__init__(timeout)

    def extract(self, text: str, url: Optional[str] = None) -> str:
        """The main content of the page ``text`` as Markdown ("" if not a page)."""
        return self._fold(text, url).get("markdown", "")

    @staticmethod
    def _fold(text: str, url: Optional[str]) -> dict:
        out = _webfold.fold_batch({"html": [text], "url": [url]})
        if not out["markdown"]:
            return {}
        return {k: v[0] for k, v in out.items()}

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        for doc in data:
            self.stat_update(StatHints.total)
            with self.track_time():
                folded = self._fold(doc.text, doc.metadata.get("url"))
            if not folded.get("markdown"):
                self.stat_update(StatHints.dropped)
                continue
            doc.text = folded.pop("markdown")
            folded.pop("url", None)
            doc.metadata.update(folded)
            self.stat_update("extracted")
            self.stat_update(StatHints.forwarded)
            self.update_doc_stats(doc)
            yield doc
