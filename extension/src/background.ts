// The service worker: the only piece that talks to the daemon. A content
// script's WebSocket would carry the page's origin (and Chromium blocks it on
// public sites); this worker's carries chrome-extension://<our id>, the one
// origin the daemon admits.
//
// One socket per controlled tab (the daemon's session is a tab). While a
// socket is open the worker sends its own ping every 20 s, which keeps
// Chromium from stopping it after 30 s idle; a closed socket is reopened
// with backoff. Tab state lives in chrome.storage.session, so a restarted
// worker reconnects every tab it controlled.

import { parsePairing, type Pairing } from "./pairing.js";
import { pickSource } from "./source.js";

const KEEPALIVE_MS = 20_000;
const FIRST_RETRY_MS = 500;
/** Retries stay this close, so a daemon that is back is found at once (loopback costs nothing). */
const MAX_RETRY_MS = 2_000;
/** The native messaging host `webfold install-host` sets up: it starts the daemon and pairs. */
const HOST = "dev.webfold.host";
/** Least time between two calls to the host after it answered, and after it failed. */
const HOST_EVERY_MS = 1_500;
const HOST_AFTER_FAILURE_MS = 15_000;
/** Chat entries kept per tab (the daemon keeps the whole history). */
const MAX_CHAT_ENTRIES = 200;
/** Pages whose last session is remembered across browser restarts. */
const MAX_REMEMBERED = 100;
/** Longest wait for the code behind a pick (source maps to read). */
const SOURCE_WAIT_MS = 2_000;
/** The protocol version that answers `get_history`. */
const HISTORY_VERSION = 3;

interface Link {
  ws: WebSocket | null;
  conn: WfConn;
  detail: string;
  attempts: number;
  retry?: ReturnType<typeof setTimeout>;
  /** A selection waiting for the socket to open. */
  pending?: string;
  refused?: boolean;
  closing?: boolean;
}

const tabs = new Map<number, WfTab>();
const links = new Map<number, Link>();
const watchers = new Map<chrome.runtime.Port, number>();
let pairing: Pairing | undefined;
let keepalive: ReturnType<typeof setInterval> | undefined;
/** When the host may be asked again, the call in flight, and what it last said went wrong. */
let hostNext = 0;
let hostAsking: Promise<boolean> | undefined;
let hostProblem: string | undefined;

const ready = (async () => {
  const stored = await chrome.storage.local.get("pairing");
  pairing = stored.pairing as Pairing | undefined;
  if (!pairing) void askHost();
  const all = await chrome.storage.session.get(null);
  for (const [key, value] of Object.entries(all)) {
    if (!key.startsWith("tab:")) continue;
    const tab = value as WfTab;
    try {
      await chrome.tabs.get(tab.tabId);
    } catch {
      await chrome.storage.session.remove(key);
      continue;
    }
    tab.picking = false;
    tabs.set(tab.tabId, tab);
    connect(tab.tabId);
  }
})();

chrome.sidePanel?.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});

// ---- tab state ----

async function sessionId(tabId: number, url: string | undefined): Promise<string> {
  let origin = "null";
  try {
    if (url) origin = new URL(url).origin;
  } catch {
    // Keep "null".
  }
  const input = new TextEncoder().encode(`${tabId}\n${origin}\n${Date.now()}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", input));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A page's address as sessions are remembered by: without its fragment. */
function pageKey(url: string | undefined): string | undefined {
  try {
    const u = new URL(url ?? "");
    u.hash = "";
    return /^https?:$/.test(u.protocol) || u.protocol === "file:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

type Remembered = Record<string, { sessionId: string; at: number }>;

/**
 * The session this page had before, when no open tab holds it: session
 * state lives in chrome.storage.session, which a browser restart empties,
 * while the daemon keeps the conversation under the session's id.
 */
async function earlierSession(url: string | undefined): Promise<string | undefined> {
  const key = pageKey(url);
  if (!key) return undefined;
  const { sessions } = (await chrome.storage.local.get("sessions")) as { sessions?: Remembered };
  const id = sessions?.[key]?.sessionId;
  if (!id || [...tabs.values()].some((t) => t.sessionId === id)) return undefined;
  return id;
}

/** Remembers `tab`'s session for the page it is on now. */
async function remember(tab: WfTab, url: string | undefined) {
  const key = pageKey(url);
  if (!key) return;
  const { sessions = {} } = (await chrome.storage.local.get("sessions")) as { sessions?: Remembered };
  sessions[key] = { sessionId: tab.sessionId, at: Date.now() };
  const keys = Object.keys(sessions).sort((a, b) => sessions[b].at - sessions[a].at);
  for (const old of keys.slice(MAX_REMEMBERED)) delete sessions[old];
  await chrome.storage.local.set({ sessions }).catch(() => {});
}

async function tabState(tabId: number): Promise<WfTab> {
  await ready;
  let tab = tabs.get(tabId);
  if (!tab) {
    const info = await chrome.tabs.get(tabId);
    const earlier = await earlierSession(info.url);
    tab = {
      tabId,
      sessionId: earlier ?? (await sessionId(tabId, info.url)),
      picking: false,
      chat: [],
      agents: [],
      restore: earlier !== undefined,
    };
    // Another call may have made it while we hashed.
    tab = tabs.get(tabId) ?? tab;
    tabs.set(tabId, tab);
    save(tab);
    connect(tabId);
    void remember(tab, info.url);
  }
  return tab;
}

function save(tab: WfTab) {
  if (tab.chat.length > MAX_CHAT_ENTRIES) tab.chat.splice(0, tab.chat.length - MAX_CHAT_ENTRIES);
  chrome.storage.session.set({ [`tab:${tab.tabId}`]: tab }).catch(() => {});
  publish(tab.tabId);
}

function view(tabId: number): WfView {
  const tab = tabs.get(tabId) ?? null;
  const link = links.get(tabId);
  if (!pairing) {
    return {
      kind: "view",
      tab,
      conn: "unpaired",
      detail:
        "Not paired: run `webfold install-host` once and reopen this panel (it then pairs by itself), or run `webfold pair` and paste what it prints below.",
    };
  }
  return {
    kind: "view",
    tab,
    conn: link?.conn ?? "connecting",
    detail: link?.detail ?? "Connecting to the webfold daemon…",
    daemon: pairing.wsUrl,
  };
}

function publish(tabId: number) {
  const v = view(tabId);
  for (const [port, watched] of watchers) {
    if (watched === tabId) port.postMessage(v satisfies WfToPanel);
  }
}

function setBadge(tabId: number, on: boolean) {
  chrome.action.setBadgeText({ tabId, text: on ? "on" : "" }).catch(() => {});
  if (on) chrome.action.setBadgeBackgroundColor({ tabId, color: "#1a7f37" }).catch(() => {});
}

// ---- pairing ----

/** Connects every tab with `p`; tabs already connected with it stay as they are. */
async function usePairing(p: Pairing) {
  const same = pairing?.wsUrl === p.wsUrl && pairing?.token === p.token;
  pairing = p;
  if (!same) await chrome.storage.local.set({ pairing });
  for (const [tabId, link] of links) {
    if (same && (link.conn === "open" || link.conn === "connecting")) continue;
    if (same && link.refused) continue;
    link.closing = true;
    link.ws?.close(1000, "paired again");
    link.ws = null;
    link.attempts = 0;
    if (link.retry) clearTimeout(link.retry);
    connect(tabId);
  }
  for (const tabId of tabs.keys()) {
    connect(tabId);
    publish(tabId);
  }
}

/**
 * Asks the native host to start the daemon (when down) and to give the
 * pairing; false when there is no host (the user pastes instead) or it
 * failed. Calls are spaced: each may start a daemon.
 */
function askHost(): Promise<boolean> {
  if (hostAsking) return hostAsking;
  if (Date.now() < hostNext) return Promise.resolve(false);
  hostAsking = (async () => {
    let reply: WfProtocol.HostReply | undefined;
    try {
      const request: WfProtocol.HostRequest = { type: "pair" };
      reply = (await chrome.runtime.sendNativeMessage(HOST, request)) as WfProtocol.HostReply;
    } catch {
      // No host installed (or it crashed): pasting stays the way.
      reply = undefined;
    }
    const parsed = reply?.type === "paired" ? parsePairing(JSON.stringify(reply.payload)) : undefined;
    if (!parsed || "error" in parsed) {
      hostProblem = reply?.type === "error" ? reply.payload.message : undefined;
      hostNext = Date.now() + HOST_AFTER_FAILURE_MS;
      return false;
    }
    hostProblem = undefined;
    hostNext = Date.now() + HOST_EVERY_MS;
    await usePairing(parsed);
    return true;
  })().finally(() => {
    hostAsking = undefined;
  });
  return hostAsking;
}

// ---- the daemon ----

function daemonAddress(): string {
  return pairing ? pairing.wsUrl.replace(/^ws:\/\//, "").replace(/\/ws$/, "") : "";
}

function connect(tabId: number) {
  const tab = tabs.get(tabId);
  if (!tab || !pairing) return;
  const old = links.get(tabId);
  if (old?.ws && (old.ws.readyState === WebSocket.OPEN || old.ws.readyState === WebSocket.CONNECTING)) return;
  if (old?.retry) clearTimeout(old.retry);
  const link: Link = old ?? { ws: null, conn: "connecting", detail: "", attempts: 0 };
  link.retry = undefined;
  link.refused = false;
  link.closing = false;
  link.conn = "connecting";
  link.detail = `Connecting to the webfold daemon at ${daemonAddress()}…`;
  links.set(tabId, link);
  const { wsUrl, token } = pairing;
  let ws: WebSocket;
  try {
    ws = new WebSocket(`${wsUrl}?sessionId=${tab.sessionId}`);
  } catch (e) {
    link.conn = "down";
    link.detail = `Cannot open ${wsUrl}: ${String(e)}. Pair again with \`webfold pair\`.`;
    publish(tabId);
    return;
  }
  link.ws = ws;
  let opened = false;
  ws.onopen = () => {
    opened = true;
    // The token goes in the first frame, never in the URL.
    ws.send(JSON.stringify({ type: "hello", token }));
  };
  ws.onmessage = (ev) => {
    if (typeof ev.data === "string") onFrame(tabId, link, ev.data);
  };
  ws.onclose = (ev) => {
    if (link.ws !== ws) return;
    link.ws = null;
    updateKeepalive();
    setBadge(tabId, false);
    if (link.closing || !tabs.has(tabId)) return;
    if (link.refused) {
      link.conn = "unauthorized";
      link.detail =
        "The daemon refused this extension's token: run `webfold pair` and paste its output again.";
      publish(tabId);
      // The host knows the daemon's token now, if it is installed.
      void askHost();
      return;
    }
    link.attempts += 1;
    const wait = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(link.attempts - 1, 10));
    link.conn = "down";
    link.detail = opened
      ? `Lost the webfold daemon at ${daemonAddress()} (${ev.code || "closed"}). Reconnecting in ${Math.round(wait / 1000)} s; if it stays down, run \`webfold doctor\`.`
      : `Cannot reach the webfold daemon at ${daemonAddress()}. Start it (\`webfold daemon\`, or your agent's \`webfold mcp --tools ui\` starts it) and run \`webfold doctor\`. Retrying in ${Math.round(wait / 1000)} s.`;
    publish(tabId);
    if (hostProblem) link.detail += ` webfold's browser helper: ${hostProblem}`;
    link.retry = setTimeout(() => connect(tabId), wait);
    // The host, if installed, starts the daemon; the tab reconnects as soon as it answers.
    void askHost();
  };
}

function updateKeepalive() {
  const anyOpen = [...links.values()].some((l) => l.ws?.readyState === WebSocket.OPEN);
  if (anyOpen && keepalive === undefined) {
    keepalive = setInterval(() => {
      for (const l of links.values()) {
        if (l.ws?.readyState === WebSocket.OPEN) l.ws.send('{"type":"ping"}');
      }
    }, KEEPALIVE_MS);
  } else if (!anyOpen && keepalive !== undefined) {
    clearInterval(keepalive);
    keepalive = undefined;
  }
}

function send(tabId: number, frame: WfProtocol.ClientFrame): boolean {
  const ws = links.get(tabId)?.ws;
  if (!ws || ws.readyState !== WebSocket.OPEN || links.get(tabId)?.conn !== "open") return false;
  ws.send(JSON.stringify(frame));
  return true;
}

function agentName(tab: WfTab, id: string | undefined): string {
  const a = tab.agents.find((x) => x.agentId === id);
  if (!a) return id ?? "an agent";
  return a.builtIn ? a.client : `${a.client} in ${a.project}`;
}

/** Why the daemon closed an answer, as the user reads it. */
const CLOSED: Record<WfProtocol.CloseReason, string> = {
  disconnected: "the agent disconnected before it finished",
  superseded: "another agent answered this message",
};

/** The answer to `messageId` still being written, if any. */
function openAnswer(tab: WfTab, messageId: string): WfChatEntry | undefined {
  return tab.chat.find((e) => e.role === "assistant" && !e.complete && e.messageId === messageId);
}

/** Puts an answer under the message it answers (after earlier answers to it), else last. */
function place(tab: WfTab, entry: WfChatEntry): WfChatEntry {
  let at = -1;
  tab.chat.forEach((e, i) => {
    if (e.messageId === entry.messageId) at = i;
  });
  if (at < 0) tab.chat.push(entry);
  else tab.chat.splice(at + 1, 0, entry);
  return entry;
}

function answerEntry(messageId: string, contextId: string, text: string, complete: boolean): WfChatEntry {
  return { role: "assistant", text, messageId: String(messageId), contextId: String(contextId), complete, at: Date.now() };
}

function onFrame(tabId: number, link: Link, text: string) {
  const tab = tabs.get(tabId);
  if (!tab) return;
  let frame: WfProtocol.ServerFrame;
  try {
    frame = JSON.parse(text) as WfProtocol.ServerFrame;
  } catch {
    return;
  }
  switch (frame.type) {
    case "agents": {
      const p = frame.payload;
      const first = link.conn !== "open";
      link.conn = "open";
      link.attempts = 0;
      tab.agents = Array.isArray(p.agents) ? p.agents : [];
      tab.selected = typeof p.selected === "string" ? p.selected : undefined;
      link.detail =
        tab.agents.length === 0
          ? "Connected, but no coding agent is: start your agent with webfold's MCP server (`webfold mcp --tools page,ui`); what you send meanwhile waits for it."
          : `Connected · ${tab.agents.length} agent${tab.agents.length > 1 ? "s" : ""}`;
      if (first && tab.restore && p.protocolVersion >= HISTORY_VERSION) {
        link.ws?.send(JSON.stringify({ type: "get_history", payload: {} } satisfies WfProtocol.ClientFrame));
      }
      if (first) {
        setBadge(tabId, true);
        updateKeepalive();
        if (link.pending && link.ws) {
          link.ws.send(link.pending);
          link.pending = undefined;
        }
      }
      break;
    }
    case "context_stored":
      tab.contextId = String(frame.payload.contextId);
      tab.problem = undefined;
      break;
    case "message_waiting": {
      // No agent yet: the daemon keeps it for the next one to connect.
      const entry = [...tab.chat].reverse().find((e) => e.role === "user" && !e.deliveredTo && !e.error && !e.waiting);
      if (entry) {
        entry.waiting = true;
        entry.messageId = String(frame.payload.messageId);
      }
      tab.problem = undefined;
      break;
    }
    case "message_stored": {
      // This message (by id), else the oldest one waiting for an agent, else the one just sent.
      const p = frame.payload;
      const mine = (e: WfChatEntry) => e.role === "user" && !e.deliveredTo && !e.error;
      const entry =
        tab.chat.find((e) => mine(e) && e.messageId === p.messageId) ??
        tab.chat.find((e) => mine(e) && e.waiting) ??
        [...tab.chat].reverse().find(mine);
      if (entry) {
        entry.deliveredTo = agentName(tab, p.agentId);
        entry.messageId = String(p.messageId);
        entry.waiting = false;
      }
      tab.problem = undefined;
      break;
    }
    case "status_update": {
      const p = frame.payload;
      tab.status = { status: p.status, detail: typeof p.detail === "string" ? p.detail : undefined };
      break;
    }
    // An answer belongs to one user message: its frames name the message,
    // and only the open answer to that message grows.
    case "agent_response_chunk": {
      const p = frame.payload;
      const open = openAnswer(tab, p.messageId);
      if (open) open.text += String(p.chunk);
      else place(tab, answerEntry(p.messageId, p.contextId, String(p.chunk), false));
      break;
    }
    case "agent_response": {
      const p = frame.payload;
      const open = openAnswer(tab, p.messageId) ?? place(tab, answerEntry(p.messageId, p.contextId, "", false));
      open.text = String(p.message);
      open.complete = true;
      open.result = p.result;
      break;
    }
    case "answer_closed": {
      // The daemon closed an unfinished answer: no caret, no status left.
      const p = frame.payload;
      const open = openAnswer(tab, p.messageId);
      const note = `Unfinished: ${CLOSED[p.reason] ?? "the answer was closed"}.`;
      if (open) {
        open.text = String(p.message);
        open.complete = true;
        open.closed = note;
      } else if (String(p.message).trim()) {
        place(tab, { ...answerEntry(p.messageId, p.contextId, String(p.message), true), closed: note });
      }
      tab.status = undefined;
      break;
    }
    case "get_html": {
      const p = frame.payload;
      void answerGetHtml(tabId, link, String(p.requestId), typeof p.selector === "string" ? p.selector : undefined);
      return;
    }
    case "history": {
      // Only into an empty chat: what the panel holds is newer.
      tab.restore = false;
      if (tab.chat.length > 0) break;
      tab.chat = frame.payload.messages.map((m) => ({
        role: m.role,
        text: m.content,
        contextId: m.contextId,
        messageId: m.messageId,
        complete: m.role === "assistant" ? true : undefined,
        earlier: true,
        at: m.timestamp,
      }));
      break;
    }
    case "view": {
      const v: WfPageView = { ...frame.payload, kind: "page_view" };
      for (const [port, watched] of watchers) {
        if (watched === tabId) port.postMessage(v satisfies WfToPanel);
      }
      return;
    }
    case "error": {
      const code = String(frame.payload.code);
      const message = String(frame.payload.message);
      if (code === "unauthorized") {
        link.refused = true;
        return;
      }
      const entry = [...tab.chat].reverse().find((e) => e.role === "user" && !e.deliveredTo && !e.error);
      if (entry && ["choose_agent", "unknown_agent", "unknown_context", "too_large"].includes(code)) {
        entry.error = message;
      }
      if (code === "agent_failed") {
        // The built-in agent's run ended without an answer: it shows where the answer would have.
        tab.chat.push({ role: "assistant", text: "", error: message, complete: true, at: Date.now() });
        break;
      }
      tab.problem = message;
      break;
    }
    default:
      return;
  }
  save(tab);
}

/** The daemon asks for the tab's current HTML (an agent's live read). */
async function answerGetHtml(tabId: number, link: Link, requestId: string, selector: string | undefined) {
  let answer: WfLiveHtml;
  try {
    await injectPicker(tabId);
    answer = (await chrome.tabs.sendMessage(tabId, { kind: "get_html", selector } satisfies WfToPage)) as WfLiveHtml;
    if (!answer) answer = { error: "the page did not answer; it may still be loading" };
  } catch (e) {
    answer = { error: e instanceof Error ? e.message : String(e) };
  }
  if (link.ws?.readyState === WebSocket.OPEN) {
    link.ws.send(JSON.stringify({ type: "html", payload: { requestId, ...answer } } satisfies WfProtocol.ClientFrame));
  }
}

// ---- picking ----

async function injectPicker(tabId: number) {
  const info = await chrome.tabs.get(tabId);
  if (!/^(https?|file):/.test(info.url ?? "")) {
    throw new Error("webfold picks on web pages only (http or https); switch to the page's tab and try again.");
  }
  await chrome.scripting.executeScript({ target: { tabId }, files: ["capture.js", "content.js"] });
}

async function startPick(tabId: number) {
  const tab = await tabState(tabId);
  await injectPicker(tabId);
  await chrome.tabs.sendMessage(tabId, { kind: "start_pick" } satisfies WfToPage);
  tab.picking = true;
  tab.problem = undefined;
  save(tab);
}

/** The visible part of `tabId`, when it is the tab its window shows. */
async function screenshot(tabId: number, windowId: number): Promise<string | undefined> {
  try {
    const [shown] = await chrome.tabs.query({ active: true, windowId });
    if (shown?.id !== tabId) return undefined;
    const url = await chrome.tabs.captureVisibleTab(windowId, { format: "png" });
    return url.slice(url.indexOf(",") + 1);
  } catch {
    return undefined;
  }
}

async function sendSelection(tabId: number, windowId: number, selection: WfSelection, htmlOmitted?: string) {
  const tab = await tabState(tabId);
  const [shot, source] = await Promise.all([
    screenshot(tabId, windowId),
    // A page slow to give its source maps does not hold the pick up.
    Promise.race([pickSource(tabId, selection.selector), new Promise<undefined>((r) => setTimeout(r, SOURCE_WAIT_MS))]),
  ]);
  selection.screenshot = shot;
  if (source) selection.source = source;
  tab.selection = {
    selector: selection.selector,
    tagName: selection.element.tagName,
    text: selection.element.textContent.slice(0, 200),
    url: selection.page.url,
    title: selection.page.title,
    source,
  };
  tab.contextId = undefined;
  tab.problem = htmlOmitted;
  const frame = JSON.stringify({ type: "set_context", payload: selection } satisfies WfProtocol.ClientFrame);
  const link = links.get(tabId);
  if (link?.ws?.readyState === WebSocket.OPEN && link.conn === "open") {
    link.ws.send(frame);
  } else if (link) {
    link.pending = frame;
    connect(tabId);
  }
  save(tab);
}

chrome.runtime.onMessage.addListener((msg: WfFromPage, sender) => {
  const tabId = sender.tab?.id;
  const windowId = sender.tab?.windowId;
  // Only our own content script (never a page) can reach this listener.
  if (sender.id !== chrome.runtime.id || tabId === undefined || windowId === undefined) return;
  void (async () => {
    const tab = await tabState(tabId);
    if (!tab.picking) return;
    tab.picking = false;
    if (msg.kind === "picked") {
      await sendSelection(tabId, windowId, msg.selection, msg.htmlOmitted);
    } else {
      save(tab);
    }
  })();
});

async function refresh(tabId: number) {
  const tab = await tabState(tabId);
  const selector = tab.selection?.selector;
  if (!selector) throw new Error("Pick an element first; Refresh then captures the page again around it.");
  await injectPicker(tabId);
  const got = (await chrome.tabs.sendMessage(tabId, { kind: "recapture", selector } satisfies WfToPage)) as WfRecaptured;
  if (!got?.selection) throw new Error(got?.error ?? "The page did not answer; reload it and pick again.");
  const info = await chrome.tabs.get(tabId);
  await sendSelection(tabId, info.windowId, got.selection, got.htmlOmitted);
}

// ---- the side panel ----

chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== "panel" || port.sender?.id !== chrome.runtime.id) return;
  port.onDisconnect.addListener(() => watchers.delete(port));
  port.onMessage.addListener((msg: WfFromPanel) => {
    void handlePanel(port, msg).catch((e: unknown) => {
      const problem = e instanceof Error ? e.message : String(e);
      const tabId = watchers.get(port);
      const tab = tabId === undefined ? undefined : tabs.get(tabId);
      if (tab) {
        tab.problem = problem;
        tab.picking = false;
        save(tab);
      } else if (tabId !== undefined) {
        port.postMessage({ ...view(tabId), problem } satisfies WfToPanel);
      }
    });
  });
});

async function handlePanel(port: chrome.runtime.Port, msg: WfFromPanel) {
  await ready;
  if (msg.kind === "watch") {
    watchers.set(port, msg.tabId);
    port.postMessage(view(msg.tabId) satisfies WfToPanel);
    await tabState(msg.tabId).catch(() => {
      throw new Error("This tab is gone or cannot be followed: switch to a web page's tab.");
    });
    connect(msg.tabId);
    port.postMessage(view(msg.tabId) satisfies WfToPanel);
    return;
  }
  if (msg.kind === "pair") {
    const parsed = parsePairing(msg.text);
    if ("error" in parsed) {
      port.postMessage({ kind: "pair_result", error: parsed.error } satisfies WfToPanel);
      return;
    }
    await usePairing(parsed);
    port.postMessage({ kind: "pair_result" } satisfies WfToPanel);
    return;
  }
  const tabId = watchers.get(port);
  if (tabId === undefined) return;
  const tab = await tabState(tabId);
  switch (msg.kind) {
    case "pick":
      await startPick(tabId);
      break;
    case "cancel_pick":
      tab.picking = false;
      save(tab);
      await chrome.tabs.sendMessage(tabId, { kind: "stop_pick" } satisfies WfToPage).catch(() => {});
      break;
    case "refresh":
      await refresh(tabId);
      break;
    case "send": {
      const message = msg.message.trim();
      if (!message) return;
      if (!tab.contextId) throw new Error("Pick an element first: your message is about the element you pick.");
      const entry: WfChatEntry = { role: "user", text: message, contextId: tab.contextId, at: Date.now() };
      tab.chat.push(entry);
      const frame: WfProtocol.UserMessage = { contextId: tab.contextId, message };
      if (tab.selected) frame.agentId = tab.selected;
      void remember(tab, tab.selection?.url);
      if (!send(tabId, { type: "user_message", payload: frame })) {
        entry.error = `Not sent: not connected to the webfold daemon. ${links.get(tabId)?.detail ?? ""}`;
      }
      save(tab);
      break;
    }
    case "select_agent":
      if (!send(tabId, { type: "select_agent", payload: { agentId: msg.agentId } })) {
        tab.problem = "Not connected to the webfold daemon; the choice was not sent.";
        save(tab);
      }
      break;
    case "get_view": {
      const requestId = `view-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
      if (!send(tabId, { type: "get_view", payload: { requestId, view: msg.view } })) {
        port.postMessage({
          kind: "page_view",
          requestId,
          view: msg.view,
          tokens: 0,
          lines: [],
          error: "Not connected to the webfold daemon: the view comes from it.",
        } satisfies WfToPanel);
      }
      break;
    }
    case "highlight":
      // Marks only: nothing is injected for a hover on a page never picked.
      await chrome.tabs
        .sendMessage(tabId, { kind: "highlight", selector: msg.selector } satisfies WfToPage)
        .catch(() => {});
      break;
  }
}

chrome.tabs.onRemoved.addListener((tabId) => {
  const link = links.get(tabId);
  if (link) {
    link.closing = true;
    if (link.retry) clearTimeout(link.retry);
    link.ws?.close(1000, "tab closed");
    links.delete(tabId);
  }
  tabs.delete(tabId);
  chrome.storage.session.remove(`tab:${tabId}`).catch(() => {});
  updateKeepalive();
});
