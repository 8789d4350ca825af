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

export class Page {
  constructor(html: string | Buffer, options?: { url?: string; contentType?: string });
  readonly url: string;
  view(name: string, options?: Record<string, unknown>): Envelope;
  /** Print the page's element tree with selector labels and text previews. */
  outline(options?: {
    /** CSS selectors to leave out, with their subtrees */
    exclude?: Array<string>;
    /** A task: parts it names kept first */
    focus?: string;
    /** Levels below <body> (a wrapper chain is one) */
    maxDepth?: number;
    /** Token budget */
    maxTokens?: number;
  }): Envelope;
  /** Print the outerHTML of an element picked from an outline, snapshot or CNT. */
  chunk(options?: {
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
  }): Envelope;
  /** Print the page's accessibility snapshot (Playwright's YAML), cut to a budget. */
  snapshot(options?: {
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
  }): Envelope;
  /** Find elements in the page's accessibility snapshot by text or /regex/. */
  find(options?: {
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
  }): Envelope;
  /** Convert a page to Markdown, relative links resolved, paged by lines. */
  markdown(options?: {
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
  }): Envelope;
  /** Print the page as a compressed node tree (CNT) that fits a token budget. */
  cnt(options?: {
    /** A node or marker id to open, e.g. "61" or "12.3-97" */
    expand?: string;
    /** A task: controls it names first */
    focus?: string;
    /** Token budget */
    maxTokens?: number;
  }): Envelope;
  /** List the page's links: text, absolute URL and landmark, main content first. */
  links(options?: {
    /** URL that relative links resolve against (default: the page's) */
    baseUrl?: string;
    /** Token budget */
    maxTokens?: number;
    /** First link to show (1-based) */
    startLine?: number;
  }): Envelope;
}

export const VIEWS: Array<{ name: string; method: string; about: string; options: Record<string, unknown>; session: string }>;

export function fetch(url: string): Page;
