// The chatter protocol's frames, generated from webfold-protocol's Rust
// types: do not edit. Regenerate with
// UPDATE_GOLDEN=1 cargo test -p webfold-protocol --test generated

declare namespace WfProtocol {

  export interface AgentInfo {
    agentId: string;
    /**
     * The daemon's own agent (a model it calls), not a coding agent: it
     * has no project.
     */
    builtIn?: boolean;
    /**
     * The agent's client, as it named itself (e.g. "claude-code"); for the
     * built-in agent, its name with the provider and model.
     */
    client: string;
    /** The project directory the agent works in. */
    project: string;
  }

  export interface AgentResponse {
    contextId: string;
    isComplete: boolean;
    /** Markdown. */
    message: string;
    /** The user message this answers (`message_stored`'s `messageId`). */
    messageId: string;
    /** The built-in agent's structured answer, beside its words. */
    result?: AgentResult;
  }

  export interface AgentResponseChunk {
    chunk: string;
    contextId: string;
    /** The user message this answers (`message_stored`'s `messageId`). */
    messageId: string;
  }

  /**
   * What the built-in agent's run gave besides its reply: the changes it
   * proposes (shown, never applied to the page) and what the run cost.
   */
  export interface AgentResult {
    /** How to apply them (e.g. "append", "replace"), as the model said. */
    action: unknown;
    /** The DOM changes, as the model wrote them. */
    domChanges: unknown;
    /** Why the run sent the whole page instead of a view, when it did. */
    fallback?: string;
    /** Tokens over every call, as the provider counted them. */
    inputTokens: number;
    /** Model calls made. */
    iterations: number;
    outputTokens: number;
  }

  export interface Agents {
    agents: AgentInfo[];
    protocolVersion: number;
    /** The agent this tab talks to, when one is chosen. */
    selected?: string;
  }

  export interface Ancestor {
    classList: string[];
    id?: string;
    tagName: string;
  }

  /** An answer left open, closed by the daemon: no more parts will come. */
  export interface AnswerClosed {
    contextId: string;
    /** The answer's text as it stands (Markdown), unfinished. */
    message: string;
    /** The user message it answered. */
    messageId: string;
    reason: CloseReason;
  }

  export interface BoundingBox {
    height: number;
    width: number;
    x: number;
    y: number;
  }

  /** What the browser computed for one node. */
  export interface CapturedLayout {
    /** `::after` text and display. */
    af?: [string, string];
    /** Border box in page coordinates: x, y, width, height. */
    b?: [number, number, number, number];
    /** `::before` text and display. */
    bf?: [string, string];
    /** Computed `cursor` when not `auto`. */
    c?: string;
    /**
     * On a text node: the page's own hit test found an opaque box painted
     * over it.
     */
    cv?: boolean;
    /** Computed `display`. */
    d?: string;
    /** Computed `visibility` is `visible`. */
    r: boolean;
    /**
     * An element's computed styles that decide whether its text can be
     * seen; a text node takes its element's.
     */
    s?: CapturedPaint;
    /**
     * In the browser's top layer: a modal dialog, an open popover, a
     * fullscreen element.
     */
    tl?: boolean;
    /** Computed `pointer-events` is `none`. */
    x?: boolean;
  }

  /** One DOM node. */
  export interface CapturedNode {
    /**
     * Attributes as name, value, name, value, … with the live form state
     * (typed values, checked boxes, chosen options) written in.
     */
    a?: string[];
    /** The DOM node type: 1 element, 3 text, 8 comment, 10 doctype. */
    k: number;
    /**
     * The element's box, when it has one (absent for `display: none` and
     * `display: contents`); on a text node, present when its text renders.
     */
    l?: CapturedLayout;
    /** The element's local name, or the doctype's name. */
    n?: string;
    /** The element's namespace URL when it is not HTML (SVG, MathML). */
    ns?: string;
    /** The parent: 0 is the document, `i + 1` is `nodes[i]`. */
    p: number;
    /** A text or comment node's data. */
    t?: string;
  }

  /**
   * Computed styles as `getComputedStyle` writes them; an absent one is
   * CSS's initial value, so most elements send few.
   */
  export interface CapturedPaint {
    /** `background-color`. */
    bg?: string;
    /** `background-image` is not `none`. */
    bi?: boolean;
    /** `color`. */
    c?: string;
    /** `clip`. */
    cl?: string;
    /** `clip-path`. */
    cp?: string;
    /** `font-size`. */
    f?: string;
    /** `opacity`. */
    o?: string;
    /** `overflow-x` and `overflow-y`. */
    ov?: [string, string];
    /** `position`. */
    ps?: string;
  }

  /** The window at capture time, in CSS pixels. */
  export interface CapturedViewport {
    height: number;
    scrollX?: number;
    scrollY?: number;
    width: number;
  }

  export interface Child {
    classList: string[];
    tagName: string;
    textContent?: string;
  }

  /** What the extension sends. */
  export type ClientFrame = {
    payload: SetContext;
    type: "set_context";
  } | {
    payload: UserMessage;
    type: "user_message";
  } | {
    payload: SelectAgent;
    type: "select_agent";
  } | {
    type: "ping";
  } | {
    payload: HtmlReply;
    type: "html";
  } | {
    payload: GetView;
    type: "get_view";
  } | {
    payload: GetHistory;
    type: "get_history";
  };

  /** Why an answer was closed before it was complete. */
  export type CloseReason = "disconnected" | "superseded";

  export interface ComponentSource {
    /** The file that uses the component, when known. */
    file?: string;
    line?: number;
    name: string;
  }

  export interface ContextStored {
    contextId: string;
  }

  /** The extension's capture of one page. */
  export interface DomCapture {
    /**
     * Every node of the document but the document itself, each after its
     * parent.
     */
    nodes: CapturedNode[];
    viewport: CapturedViewport;
  }

  export interface Element {
    attributes: Record<string, string>;
    boundingBox: BoundingBox;
    classList: string[];
    id?: string;
    tagName: string;
    textContent: string;
  }

  export interface ErrorFrame {
    /**
     * A stable code: `bad_frame`, `unauthorized`, `too_large`, `unknown_context`,
     * `choose_agent`, `unknown_agent`, `storage`, `unknown_request`,
     * `agent_failed` (the built-in agent's run ended without an answer).
     */
    code: string;
    message: string;
  }

  export interface GetHistory {
    /** The latest messages to send, at most [`MAX_HISTORY`] (the default). */
    limit?: number;
  }

  export interface GetHtml {
    requestId: string;
    /**
     * A CSS selector that must match in the live page; without one, the
     * whole page is wanted (the built-in agent picks its chunk itself).
     */
    selector?: string;
  }

  export interface GetView {
    /** Echoed in the `view` answer. */
    requestId: string;
    /** The view's name, as the command line has it (`cnt`, `outline`, `links`, …). */
    view: string;
  }

  /**
   * The token, when it could not travel as a subprotocol: the first frame,
   * flat as pairing describes it: `{"type": "hello", "token": "…"}`.
   */
  export interface Hello {
    token: string;
    /** Always "hello". */
    type: string;
  }

  export interface History {
    /** Oldest first. */
    messages: HistoryMessage[];
  }

  /** A message of a tab's conversation. */
  export interface HistoryMessage {
    content: string;
    contextId?: string;
    /** A user message's id (what `respond_to_browser` answers). */
    messageId?: string;
    role: Role;
    /** Milliseconds since the Unix epoch. */
    timestamp: number;
  }

  export interface HostError {
    message: string;
  }

  /** The host's answer. */
  export type HostReply = {
    payload: Pairing;
    type: "paired";
  } | {
    payload: HostError;
    type: "error";
  };

  /** What the extension asks the host. */
  export type HostRequest = {
    type: "pair";
  };

  /** The tab's current HTML, read when the daemon asked (`get_html`). */
  export interface HtmlReply {
    /** Why there is no HTML (the selector matched nothing, or is invalid). */
    error?: string;
    /**
     * The page's whole current HTML (the extension's own marks left out),
     * when the selector matched.
     */
    html?: string;
    /** How many elements the selector matched in the live page. */
    matches?: number;
    /** The `requestId` of the `get_html` this answers. */
    requestId: string;
    /** The tab's address when it answered. */
    url?: string;
  }

  export interface MessageStored {
    agentId: string;
    contextId: string;
    /** The message's id: every frame of an answer to it names it. */
    messageId: string;
  }

  export interface MessageWaiting {
    contextId: string;
    /** The message's id, which the later `message_stored` names too. */
    messageId: string;
  }

  export interface PageInfo {
    title: string;
    url: string;
  }

  /**
   * What the extension needs to connect to the daemon: what `webfold pair
   * --json` prints, and the host's answer.
   */
  export interface Pairing {
    /** How the token travels: `subprotocol`. */
    auth: string;
    /** Whether a daemon answered when this was made. */
    daemon_running: boolean;
    /** The extension's own origin. */
    origin: string;
    /** Every extension origin the daemon admits. */
    origins: string[];
    /** The query parameter naming the tab's session. */
    session_param: string;
    /** The WebSocket subprotocol carrying the token. */
    subprotocol: string;
    /** 64 lowercase hex characters. */
    token: string;
    /** `ws://127.0.0.1:PORT/ws`; the tab's session goes in the query. */
    ws_url: string;
  }

  /**
   * Where the picked element is written in the page's source, and the
   * components around it.
   */
  export interface PickSource {
    column?: number;
    /**
     * The components around the element, innermost first, each with where
     * it is used.
     */
    components?: ComponentSource[];
    /** The file that writes the element (as the build names it). */
    file: string;
    /** `react`, `vue` or `svelte`. */
    framework: string;
    /** 1-based, when known. */
    line?: number;
  }

  export type Role = "user" | "assistant";

  export interface SelectAgent {
    agentId: string;
  }

  /** What the daemon sends. */
  export type ServerFrame = {
    payload: ContextStored;
    type: "context_stored";
  } | {
    payload: MessageStored;
    type: "message_stored";
  } | {
    payload: MessageWaiting;
    type: "message_waiting";
  } | {
    payload: StatusUpdate;
    type: "status_update";
  } | {
    payload: AgentResponse;
    type: "agent_response";
  } | {
    payload: AgentResponseChunk;
    type: "agent_response_chunk";
  } | {
    payload: AnswerClosed;
    type: "answer_closed";
  } | {
    payload: Agents;
    type: "agents";
  } | {
    payload: ErrorFrame;
    type: "error";
  } | {
    type: "pong";
  } | {
    payload: GetHtml;
    type: "get_html";
  } | {
    payload: ViewFrame;
    type: "view";
  } | {
    payload: History;
    type: "history";
  };

  /**
   * A pick as the extension sends it: the [`Pick`]'s fields, then the
   * screenshot and page inline.
   *
   * The one real difference from [`Pick`]: the fields are spelled out here
   * rather than flattened in, because a flattened field is read from a
   * buffered copy (the capture is megabytes) and its errors lose their path
   * (`payload.element.boundingBox.width`). [`SetContext::into_parts`] is the
   * only way the daemon reads it, and a test checks the two agree.
   */
  export interface SetContext {
    ancestors: Ancestor[];
    children?: Child[];
    /**
     * The page as the user sees it, with its layout (what is hidden, where
     * each element is): read instead of `html` when present.
     */
    dom?: DomCapture;
    element: Element;
    /** The page's HTML as the user sees it, so page views can read it. */
    html?: string;
    page: PageInfo;
    /** Base64 PNG of the visible tab (may be absent when the browser refused a capture). */
    screenshot?: string;
    /** A CSS selector that matches exactly the picked element. */
    selector?: string;
    /** The code that renders the element (development builds). */
    source?: PickSource;
  }

  export type Status = "idle" | "thinking" | "searching" | "editing";

  export interface StatusUpdate {
    detail?: string;
    status: Status;
  }

  export interface UserMessage {
    /** The agent to ask; without it, the tab's selected agent (or the only one). */
    agentId?: string;
    contextId: string;
    message: string;
  }

  export interface ViewFrame {
    /** Why there is no view (nothing captured yet, an unreadable capture). */
    error?: string;
    /** One line per node, in order. */
    lines: ViewLine[];
    requestId: string;
    /** Tokens (o200k) of the view's text, as an agent reads it. */
    tokens: number;
    /** The page the view was made from. */
    url?: string;
    /** The view's name, as asked. */
    view: string;
  }

  /**
   * A line of a view: its text (page content: show it as text only), the
   * element it stands for, and for the outline the tokens of its HTML.
   */
  export interface ViewLine {
    /** A CSS selector matching the line's element alone, in the captured page. */
    selector?: string;
    text: string;
    tokens?: number;
  }
}
