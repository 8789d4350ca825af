# The package's types, written by stub.py from the views: do not edit.
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
    def outline(self, *, exclude: Any | None = None, focus: str | None = None, max_depth: int | None = None, max_tokens: int | None = None) -> Envelope:
        """Print the page's element tree with selector labels and text previews."""
        ...
    def chunk(self, *, all: bool | None = None, id: int | None = None, max_tokens: int | None = None, ref: str | None = None, selector: str | None = None) -> Envelope:
        """Print the outerHTML of an element picked from an outline, snapshot or CNT."""
        ...
    def snapshot(self, *, diff: bool | None = None, focus: str | None = None, full_snapshot: bool | None = None, include_history: bool | None = None, interactive_only: bool | None = None, max_elements: int | None = None, max_tokens: int | None = None, mode: Literal['aria', 'ai'] | None = None, ref: str | None = None, selector: str | None = None, viewport_only: bool | None = None) -> Envelope:
        """Print the page's accessibility snapshot (Playwright's YAML), cut to a budget."""
        ...
    def find(self, *, focus: str | None = None, lines: int | None = None, max_matches: int | None = None, max_tokens: int | None = None, mode: Literal['aria', 'ai'] | None = None, query: str | None = None) -> Envelope:
        """Find elements in the page's accessibility snapshot by text or /regex/."""
        ...
    def markdown(self, *, base_url: str | None = None, format: Literal['markdown', 'raw', 'base64'] | None = None, main: bool | None = None, max_lines: int | None = None, max_tokens: int | None = None, selector: str | None = None, start_line: int | None = None) -> Envelope:
        """Convert a page to Markdown, relative links resolved, paged by lines."""
        ...
    def cnt(self, *, expand: str | None = None, focus: str | None = None, max_tokens: int | None = None) -> Envelope:
        """Print the page as a compressed node tree (CNT) that fits a token budget."""
        ...
    def links(self, *, base_url: str | None = None, max_tokens: int | None = None, start_line: int | None = None) -> Envelope:
        """List the page's links: text, absolute URL and landmark, main content first."""
        ...

def fetch(url: str) -> Page: ...

def view(name: str, html: str | bytes, url: Optional[str] = None, content_type: Optional[str] = None, **options: Any) -> Envelope: ...

def outline(html: str | bytes, url: Optional[str] = None, content_type: Optional[str] = None, *, exclude: Any | None = None, focus: str | None = None, max_depth: int | None = None, max_tokens: int | None = None) -> Envelope:
    """Print the page's element tree with selector labels and text previews; `html` is parsed for this call alone."""
    ...

def chunk(html: str | bytes, url: Optional[str] = None, content_type: Optional[str] = None, *, all: bool | None = None, id: int | None = None, max_tokens: int | None = None, ref: str | None = None, selector: str | None = None) -> Envelope:
    """Print the outerHTML of an element picked from an outline, snapshot or CNT; `html` is parsed for this call alone."""
    ...

def snapshot(html: str | bytes, url: Optional[str] = None, content_type: Optional[str] = None, *, diff: bool | None = None, focus: str | None = None, full_snapshot: bool | None = None, include_history: bool | None = None, interactive_only: bool | None = None, max_elements: int | None = None, max_tokens: int | None = None, mode: Literal['aria', 'ai'] | None = None, ref: str | None = None, selector: str | None = None, viewport_only: bool | None = None) -> Envelope:
    """Print the page's accessibility snapshot (Playwright's YAML), cut to a budget; `html` is parsed for this call alone."""
    ...

def find(html: str | bytes, url: Optional[str] = None, content_type: Optional[str] = None, *, focus: str | None = None, lines: int | None = None, max_matches: int | None = None, max_tokens: int | None = None, mode: Literal['aria', 'ai'] | None = None, query: str | None = None) -> Envelope:
    """Find elements in the page's accessibility snapshot by text or /regex/; `html` is parsed for this call alone."""
    ...

def markdown(html: str | bytes, url: Optional[str] = None, content_type: Optional[str] = None, *, base_url: str | None = None, format: Literal['markdown', 'raw', 'base64'] | None = None, main: bool | None = None, max_lines: int | None = None, max_tokens: int | None = None, selector: str | None = None, start_line: int | None = None) -> Envelope:
    """Convert a page to Markdown, relative links resolved, paged by lines; `html` is parsed for this call alone."""
    ...

def cnt(html: str | bytes, url: Optional[str] = None, content_type: Optional[str] = None, *, expand: str | None = None, focus: str | None = None, max_tokens: int | None = None) -> Envelope:
    """Print the page as a compressed node tree (CNT) that fits a token budget; `html` is parsed for this call alone."""
    ...

def links(html: str | bytes, url: Optional[str] = None, content_type: Optional[str] = None, *, base_url: str | None = None, max_tokens: int | None = None, start_line: int | None = None) -> Envelope:
    """List the page's links: text, absolute URL and landmark, main content first; `html` is parsed for this call alone."""
    ...

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
