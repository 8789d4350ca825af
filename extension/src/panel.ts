// The side panel: pairing, the connection indicator, the agent choice, Pick
// and Refresh, the selection, the chat and the agent's status. It follows
// the active tab of its window (or `?tab=ID`, when opened as a page), and
// talks to the service worker over one port, which it reopens if the worker
// restarts.

import { renderMarkdown } from "./markdown.js";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const conn = $("conn");
const connText = $("conn-text");
const pairBox = $("pairing");
const pairText = $<HTMLTextAreaElement>("pair-text");
const pairError = $("pair-error");
const main = $("main");
const agentSelect = $<HTMLSelectElement>("agent");
const agentNote = $("agent-note");
const pickButton = $<HTMLButtonElement>("pick");
const refreshButton = $<HTMLButtonElement>("refresh");
const selectionBox = $("selection");
const statusBox = $("status");
const problemBox = $("problem");
const chat = $("chat");
const composer = $<HTMLFormElement>("composer");
const message = $<HTMLTextAreaElement>("message");
const sendButton = $<HTMLButtonElement>("send");
const viewBox = $("view-box");
const viewMeta = $("view-meta");
const viewList = $("view");
const viewClose = $<HTMLButtonElement>("view-close");
const viewButtons = [$<HTMLButtonElement>("view-cnt"), $<HTMLButtonElement>("view-outline")];
const controls = $("controls");
const collapse = $<HTMLButtonElement>("collapse");

const fixedTab = Number(new URLSearchParams(location.search).get("tab")) || undefined;
let tabId: number | undefined = fixedTab;
let port: chrome.runtime.Port | undefined;
let last: WfView | undefined;
/** The view of the page shown (none: hidden), and the selection it shows. */
let shownView: WfViewKind | undefined;
let viewOfContext: string | undefined;
/** The user asked to pair again (a new port or token). */
let wantPairing = false;
const showPairing = $<HTMLButtonElement>("show-pairing");

function post(msg: WfFromPanel) {
  if (!port) open();
  port?.postMessage(msg);
}

function open() {
  port = chrome.runtime.connect({ name: "panel" });
  port.onMessage.addListener((msg: WfToPanel) => {
    if (msg.kind === "view") render(msg);
    else if (msg.kind === "page_view") renderView(msg);
    else if (msg.kind === "pair_result") {
      pairError.replaceChildren(...withCode(msg.error ?? ""));
      if (!msg.error) {
        pairText.value = "";
        wantPairing = false;
        if (last) render(last);
      }
    }
  });
  // The worker stopped (Chromium stops idle workers, or it crashed):
  // connecting again starts it, and it reconnects to the daemon.
  port.onDisconnect.addListener(() => {
    port = undefined;
    setTimeout(() => {
      open();
      watch();
    }, 100);
  });
}

function watch() {
  if (tabId !== undefined) post({ kind: "watch", tabId });
}

async function follow() {
  if (fixedTab !== undefined) return;
  const [active] = await chrome.tabs.query({ active: true, currentWindow: true });
  if (active?.id !== undefined && active.id !== tabId) {
    tabId = active.id;
    watch();
  }
}

/** Text with `commands` shown as code (as text nodes, never markup). */
function withCode(text: string): Node[] {
  return text.split("`").map((part, i) => {
    if (i % 2 === 0) return document.createTextNode(part);
    const c = document.createElement("code");
    c.textContent = part;
    return c;
  });
}

function render(v: WfView) {
  last = v;
  conn.dataset.state = v.conn;
  conn.dataset.agents = String(v.tab?.agents.length ?? 0);
  connText.replaceChildren(...withCode(v.detail));
  const mustPair = v.conn === "unpaired" || v.conn === "unauthorized";
  pairBox.hidden = !(mustPair || wantPairing);
  showPairing.hidden = mustPair || wantPairing;
  main.hidden = v.conn === "unpaired";
  const tab = v.tab;
  const open = v.conn === "open";

  // Agents: the user chooses when several are connected.
  const agents = tab?.agents ?? [];
  agentSelect.replaceChildren();
  if (agents.length !== 1 && !tab?.selected) {
    const none = document.createElement("option");
    none.value = "";
    none.textContent = agents.length === 0 ? "no agent connected" : "choose an agent…";
    agentSelect.append(none);
  }
  for (const a of agents) {
    const o = document.createElement("option");
    o.value = a.agentId;
    o.textContent = a.builtIn ? a.client : `${a.client} · ${a.project}`;
    o.title = a.agentId;
    agentSelect.append(o);
  }
  agentSelect.value = tab?.selected ?? (agents.length === 1 ? agents[0].agentId : "");
  agentSelect.disabled = !open || agents.length === 0;
  agentNote.textContent =
    agents.length > 1 && !tab?.selected ? `${agents.length} agents are connected: choose the one to ask.` : "";

  pickButton.textContent = tab?.picking ? "Cancel pick (Esc)" : "Pick element";
  pickButton.dataset.picking = String(!!tab?.picking);
  refreshButton.disabled = !tab?.selection?.selector;

  selectionBox.replaceChildren();
  if (tab?.selection) {
    const s = tab.selection;
    const head = document.createElement("div");
    head.className = "sel-head";
    const code = document.createElement("code");
    code.textContent = s.selector ?? s.tagName.toLowerCase();
    head.append(code);
    const state = document.createElement("span");
    state.className = "sel-state";
    state.textContent = tab.contextId ? " · sent" : open ? " · sending…" : " · waiting for the daemon";
    head.append(state);
    const text = document.createElement("div");
    text.className = "sel-text";
    text.textContent = s.text || "(no text)";
    selectionBox.append(head, text);
    if (s.source) selectionBox.append(sourceLine(s.source));
    selectionBox.title = `${s.title || s.url}\n${s.text}`;
    selectionBox.dataset.contextId = tab.contextId ?? "";
  } else {
    selectionBox.textContent = "Pick an element on the page, then ask about it.";
    selectionBox.title = "";
    selectionBox.dataset.contextId = "";
  }

  statusBox.replaceChildren();
  if (tab?.status && tab.status.status !== "idle") {
    statusBox.dataset.status = tab.status.status;
    const dot = document.createElement("span");
    dot.className = "pulse";
    statusBox.append(dot, `${tab.status.status}${tab.status.detail ? ` — ${tab.status.detail}` : ""}`);
  } else {
    statusBox.dataset.status = tab?.status?.status ?? "";
  }

  const problem = v.problem ?? tab?.problem;
  problemBox.replaceChildren(...withCode(problem ?? ""));
  problemBox.hidden = !problem;

  const stick = chat.scrollTop + chat.clientHeight >= chat.scrollHeight - 8;
  chat.replaceChildren();
  for (const e of tab?.chat ?? []) {
    const li = document.createElement("li");
    li.className = e.role;
    if (e.messageId) li.dataset.messageId = e.messageId;
    if (e.role === "assistant") {
      li.dataset.complete = String(!!e.complete);
      const body = document.createElement("div");
      body.className = "md";
      body.append(renderMarkdown(e.text));
      li.append(body);
      if (e.result) li.append(...resultNodes(e.result));
      if (e.complete) li.append(meta("", e.at));
      if (e.closed) {
        const note = document.createElement("div");
        note.className = "meta closed";
        note.textContent = e.closed;
        li.append(note);
      }
      if (e.error) {
        const note = document.createElement("div");
        note.className = "meta error";
        note.textContent = e.error;
        li.append(note);
      }
    } else {
      const body = document.createElement("div");
      body.className = "text";
      body.textContent = e.text;
      li.append(body);
      const said =
        e.error ??
        (e.deliveredTo
          ? `to ${e.deliveredTo}`
          : e.waiting
            ? "kept for the next agent to connect"
            : e.earlier
              ? "earlier"
              : "sending…");
      const m = meta(said, e.at);
      if (e.error) m.classList.add("error");
      li.append(m);
    }
    chat.append(li);
  }
  if (stick) chat.scrollTop = chat.scrollHeight;

  // A new capture: the view shown follows it.
  if (shownView && tab?.contextId && tab.contextId !== viewOfContext) requestView(shownView);

  const ready = open && !!tab?.contextId;
  sendButton.disabled = !ready;
  message.placeholder = ready
    ? "Ask your coding agent about this element (Enter sends, Shift+Enter: new line)"
    : open
      ? "Pick an element first"
      : "Not connected";
}

/** Where the picked element is written: `file:line`, then the components around it. */
function sourceLine(src: WfProtocol.PickSource): HTMLElement {
  const line = document.createElement("div");
  line.className = "sel-source";
  const at = `${src.file}${src.line ? `:${src.line}` : ""}`;
  const code = document.createElement("code");
  code.textContent = at.split("/").pop() ?? at;
  const names = (src.components ?? []).map((c) => c.name);
  line.append(code, names.length ? ` · ${names.slice(0, 3).join(" ‹ ")}` : "");
  line.title = `${src.framework}: ${at}${(src.components ?? []).map((c) => `\n${c.name} used at ${c.file ?? "?"}${c.line ? `:${c.line}` : ""}`).join("")}`;
  return line;
}

/** A chat entry's meta line: what happened to it, then when. */
function meta(said: string, at: number): HTMLElement {
  const line = document.createElement("div");
  line.className = "meta";
  const when = new Date(at);
  const time = document.createElement("time");
  time.dateTime = when.toISOString();
  time.title = when.toLocaleString();
  const today = when.toDateString() === new Date().toDateString();
  time.textContent = today
    ? when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : when.toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
  line.append(said ? `${said} · ` : "", time);
  return line;
}

/** The built-in agent's proposed changes (shown, not applied) and what the run cost. */
function resultNodes(r: WfAgentResult): Node[] {
  const changes = document.createElement("pre");
  changes.className = "result";
  changes.textContent = JSON.stringify({ domChanges: r.domChanges, action: r.action });
  const meta = document.createElement("div");
  meta.className = "meta";
  const calls = `${r.iterations} model call${r.iterations === 1 ? "" : "s"}`;
  const tokens = `${r.inputTokens.toLocaleString("en")} input + ${r.outputTokens.toLocaleString("en")} output tokens`;
  meta.textContent = `${calls} · ${tokens}${r.fallback ? ` · sent the whole page: ${r.fallback}` : ""}`;
  return [changes, meta];
}

function requestView(view: WfViewKind) {
  shownView = view;
  viewOfContext = last?.tab?.contextId;
  for (const b of viewButtons) b.dataset.active = String(b.dataset.view === view);
  viewBox.hidden = false;
  viewClose.hidden = false;
  viewMeta.textContent = "Loading…";
  post({ kind: "get_view", view });
}

/** The daemon's view: each line as text, hovering one marks its element. */
function renderView(v: WfPageView) {
  if (v.view !== shownView) return;
  viewList.replaceChildren();
  if (v.error) {
    viewMeta.replaceChildren(...withCode(v.error));
    return;
  }
  const what = v.view === "cnt" ? "CNT" : "Outline";
  viewMeta.textContent = `${what} of ${v.url ?? "the captured page"}: ${v.tokens.toLocaleString("en")} tokens for the model. Hover a line to see its element.`;
  for (const line of v.lines) {
    const li = document.createElement("li");
    const t = document.createElement("span");
    t.className = "t";
    t.textContent = line.text;
    li.append(t);
    if (line.tokens !== undefined) {
      const n = document.createElement("span");
      n.className = "n";
      n.textContent = `${line.tokens.toLocaleString("en")} tok`;
      li.append(n);
    }
    if (line.selector) {
      li.dataset.selector = line.selector;
      li.title = line.selector;
    }
    viewList.append(li);
  }
}

for (const b of viewButtons) {
  b.addEventListener("click", () => requestView(b.dataset.view as WfViewKind));
}
viewClose.addEventListener("click", () => {
  shownView = undefined;
  viewBox.hidden = true;
  viewClose.hidden = true;
  for (const b of viewButtons) b.dataset.active = "false";
  post({ kind: "highlight", selector: null });
});
let hoveredLine: HTMLElement | null = null;
viewList.addEventListener("mouseover", (e) => {
  const li = (e.target as HTMLElement).closest("li");
  if (li === hoveredLine) return;
  hoveredLine?.classList.remove("hover");
  hoveredLine = li;
  li?.classList.add("hover");
  post({ kind: "highlight", selector: li?.dataset.selector ?? null });
});
viewList.addEventListener("mouseleave", () => {
  hoveredLine?.classList.remove("hover");
  hoveredLine = null;
  post({ kind: "highlight", selector: null });
});

/** The controls above the chat, shown or hidden (kept across panel openings). */
function showControls(on: boolean) {
  controls.hidden = !on;
  collapse.setAttribute("aria-expanded", String(on));
  collapse.textContent = on ? "Hide controls" : "Show controls";
  localStorage.setItem("webfold.controls", on ? "shown" : "hidden");
}
collapse.addEventListener("click", () => showControls(controls.hidden));
showControls(localStorage.getItem("webfold.controls") !== "hidden");

pickButton.addEventListener("click", () => {
  post({ kind: last?.tab?.picking ? "cancel_pick" : "pick" });
});
refreshButton.addEventListener("click", () => post({ kind: "refresh" }));
showPairing.addEventListener("click", () => {
  wantPairing = true;
  if (last) render(last);
  pairText.focus();
});
agentSelect.addEventListener("change", () => {
  if (agentSelect.value) post({ kind: "select_agent", agentId: agentSelect.value });
});
$("pair").addEventListener("click", () => post({ kind: "pair", text: pairText.value }));
composer.addEventListener("submit", (e) => {
  e.preventDefault();
  if (sendButton.disabled || !message.value.trim()) return;
  post({ kind: "send", message: message.value });
  message.value = "";
});
message.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    composer.requestSubmit();
  }
});

open();
if (fixedTab === undefined) {
  chrome.tabs.onActivated.addListener(() => void follow());
  void follow();
} else {
  watch();
}
