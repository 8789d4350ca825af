// Shapes shared by the extension's pieces. Ambient (no imports), so the
// content script stays a classic script.

// The protocol's shapes are generated from the daemon's Rust types
// (protocol.gen.d.ts, namespace WfProtocol); these names are what the
// extension's pieces call them.

/** The `set_context` payload. */
type WfSelection = WfProtocol.SetContext;

/** The page as facts (the daemon's `DomCapture`): nodes parents first; `p` 0 is the document, i + 1 is nodes[i]. */
type WfDomCapture = WfProtocol.DomCapture;
type WfDomNode = WfProtocol.CapturedNode;
type WfDomLayout = WfProtocol.CapturedLayout;

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

/** The answer to `get_html`: the page's current HTML, or why not (the `html` frame without its request id). */
type WfLiveHtml = Omit<WfProtocol.HtmlReply, "requestId">;

/** The answer to `recapture`. */
type WfRecaptured = { selection?: WfSelection; htmlOmitted?: string; error?: string };

type WfAgent = WfProtocol.AgentInfo;

/** The built-in agent's structured answer (`agent_response.result`): changes proposed, not applied. */
type WfAgentResult = WfProtocol.AgentResult;

interface WfChatEntry {
  role: "user" | "assistant";
  text: string;
  contextId?: string;
  /** The user message (its id from `message_stored`), or the message an answer answers. */
  messageId?: string;
  /** An answer still streaming (false) or done. */
  complete?: boolean;
  /** For an answer the daemon closed unfinished: why, for the user. */
  closed?: string;
  /** For user messages: stored by the daemon for this agent. */
  deliveredTo?: string;
  /** For user messages: stored, waiting for an agent to connect. */
  waiting?: boolean;
  error?: string;
  /** For the built-in agent's answers. */
  result?: WfAgentResult;
  /** Restored from the daemon's record (the panel had lost it). */
  earlier?: boolean;
  /** When it was sent or answered (ms since the epoch). */
  at: number;
}

/** One controlled tab, as the service worker keeps it (chrome.storage.session). */
interface WfTab {
  tabId: number;
  sessionId: string;
  contextId?: string;
  selection?: { selector?: string; tagName: string; text: string; url: string; title: string; source?: WfProtocol.PickSource };
  picking: boolean;
  chat: WfChatEntry[];
  status?: WfProtocol.StatusUpdate;
  agents: WfAgent[];
  selected?: string;
  /** The last thing that went wrong for this tab, said for the user. */
  problem?: string;
  /** The session was this page's before (a browser restart): its chat comes from the daemon. */
  restore?: boolean;
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
type WfPageView = WfProtocol.ViewFrame & { kind: "page_view" };

/** Service worker → side panel, besides views. */
type WfToPanel = WfView | WfPageView | { kind: "pair_result"; error?: string };
