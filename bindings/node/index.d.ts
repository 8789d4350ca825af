// The package's types, written by dts.mjs from the views: do not edit.

export class WebfoldError extends Error {}

export interface Envelope {
  view: string;
  text: string;
  tokens: number;
  maxTokens?: number;
  cut: boolean;
  note?: string;
  hints: Array<Record<string, unknown>>;
  url?: string;
  version?: number;
  data: Record<string, unknown>;
}

/** How to read a page: its address, and the Content-Type it came with (for bytes). */
export interface PageOptions {
  url?: string;
  contentType?: string;
}

export interface OutlineOptions {
  /** CSS selectors to leave out, with their subtrees */
  exclude?: Array<string>;
  /** A task: parts it names kept first */
  focus?: string;
  /** Levels below <body> (a wrapper chain is one) */
  maxDepth?: number;
  /** Token budget */
  maxTokens?: number;
}

export interface ChunkOptions {
  /** Every match of the selector, not just the first */
  all?: boolean;
  /** Node id from an outline (@N) or CNT */
  id?: number;
  /** Token budget; larger subtrees fold into placeholders */
  maxTokens?: number;
  /** Snapshot ref, e.g. "e12" */
  ref?: string;
  /** CSS selector (first match), e.g. "section.hero" */
  selector?: string;
}

export interface SnapshotOptions {
  /** Only changes since the last snapshot */
  diff?: boolean;
  /** A task: what it names ranks first */
  focus?: string;
  /** Everything, no limits */
  fullSnapshot?: boolean;
  /** Show navigation breadcrumbs */
  includeHistory?: boolean;
  /** Only interactive elements (with headings and live regions) */
  interactiveOnly?: boolean;
  /** Elements kept at most */
  maxElements?: number;
  /** Token budget */
  maxTokens?: number;
  /** ai (with refs) or aria */
  mode?: "aria" | "ai";
  /** Only this ref's subtree */
  ref?: string;
  /** Only this CSS selector's subtree */
  selector?: string;
  /** Only elements in the viewport (live pages) */
  viewportOnly?: boolean;
}

export interface FindOptions {
  /** A task: matches it names first */
  focus?: string;
  /** Snapshot lines shown per match */
  lines?: number;
  /** Matches shown at most */
  maxMatches?: number;
  /** Token budget */
  maxTokens?: number;
  /** ai (with refs) or aria */
  mode?: "aria" | "ai";
  /** Text (case-insensitive) or /regex/ to find in names, values, text and URLs */
  query?: string;
}

export interface MarkdownOptions {
  /** URL that relative links resolve against (default: the page's) */
  baseUrl?: string;
  /** How a fetched body is shown. */
  format?: "markdown" | "raw" | "base64";
  /** Only the main content (the article under its title, byline and date) */
  main?: boolean;
  /** Lines per page; 0 shows all */
  maxLines?: number;
  /** Token budget */
  maxTokens?: number;
  /** Only this CSS selector's first match */
  selector?: string;
  /** First line to show (1-based) */
  startLine?: number;
}

export interface CntOptions {
  /** A node or marker id to open, e.g. "61" or "12.3-97" */
  expand?: string;
  /** A task: controls it names first */
  focus?: string;
  /** Token budget */
  maxTokens?: number;
}

export interface LinksOptions {
  /** URL that relative links resolve against (default: the page's) */
  baseUrl?: string;
  /** Token budget */
  maxTokens?: number;
  /** First link to show (1-based) */
  startLine?: number;
}

export class Page {
  constructor(html: string | Buffer, options?: PageOptions);
  readonly url: string;
  view(name: string, options?: Record<string, unknown>): Envelope;
  /** Print the page's element tree with selector labels and text previews. */
  outline(options?: OutlineOptions): Envelope;
  /** Print the outerHTML of an element picked from an outline, snapshot or CNT. */
  chunk(options?: ChunkOptions): Envelope;
  /** Print the page's accessibility snapshot (Playwright's YAML), cut to a budget. */
  snapshot(options?: SnapshotOptions): Envelope;
  /** Find elements in the page's accessibility snapshot by text or /regex/. */
  find(options?: FindOptions): Envelope;
  /** Convert a page to Markdown, relative links resolved, paged by lines. */
  markdown(options?: MarkdownOptions): Envelope;
  /** Print the page as a compressed node tree (CNT) that fits a token budget. */
  cnt(options?: CntOptions): Envelope;
  /** List the page's links: text, absolute URL and landmark, main content first. */
  links(options?: LinksOptions): Envelope;
}

export const VIEWS: Array<{ name: string; method: string; about: string; options: Record<string, unknown>; session: string }>;

export function fetch(url: string): Page;

/** The view `name` of `html`, parsed for this call alone: a loop over many pages holds one at a time. */
export function view(name: string, html: string | Buffer, options?: PageOptions & Record<string, unknown>): Envelope;

/** Print the page's element tree with selector labels and text previews; `html` is parsed for this call alone. */
export function outline(html: string | Buffer, options?: PageOptions & OutlineOptions): Envelope;

/** Print the outerHTML of an element picked from an outline, snapshot or CNT; `html` is parsed for this call alone. */
export function chunk(html: string | Buffer, options?: PageOptions & ChunkOptions): Envelope;

/** Print the page's accessibility snapshot (Playwright's YAML), cut to a budget; `html` is parsed for this call alone. */
export function snapshot(html: string | Buffer, options?: PageOptions & SnapshotOptions): Envelope;

/** Find elements in the page's accessibility snapshot by text or /regex/; `html` is parsed for this call alone. */
export function find(html: string | Buffer, options?: PageOptions & FindOptions): Envelope;

/** Convert a page to Markdown, relative links resolved, paged by lines; `html` is parsed for this call alone. */
export function markdown(html: string | Buffer, options?: PageOptions & MarkdownOptions): Envelope;

/** Print the page as a compressed node tree (CNT) that fits a token budget; `html` is parsed for this call alone. */
export function cnt(html: string | Buffer, options?: PageOptions & CntOptions): Envelope;

/** List the page's links: text, absolute URL and landmark, main content first; `html` is parsed for this call alone. */
export function links(html: string | Buffer, options?: PageOptions & LinksOptions): Envelope;
