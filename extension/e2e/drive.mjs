// Drives the built extension in Debian's Chromium against a running
// `webfold daemon`, with `webfold mcp --tools ui` playing the coding agent.
// Every step waits for a condition with a deadline (no timed sleeps) and
// throws when it does not hold. Progress goes to stderr; the last stdout
// line is a JSON summary.
//
// Environment: WEBFOLD_BIN, WEBFOLD_HOME, WEBFOLD_PROJECT, EXTENSION_DIR,
// WEBFOLD_PROJECT2 (a second agent's project), EXTENSION_ID, SHOTS_DIR;
// CHROMIUM (default /usr/bin/chromium).

import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { connect } from "node:net";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, check, env, launch, log, serveFixture, until } from "./lib.mjs";

const BIN = env("WEBFOLD_BIN");
const HOME = env("WEBFOLD_HOME");
const PROJECT = env("WEBFOLD_PROJECT");
const PROJECT2 = env("WEBFOLD_PROJECT2");
const EXT = env("EXTENSION_DIR");
const EXT_ID = env("EXTENSION_ID");
const SHOTS = env("SHOTS_DIR");

const summary = { screenshots: [] };

/** The daemon's own account of itself, over its unix socket. */
function daemonStatus() {
  return new Promise((resolve, reject) => {
    const s = connect(join(HOME, "daemon.sock"));
    let buf = "";
    s.on("connect", () => s.write(JSON.stringify({ id: 1, method: "status", params: {} }) + "\n"));
    s.on("data", (d) => {
      buf += d;
      if (buf.includes("\n")) {
        s.end();
        resolve(JSON.parse(buf.slice(0, buf.indexOf("\n"))).result);
      }
    });
    s.on("error", reject);
  });
}

/**
 * Drives the real side panel, which is no Playwright page: attached through
 * the browser's target list, spoken to in raw CDP. The returned function
 * evaluates an expression there (or sends another method).
 */
async function sidePanel(ctx, page, url) {
  const cdp = await ctx.newCDPSession(page);
  const targetId = await until("the side panel's target", async () => {
    const { targetInfos } = await cdp.send("Target.getTargets");
    return targetInfos.find((t) => t.type === "page" && t.url === url)?.targetId;
  });
  const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: false });
  const answers = new Map();
  cdp.on("Target.receivedMessageFromTarget", (ev) => {
    if (ev.sessionId !== sessionId) return;
    const m = JSON.parse(ev.message);
    answers.get(m.id)?.(m);
  });
  let next = 0;
  return async (expression, method = "Runtime.evaluate", params = { expression, returnByValue: true }) => {
    const id = ++next;
    const answered = new Promise((r) => answers.set(id, r));
    await cdp.send("Target.sendMessageToTarget", { sessionId, message: JSON.stringify({ id, method, params }) });
    const m = await answered;
    if (m.error) throw new Error(`${method}: ${m.error.message}`);
    return method === "Runtime.evaluate" ? m.result.result.value : m.result;
  };
}

const LINK = 'target="_blank" rel="noopener noreferrer"';
const MARKDOWN_CASES = [
  ["<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"],
  [
    "![x](https://e.com/a.png) <img src=x onerror=alert(1)>",
    `<p><a href="https://e.com/a.png" ${LINK}>x</a> &lt;img src=x onerror=alert(1)&gt;</p>`,
  ],
  [
    "[a](javascript:alert(1)) [b](JAVASCRIPT:x) [c](data:text/html,x) [d](https://e.com/q?a=(1))",
    `<p>a b c <a href="https://e.com/q?a=(1)" ${LINK}>d</a></p>`,
  ],
  ["```html\n<b>bold</b>\n```", '<pre><code data-lang="html">&lt;b&gt;bold&lt;/b&gt;</code></pre>'],
  ["# Title *em* and __strong__", "<h3>Title <em>em</em> and <strong>strong</strong></h3>"],
  ["3. three\n4. four", '<ol start="3"><li>three</li><li>four</li></ol>'],
  ["> quoted `code`\n> more", "<blockquote><p>quoted <code>code</code> more</p></blockquote>"],
  ["line one  \nline two\nline three", "<p>line one<br>line two line three</p>"],
  ["a snake_case_name", "<p>a snake_case_name</p>"],
  [
    "- [ ] to do\n- [x] done",
    '<ul><li class="task"><input type="checkbox" disabled=""> to do</li><li class="task"><input type="checkbox" disabled=""> done</li></ul>',
  ],
];

// ---- the run ----

const { server, url: pageUrl } = await serveFixture();

const profile = mkdtempSync(join(tmpdir(), "webfold-ext-profile-"));
const dbDir = mkdtempSync(join(tmpdir(), "webfold-ext-db-"));
let agent;
let agent2;
let ctx;
try {

  const browser = await launch(EXT, profile, EXT_ID);
  ctx = browser.ctx;
  const { sw, extId, tabOf, openPanel } = browser;
  summary.extensionId = extId;

  const page = ctx.pages()[0] ?? (await ctx.newPage());
  await page.goto(pageUrl);
  const tabId = await tabOf(pageUrl);

  // ---- pairing, as a user does it: paste what `webfold pair` prints ----
  const panel = await openPanel(tabId);
  await until("the unpaired indicator", () => panel.$eval("#conn", (e) => e.dataset.state === "unpaired"));
  check(await panel.isVisible("#pairing"), "the pairing form shows when unpaired");
  await panel.fill("#pair-text", "not a pairing");
  await panel.click("#pair");
  await until("a pairing error", () => panel.textContent("#pair-error"));
  // The token goes to a daemon on this computer only.
  await panel.fill("#pair-text", `WebSocket: ws://evil.example:3457/ws\nToken: ${"a".repeat(64)}`);
  await panel.click("#pair");
  await until("a refusal of a remote address", async () => (await panel.textContent("#pair-error")).includes("127.0.0.1"));
  const pairText = execFileSync(BIN, ["pair"], { env: { ...process.env, WEBFOLD_HOME: HOME } }).toString();
  // A wrong token: the daemon refuses it and the indicator says to pair again.
  await panel.fill("#pair-text", pairText.replace(/\b[0-9a-f]{64}\b/, "0".repeat(64)));
  await panel.click("#pair");
  await until("the refused-token indicator", () =>
    panel.$eval("#conn", (e) => e.dataset.state === "unauthorized" && e.textContent.includes("webfold pair")),
  );
  check(await panel.isVisible("#pairing"), "the pairing form shows again after a refused token");
  await panel.screenshot({ path: join(SHOTS, "panel-refused-token.png") });
  summary.screenshots.push("panel-refused-token.png");
  // No daemon at that address: the indicator says to start one.
  const closed = createServer();
  await new Promise((r) => closed.listen(0, "127.0.0.1", r));
  const closedPort = closed.address().port;
  await new Promise((r) => closed.close(r));
  await panel.fill("#pair-text", pairText.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${closedPort}`));
  await panel.click("#pair");
  await until("the daemon-down indicator", () =>
    panel.$eval("#conn", (e) => e.dataset.state === "down" && e.textContent.includes("webfold doctor")),
  );
  check(!(await panel.isVisible("#pairing")), "the pairing form steps aside while the daemon is only down");
  await panel.click("#show-pairing");
  await panel.fill("#pair-text", pairText);
  const paired = Date.now();
  await panel.click("#pair");
  await until("the connected indicator", () => panel.$eval("#conn", (e) => e.dataset.state === "open"));
  summary.connectMs = Date.now() - paired;
  // Connected, but no agent yet: the indicator says how to start one.
  await until("the no-agent indicator", () => panel.$eval("#conn", (e) => e.textContent.includes("webfold mcp --tools page,ui")));
  agent = new Agent(BIN, HOME, PROJECT, join(dbDir, "webfold.db"));
  await agent.init();
  const tools = await agent.request("tools/list", {});
  const names = tools.tools.map((t) => t.name);
  check(names.includes("get_ui_context") && names.includes("respond_to_browser"), `ui tools listed: ${names}`);
  const agentOption = await until("the agent in the agents list", () =>
    panel.$$eval("#agent option", (os) => {
      const ids = os.map((o) => o.value).filter(Boolean);
      return ids.length > 0 && ids;
    }),
  );
  check(agentOption.length === 1, `one agent listed: ${agentOption}`);
  const status = await daemonStatus();
  check(status.tabs === 1 && status.agents === 1, `the daemon admitted the extension's socket: ${JSON.stringify(status)}`);
  check((await sw.evaluate((t) => chrome.action.getBadgeText({ tabId: t }), tabId)) === "on", "the connected tab's badge");
  summary.origin = await sw.evaluate(() => self.location.origin);
  check(summary.origin === `chrome-extension://${EXT_ID}`, `the worker's origin ${summary.origin}`);
  await panel.screenshot({ path: join(SHOTS, "panel-connected.png") });
  summary.screenshots.push("panel-connected.png");

  const pickState = () => panel.$eval("#pick", (e) => e.dataset.picking === "true");
  const marks = () =>
    sw.evaluate(
      async (t) =>
        (await chrome.scripting.executeScript({ target: { tabId: t }, func: () => window.__webfoldPicker?.marks?.() }))[0]
          ?.result,
      tabId,
    );
  const markedAs = (label) => until(`the picker to propose ${label}`, async () => (await marks())?.label === label);
  const count = () => page.textContent("#count");
  const buy = await page.locator("#buy").boundingBox();
  const cx = buy.x + buy.width / 2;
  const cy = buy.y + buy.height / 2;

  // ---- Esc cancels a pick, and the page gets its clicks back ----
  await panel.bringToFront();
  await panel.click("#pick");
  await until("picking to start", pickState);
  await page.bringToFront();
  await page.mouse.move(cx, cy);
  // Wider and narrower while picking: keys, and Alt with the wheel.
  await markedAs("button#buy.cta.primary");
  await page.keyboard.press("ArrowUp");
  await markedAs("form.checkout");
  await page.keyboard.down("Alt");
  await page.mouse.wheel(0, -100);
  await markedAs("section.card.product");
  await page.mouse.wheel(0, 100);
  await markedAs("form.checkout");
  await page.keyboard.up("Alt");
  await page.keyboard.press("ArrowDown");
  await markedAs("button#buy.cta.primary");
  await page.keyboard.press("ArrowDown");
  await markedAs("button#buy.cta.primary");
  await page.keyboard.press("Escape");
  await until("Esc to cancel the pick", async () => !(await pickState()));
  await page.mouse.click(cx, cy);
  await until("the page to get its click after Esc", async () => (await count()) === "1");

  // What the user typed is part of what they see.
  await page.fill("#qty", "3");

  // ---- pick: hover outline, click, the agent sees it ----
  await panel.bringToFront();
  await panel.click("#pick");
  await until("picking to start", pickState);
  await page.bringToFront();
  await page.mouse.move(cx - 10, cy);
  await page.mouse.move(cx, cy);
  await page.screenshot({ path: join(SHOTS, "picker-hover.png") });
  summary.screenshots.push("picker-hover.png");
  const waiting = agent.tool("get_ui_context", { wait_seconds: 20 });
  const clicked = performance.now();
  await page.mouse.click(cx, cy);
  const got = await waiting;
  summary.clickToContextMs = Math.round(performance.now() - clicked);
  log(`click → get_ui_context: ${summary.clickToContextMs} ms`);
  check((await count()) === "1", "the pick click did not reach the page");
  const c = got.structuredContent;
  check(c && c.element, `get_ui_context returned a selection: ${JSON.stringify(got.content).slice(0, 300)}`);
  check(c.element.tagName === "BUTTON" && c.element.id === "buy", `the picked element: ${JSON.stringify(c.element)}`);
  check(c.selector === "#buy", `unique selector: ${c.selector}`);
  check(c.ancestors[0].tagName === "FORM" && c.ancestors[0].classList.includes("checkout"), "ancestors start at the form");
  check(c.page.url === pageUrl && c.page.title === "Fixture shop", `page: ${JSON.stringify(c.page)}`);
  const bb = c.element.boundingBox;
  check(
    Math.abs(bb.x - buy.x) < 1 && Math.abs(bb.y - buy.y) < 1 && Math.abs(bb.width - buy.width) < 1,
    `bounding box ${JSON.stringify(bb)} vs ${JSON.stringify(buy)}`,
  );
  const png = readFileSync(c.screenshotPath);
  const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
  check(png.subarray(1, 4).toString() === "PNG" && w === 1280 && h === 800, `a 1280×800 PNG screenshot: ${w}×${h}`);
  check(got.content.some((b) => b.type === "image"), "an inline image for the agent");
  const html = readFileSync(c.htmlPath, "utf8");
  check(html.includes("fixture-marker-7f3a") && !html.includes("webfold-mark"), "the page HTML, without our marks");
  check(html.includes("fixture-hidden-9c1d"), "the HTML keeps what a stylesheet hides (chunks show markup)");
  const dom = JSON.parse(readFileSync(c.domPath, "utf8"));
  const qty = dom.nodes.find((n) => n.k === 1 && n.a?.includes("qty"));
  check(qty?.a.join(" ").includes("value 3") && qty.l?.b?.[2] > 0, `the capture carries the typed value and the box: ${JSON.stringify(qty)}`);
  check(dom.viewport.width === 1280 && dom.viewport.height === 800, `the viewport: ${JSON.stringify(dom.viewport)}`);
  summary.sessionId = c.sessionId;
  summary.contextId = c.contextId;
  await page.screenshot({ path: join(SHOTS, "picker-selected.png") });
  summary.screenshots.push("picker-selected.png");

  // ---- ask: the user's message reaches the agent ----
  await panel.bringToFront();
  await until("the selection to be stored", () =>
    panel.$eval("#selection", (e, id) => e.dataset.contextId === id, c.contextId),
  );
  const question = "Make this button blue <script>alert(1)</script>";
  await panel.fill("#message", question);
  await panel.press("#message", "Enter");
  const asked = await agent.tool("get_ui_context", { wait_seconds: 10 });
  check(asked.structuredContent.userMessage === question, `the agent got the message: ${asked.structuredContent.userMessage}`);
  check(asked.structuredContent.contextId === c.contextId, "about the picked element");
  check(asked.content[0].text.includes("<user-message>"), "the user's words are fenced for the agent");
  await until("the message to show as delivered", () =>
    panel.$eval("#chat > li.user:last-child .meta", (e) => e.textContent.startsWith("to ")),
  );

  // ---- the answer streams in, in order, rendered as Markdown ----
  const sid = c.sessionId;
  await agent.tool("update_status", { sessionId: sid, status: "thinking", detail: "Looking for the button's styles" });
  await until("the status indicator", () => panel.$eval("#status", (e) => e.textContent.includes("thinking")));
  const parts = [
    "Sure: make it **blue** in `shop.css`:",
    "\n\n```css\n#buy { background: blue; }\n```\n",
    "\n- done\n- <img src=x onerror=\"window.pwned=1\"> stays text",
  ];
  const bubble = () =>
    panel.$eval("#chat > li.assistant:last-child", (e) => ({ text: e.querySelector(".md").textContent, complete: e.dataset.complete }));
  const markers = ["Sure", "#buy { background: blue; }", "stays text"];
  for (let i = 0; i < parts.length; i++) {
    await agent.tool("respond_to_browser", { sessionId: sid, messageId: asked.structuredContent.messageId, message: parts[i], isComplete: false });
    await until(`chunk ${i + 1} in the panel`, async () => {
      const b = await bubble();
      const seen = markers.map((m) => b.text.includes(m));
      return b.complete === "false" && seen.every((s, j) => s === j <= i);
    });
  }
  await agent.tool("respond_to_browser", { sessionId: sid, messageId: asked.structuredContent.messageId, message: "\n\nAll set.", isComplete: true });
  await until("the complete answer", async () => (await bubble()).complete === "true");
  const md = await panel.$eval("#chat > li.assistant:last-child .md", (e) => ({
    strong: e.querySelector("strong")?.textContent,
    code: e.querySelector("p code")?.textContent,
    pre: e.querySelector("pre code")?.textContent,
    items: e.querySelectorAll("ul li").length,
    imgs: e.querySelectorAll("img").length,
    last: e.lastElementChild?.textContent,
  }));
  check(md.strong === "blue" && md.code === "shop.css" && md.pre === "#buy { background: blue; }", `markdown: ${JSON.stringify(md)}`);
  check(md.items === 2 && md.imgs === 0 && md.last === "All set.", `markdown lists and escaping: ${JSON.stringify(md)}`);
  check((await panel.evaluate(() => window.pwned)) === undefined, "no script ran from the answer");
  // The renderer on its own: markup and unsafe links come out as text.
  const rendered = await panel.evaluate(async (cases) => {
    const { renderMarkdown } = await import("./markdown.js");
    return cases.map(([src]) => {
      const d = document.createElement("div");
      d.append(renderMarkdown(src));
      return d.innerHTML;
    });
  }, MARKDOWN_CASES);
  MARKDOWN_CASES.forEach(([src, want], n) => check(rendered[n] === want, `markdown ${JSON.stringify(src)}: ${rendered[n]}`));
  const userText = await panel.$$eval("#chat > li.user .text", (es) => es.at(-1)?.textContent);
  check(userText === question, "the user's message shows as text");
  await agent.tool("update_status", { sessionId: sid, status: "idle" });
  await until("the status to clear", () => panel.$eval("#status", (e) => e.textContent === ""));
  await panel.screenshot({ path: join(SHOTS, "panel-chat.png") });
  summary.screenshots.push("panel-chat.png");
  // Every entry says when; the user's says to whom first.
  const times = await panel.$$eval("#chat > li", (es) =>
    es.map((e) => ({ meta: e.querySelector(".meta:has(time)")?.textContent ?? "", at: e.querySelector("time")?.dateTime ?? "" })),
  );
  check(
    times.length >= 2 && times.every((t) => /^\d{4}-\d\d-\d\dT/.test(t.at) && /\d\d:\d\d/.test(t.meta)),
    `a time on every chat entry: ${JSON.stringify(times)}`,
  );
  // The chat's share of a 360×665 side panel, controls shown and hidden.
  await panel.setViewportSize({ width: 360, height: 665 });
  const share = () => panel.$eval("#chat", (e) => e.getBoundingClientRect().height / window.innerHeight);
  summary.chatShare = Math.round((await share()) * 100) / 100;
  await panel.screenshot({ path: join(SHOTS, "panel-360x665.png") });
  await panel.click("#collapse");
  await until("the controls to hide", () => panel.$eval("#controls", (e) => e.hidden));
  summary.chatShareCollapsed = Math.round((await share()) * 100) / 100;
  await panel.screenshot({ path: join(SHOTS, "panel-360x665-collapsed.png") });
  summary.screenshots.push("panel-360x665.png", "panel-360x665-collapsed.png");
  check(summary.chatShare >= 0.6, `the chat keeps 60% of a 360×665 panel with the controls shown: ${summary.chatShare}`);
  check(summary.chatShareCollapsed > summary.chatShare, `hiding the controls gives the chat more: ${summary.chatShareCollapsed}`);
  await panel.click("#collapse");
  await until("the controls to show", () => panel.$eval("#controls", (e) => !e.hidden));
  await panel.setViewportSize({ width: 420, height: 760 });
  log(`chat share of a 360×665 panel: ${summary.chatShare} (controls hidden: ${summary.chatShareCollapsed})`);

  // ---- Refresh: the page is captured again; the agent reads the new copy ----
  await page.evaluate(() => {
    document.querySelector(".price").textContent = "9 € (sale)";
  });
  const refreshing = agent.tool("get_ui_context", { wait_seconds: 10 });
  await panel.click("#refresh");
  const r = (await refreshing).structuredContent;
  check(r.contextId !== c.contextId && r.selector === "#buy", `a new selection of the same element: ${r.contextId}`);
  check(readFileSync(r.htmlPath, "utf8").includes("9 € (sale)"), "the refreshed page HTML");
  await until("the panel to hold the refreshed selection", () =>
    panel.$eval("#selection", (e, id) => e.dataset.contextId === id, r.contextId),
  );

  // ---- live chunk: the page changes after the capture; live reads it now ----
  const conv = r.conversationId;
  check(conv, `get_ui_context gave the page tools a conversation: ${JSON.stringify(r).slice(0, 200)}`);
  await page.evaluate(() => {
    document.querySelector(".price").textContent = "7 € (flash sale)";
  });
  const text = (res) => res.content.map((c) => c.text).join("\n");
  const cached = text(await agent.tool("get_html_chunk", { conversation_id: conv, selector: ".price" }));
  check(cached.includes("9 € (sale)") && !cached.includes("flash sale"), `the cached chunk is the capture: ${cached}`);
  const liveAsked = performance.now();
  const live = text(await agent.tool("get_html_chunk", { conversation_id: conv, selector: ".price", live: true }));
  summary.liveChunkMs = Math.round(performance.now() - liveAsked);
  check(live.includes("7 € (flash sale)") && live.includes("live from the browser tab"), `the live chunk: ${live}`);
  check(live.includes("<page-content>"), "the live page comes back fenced");
  check(!live.includes("webfold-mark"), "without the extension's marks");
  const cachedAgain = text(await agent.tool("get_html_chunk", { conversation_id: conv, selector: ".price" }));
  check(!cachedAgain.includes("flash sale"), "a live read leaves the captured copy as it was");
  // The live page folds to the budget like any other.
  const folded = await agent.tool("get_html_chunk", { conversation_id: conv, selector: "body", live: true, max_tokens: 60 });
  check(folded.structuredContent.tokens <= 60 && folded.structuredContent.folded.length > 0, `a folded live chunk: ${text(folded)}`);
  const missing = await agent.refused("get_html_chunk", { conversation_id: conv, selector: "#sold-out", live: true });
  check(missing.includes("no element matches #sold-out"), `a selector with no match says so: ${missing}`);
  log(`live chunk: ${summary.liveChunkMs} ms`);

  // ---- the page as the model sees it: CNT and outline, hover marks the element ----
  await panel.bringToFront();
  await panel.click("#view-cnt");
  const cntLines = await until("the CNT in the panel", async () => {
    const ls = await panel.$$eval("#view > li", (es) => es.map((e) => e.textContent));
    return ls.some((l) => l.includes("Buy now")) && ls;
  });
  const cntTool = text(await agent.tool("cnt_view", { conversation_id: conv }));
  // The views read the page with its real layout: what a stylesheet hides is
  // not there, what the user typed is.
  check(cntTool.includes("Buy now") && !cntTool.includes("fixture-hidden-9c1d"), `the CNT leaves out the hidden promo: ${cntTool}`);
  check(!cntLines.some((l) => l.includes("fixture-hidden-9c1d")), "so does the panel's CNT");
  const snap = text(await agent.tool("page_snapshot", { conversation_id: conv, interactive_only: false }));
  check(
    /textbox "Quantity" \[ref=e\d+\]: "3"/.test(snap) && snap.includes("fixture-marker-7f3a") && !snap.includes("fixture-hidden-9c1d"),
    `the snapshot as the user sees the page: ${snap}`,
  );
  for (const l of cntLines) check(cntTool.includes(l), `the panel's CNT line is the model's: ${l}`);
  check(cntLines.some((l) => l.includes("9 € (sale)")), "the CNT of the latest capture");
  check(
    (await panel.textContent("#view-meta")).includes("tokens"),
    `the view says what it costs: ${await panel.textContent("#view-meta")}`,
  );
  await panel.hover('#view > li[data-selector="#buy"]');
  const hinted = await until("the hovered line to mark its element", async () => {
    const m = await marks();
    return m?.className === "box hint" && m.display === "block" && m;
  });
  const buyNow = await page.locator("#buy").boundingBox();
  check(
    Math.abs(hinted.box.x - buyNow.x) < 1 && Math.abs(hinted.box.width - buyNow.width) < 1 && hinted.label === "button#buy.cta.primary",
    `the mark covers the button: ${JSON.stringify(hinted)} vs ${JSON.stringify(buyNow)}`,
  );
  await page.screenshot({ path: join(SHOTS, "page-view-hover.png") });
  summary.screenshots.push("page-view-hover.png");
  await panel.screenshot({ path: join(SHOTS, "panel-cnt.png") });
  summary.screenshots.push("panel-cnt.png");
  await panel.click("#view-outline");
  const outline = await until("the outline with token counts", async () => {
    const ls = await panel.$$eval("#view > li", (es) =>
      es.map((e) => ({ text: e.querySelector(".t")?.textContent ?? "", n: e.querySelector(".n")?.textContent ?? "" })),
    );
    return ls.some((l) => l.text.includes("form.checkout")) && ls;
  });
  const toks = outline.map((l) => Number(l.n.replace(/[^0-9]/g, "")));
  check(toks.every((n) => n > 0) && toks[0] >= Math.max(...toks), `token counts, the root the largest: ${JSON.stringify(outline.slice(0, 4))}`);
  // The outline has a line per element: the mark follows the pointer.
  const priceLine = await panel.$$eval("#view > li[data-selector]", (es) =>
    es.find((e) => e.textContent.includes("p.price"))?.dataset.selector,
  );
  await panel.hover(`#view > li[data-selector="${priceLine}"]`);
  await until("the mark to follow the pointer", async () => (await marks())?.label === "p.price");
  await panel.screenshot({ path: join(SHOTS, "panel-outline.png") });
  summary.screenshots.push("panel-outline.png");
  await panel.mouse.move(5, 5);
  await until("the mark to leave with the pointer", async () => (await marks())?.className === "box selected");
  await panel.click("#view-close");

  // ---- the worker is stopped (as Chromium does when idle) and comes back ----
  const cdp = await ctx.newCDPSession(panel);
  const states = [];
  cdp.on("ServiceWorker.workerVersionUpdated", (ev) => {
    for (const v of ev.versions) states.push(v.runningStatus);
  });
  await cdp.send("ServiceWorker.enable");
  const stopped = Date.now();
  await cdp.send("ServiceWorker.stopAllWorkers");
  await until("the worker to stop", () => states.includes("stopped"));
  await until("the worker to run again", () => states.lastIndexOf("running") > states.indexOf("stopped"));
  await until("the daemon to see the tab again", async () => (await daemonStatus()).tabs === 1);
  await until("the panel to say connected", () => panel.$eval("#conn", (e) => e.dataset.state === "open"));
  // The restarted worker kept the tab's session and selection: an answer
  // for the old session reaches this panel, and the user can write again.
  const after = "Still here after a restart: [the docs](https://example.com/docs), [not a link](javascript:alert(1)).";
  await agent.tool("respond_to_browser", { sessionId: sid, messageId: asked.structuredContent.messageId, message: after, isComplete: true });
  await until("an answer after the restart", async () =>
    (await bubble()).text === "Still here after a restart: the docs, not a link.",
  );
  const links = await panel.$$eval("#chat > li.assistant:last-child a", (as) =>
    as.map((a) => `${a.textContent} ${a.getAttribute("href")} ${a.target} ${a.rel}`),
  );
  check(
    links.length === 1 && links[0] === "the docs https://example.com/docs _blank noopener noreferrer",
    `only http(s) links, opened apart: ${links}`,
  );
  summary.reconnectMs = Date.now() - stopped;
  await panel.fill("#message", "and the border too");
  await panel.press("#message", "Enter");
  const again = await agent.tool("get_ui_context", { wait_seconds: 10 });
  check(again.structuredContent.userMessage === "and the border too", "a message after the restart reaches the agent");
  check(again.structuredContent.sessionId === sid, "from the same tab session");
  const entries = await until("the message in the panel", async () => {
    const all = await panel.$$eval("#chat > li", (es) => es.map((e) => `${e.className}: ${e.textContent}`));
    return all.at(-1)?.startsWith("user: and the border too") && all;
  });
  check(entries.length === 4, `the chat survived the restart: ${JSON.stringify(entries)}`);
  log(`worker restart → answer shown: ${summary.reconnectMs} ms`);
  await panel.screenshot({ path: join(SHOTS, "panel-after-restart.png") });
  summary.screenshots.push("panel-after-restart.png");

  // ---- the real side panel, opened on the page's window, follows its tab ----
  await panel.evaluate(async (t) => {
    const { windowId } = await chrome.tabs.get(t);
    await chrome.sidePanel.open({ windowId });
  }, tabId);
  const side = await sidePanel(ctx, page, `chrome-extension://${extId}/panel.html`);
  const sideState = await until("the side panel to show the tab's conversation", async () => {
    const v = await side(`({ conn: document.querySelector("#conn").dataset.state,
      entries: document.querySelectorAll("#chat > li").length,
      context: document.querySelector("#selection").dataset.contextId })`);
    return v?.conn === "open" && v.entries === 4 && v.context === r.contextId && v;
  });
  log(`side panel: ${JSON.stringify(sideState)}`);
  const shot = await side("null", "Page.captureScreenshot", { format: "png" });
  writeFileSync(join(SHOTS, "side-panel.png"), Buffer.from(shot.data, "base64"));
  summary.screenshots.push("side-panel.png");

  // ---- two tabs, two agents: each message and answer goes where it belongs ----
  agent2 = new Agent(BIN, HOME, PROJECT2);
  await agent2.init();
  const agentCount = (p) => p.$$eval("#agent option", (os) => os.filter((o) => o.value).length);
  await until("both agents listed", async () => (await agentCount(panel)) === 2);
  const page2 = await ctx.newPage();
  const pageUrl2 = pageUrl.replace("shop.html", "other.html");
  await page2.goto(pageUrl2);
  const panel2 = await openPanel(await tabOf(pageUrl2));
  await until("the second tab to connect", () => panel2.$eval("#conn", (e) => e.dataset.state === "open"));
  await until("the second tab to ask for a choice", () => panel2.$eval("#agent-note", (e) => e.textContent.includes("choose")));
  const second = await panel2.$$eval("#agent option", (os, p) => os.find((o) => o.textContent.endsWith(p))?.value, PROJECT2);
  check(second, "the second project's agent is listed");
  await panel2.selectOption("#agent", second);
  await until("the choice to stick", () =>
    panel2.$eval("#agent-note", (e, id) => e.textContent === "" && document.querySelector("#agent").value === id, second),
  );
  await panel2.click("#pick");
  await until("picking in the second tab", () => panel2.$eval("#pick", (e) => e.dataset.picking === "true"));
  await page2.bringToFront();
  const h1 = await page2.locator("h1").boundingBox();
  await page2.mouse.move(h1.x + 5, h1.y + 5);
  const waiting2 = agent2.tool("get_ui_context", { wait_seconds: 20 });
  await page2.mouse.click(h1.x + 5, h1.y + 5);
  const g2 = (await waiting2).structuredContent;
  check(g2.selector === "h1" && g2.page.url === pageUrl2 && g2.sessionId !== sid, `the second agent sees the second tab: ${g2.selector}`);
  await panel2.bringToFront();
  await until("the second selection stored", () => panel2.$eval("#selection", (e, id) => e.dataset.contextId === id, g2.contextId));
  await panel2.fill("#message", "tab two asks");
  await panel2.press("#message", "Enter");
  const m2 = (await agent2.tool("get_ui_context", { wait_seconds: 10 })).structuredContent;
  check(m2.userMessage === "tab two asks" && m2.sessionId === g2.sessionId, "the second tab's message reaches the second agent");
  const m1 = (await agent.tool("get_ui_context", {})).structuredContent;
  check(m1.userMessage === undefined && m1.sessionId === sid, "and not the first agent");
  await agent2.tool("respond_to_browser", { sessionId: g2.sessionId, messageId: m2.messageId, message: "answer for tab two", isComplete: true });
  await until("the answer in the second panel", () =>
    panel2.$eval("#chat > li.assistant:last-child .md", (e) => e.textContent === "answer for tab two"),
  );

  // ---- an agent stops mid-answer: the daemon closes it, the panel ends its caret and status ----
  await panel2.fill("#message", "tab two asks again");
  await panel2.press("#message", "Enter");
  const m2b = (await agent2.tool("get_ui_context", { wait_seconds: 10 })).structuredContent;
  check(m2b.userMessage === "tab two asks again" && m2b.messageId !== m2.messageId, `a new message, with an id of its own: ${m2b.messageId}`);
  await agent2.tool("update_status", { sessionId: g2.sessionId, status: "editing", detail: "page.css" });
  await agent2.tool("respond_to_browser", { sessionId: g2.sessionId, messageId: m2b.messageId, message: "Half an answer", isComplete: false });
  const last2 = () => panel2.$eval("#chat > li.assistant:last-child", (e) => ({
    text: e.querySelector(".md")?.textContent ?? "",
    complete: e.dataset.complete,
    message: e.dataset.messageId,
    closed: e.querySelector(".meta.closed")?.textContent ?? "",
  }));
  await until("the part, its caret and the status", async () => {
    const b = await last2();
    const status = await panel2.textContent("#status");
    return b.text === "Half an answer" && b.complete === "false" && b.message === m2b.messageId && status.includes("editing");
  });
  agent2.close();
  agent2 = undefined;
  await until("the answer closed unfinished, the status cleared", async () => {
    const b = await last2();
    const status = await panel2.textContent("#status");
    return b.text === "Half an answer" && b.complete === "true" && b.closed.includes("disconnected") && status === "";
  });
  check(
    (await panel2.$$eval("#chat > li.assistant", (es) => es.map((e) => e.dataset.messageId))).join(",") === `${m2.messageId},${m2b.messageId}`,
    "each answer under its own message",
  );
  await panel.bringToFront();
  await panel.fill("#message", "tab one again");
  await panel.press("#message", "Enter");
  const m1b = (await agent.tool("get_ui_context", { wait_seconds: 10 })).structuredContent;
  check(m1b.userMessage === "tab one again" && m1b.sessionId === sid, "the first tab still reaches the first agent");
  check(!(await panel.textContent("#chat")).includes("answer for tab two"), "the second tab's answer stays out of the first");
  await panel2.screenshot({ path: join(SHOTS, "panel-second-tab.png") });
  summary.screenshots.push("panel-second-tab.png");

  // ---- a browser restart: the page's tab gets its conversation back from the daemon ----
  const said = (p) =>
    p.$$eval("#chat > li", (es) => es.map((e) => `${e.className}: ${e.querySelector(".md, .text")?.textContent ?? ""}`));
  const before = await said(panel);
  await ctx.close();
  ctx = undefined;
  const relaunched = await launch(EXT, profile, EXT_ID);
  ctx = relaunched.ctx;
  const page3 = ctx.pages()[0] ?? (await ctx.newPage());
  await page3.goto(pageUrl);
  const panel3 = await relaunched.openPanel(await relaunched.tabOf(pageUrl));
  const restored = await until("the earlier conversation restored", async () => {
    const now = await said(panel3);
    return now.length === before.length && now;
  });
  check(JSON.stringify(restored) === JSON.stringify(before), `the same conversation: ${JSON.stringify(restored)} vs ${JSON.stringify(before)}`);
  const earlier = await panel3.$$eval("#chat > li.user .meta", (es) => es.map((e) => e.textContent));
  check(earlier.every((t) => t.startsWith("earlier · ")), `restored messages say so: ${earlier}`);
  await panel3.screenshot({ path: join(SHOTS, "panel-after-browser-restart.png") });
  summary.screenshots.push("panel-after-browser-restart.png");
  summary.restoredEntries = restored.length;

  summary.ok = true;
} finally {
  await ctx?.close().catch(() => {});
  agent?.close();
  agent2?.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
  rmSync(dbDir, { recursive: true, force: true });
}
console.log(JSON.stringify(summary));
