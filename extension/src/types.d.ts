// Shapes shared by the extension's pieces. Ambient (no imports), so the
// content script stays a classic script.

/** A box in the viewport's CSS pixels. */
interface WfBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The `set_context` payload, exactly as the daemon's schema has it. */
interface WfSelection {
  element: {
    tagName: string;
    id?: string;
    classList: string[];
    textContent: string;
    attributes: Record<string, string>;
    boundingBox: WfBox;
  };
  ancestors: Array<{ tagName: string; classList: string[]; id?: string }>;
  children?: Array<{ tagName: string; classList: string[]; textContent?: string }>;
  page: { url: string; title: string };
  screenshot?: string;
  selector?: string;
  html?: string;
  dom?: WfDomCapture;
}

/** The page as facts (the daemon's `DomCapture`): nodes parents first; `p` 0 is the document, i + 1 is nodes[i]. */
interface WfDomCapture {
  viewport: { width: number; height: number; scrollX: number; scrollY: number };
  nodes: WfDomNode[];
}

interface WfDomNode {
  p: number;
  /** Node type: 1 element, 3 text, 8 comment, 10 doctype. */
  k: 1 | 3 | 8 | 10;
  n?: string;
  ns?: string;
  a?: string[];
  t?: string;
  l?: WfDomLayout;
}

/** Box (page coordinates), visibility, display, cursor, pointer-events none, ::before / ::after. */
interface WfDomLayout {
  b?: [number, number, number, number];
  r: boolean;
  d?: string;
  c?: string;
  x?: boolean;
  bf?: [string, string];
  af?: [string, string];
}

/** Content script → service worker. */
type WfFromPage =
  | { kind: "picked"; selection: WfSelection; htmlOmitted?: string }
  | { kind: "pick_cancelled" };

/** Service worker → content script. */
type WfToPage =
  | { kind: "start_pick" }
  | { kind: "stop_pick" }
  | { kind: "recapture"; selector: string }
  | { kind: "get_html"; selector?: string }
  | { kind: "highlight"; selector: string | null };

/** The answer to `get_html`: the page's current HTML, or why not. */
type WfLiveHtml = { html?: string; matches?: number; url?: string; error?: string };

/** The answer to `recapture`. */
type WfRecaptured = { selection?: WfSelection; htmlOmitted?: string; error?: string };

interface WfAgent {
  agentId: string;
  project: string;
  client: string;
  /** The daemon's own agent (a model it calls): `client` names it, there is no project. */
  builtIn?: boolean;
}

/** The built-in agent's structured answer (`agent_response.result`): changes proposed, not applied. */
interface WfAgentResult {
  domChanges: unknown;
  action: unknown;
  iterations: number;
  inputTokens: number;
  outputTokens: number;
  fallback?: string;
}

interface WfChatEntry {
  role: "user" | "assistant";
  text: string;
  contextId?: string;
  /** An answer still streaming (false) or done. */
  complete?: boolean;
  /** For user messages: stored by the daemon for this agent. */
  deliveredTo?: string;
  error?: string;
  /** For the built-in agent's answers. */
  result?: WfAgentResult;
  at: number;
}

/** One controlled tab, as the service worker keeps it (chrome.storage.session). */
interface WfTab {
  tabId: number;
  sessionId: string;
  contextId?: string;
  selection?: { selector?: string; tagName: string; text: string; url: string; title: string };
  picking: boolean;
  chat: WfChatEntry[];
  status?: { status: string; detail?: string };
  agents: WfAgent[];
  selected?: string;
  /** The last thing that went wrong for this tab, said for the user. */
  problem?: string;
}

type WfConn = "unpaired" | "connecting" | "open" | "down" | "unauthorized";

/** Service worker → side panel. */
interface WfView {
  kind: "view";
  tab: WfTab | null;
  conn: WfConn;
  /** What the connection indicator says. */
  detail: string;
  daemon?: string;
  /** A problem that has no tab to keep it. */
  problem?: string;
}

/** Side panel → service worker. */
type WfFromPanel =
  | { kind: "watch"; tabId: number }
  | { kind: "pair"; text: string }
  | { kind: "pick" }
  | { kind: "cancel_pick" }
  | { kind: "refresh" }
  | { kind: "send"; message: string }
  | { kind: "select_agent"; agentId: string }
  | { kind: "get_view"; view: WfViewKind }
  | { kind: "highlight"; selector: string | null };

type WfViewKind = "cnt" | "outline";

/** A view of the tab's captured page, as the daemon made it (`view` frame). */
interface WfPageView {
  kind: "page_view";
  requestId: string;
  view: WfViewKind;
  tokens: number;
  url?: string;
  lines: Array<{ text: string; selector?: string; tokens?: number }>;
  error?: string;
}

/** Service worker → side panel, besides views. */
type WfToPanel = WfView | WfPageView | { kind: "pair_result"; error?: string };
