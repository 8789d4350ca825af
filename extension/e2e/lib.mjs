// What the extension's browser drivers share: environment, checks, waiting
// on conditions (no timed sleeps), the fixture page, Debian's Chromium with
// the built extension loaded, and the coding agent's MCP client.

import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};

export const log = (...a) => console.error("[drive]", ...a);

export function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

/** Polls `probe` until it returns something truthy, or fails after `ms`. */
export async function until(what, probe, ms = 15_000) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await probe();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${last})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The fixture shop on 127.0.0.1 (any path); `url` is its shop page. */
export async function serveFixture() {
  const fixture = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "fixture.html"));
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(fixture);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${server.address().port}/shop.html` };
}

/**
 * Chromium with the extension `ext` in a fresh `profile`: the context, the
 * extension's service worker and its id (checked against `expectedId`), a
 * tab-id lookup by URL, and a way to open the panel for a tab.
 */
export async function launch(ext, profile, expectedId) {
  const launched = Date.now();
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // Nothing leaves this machine: every name but loopback fails to resolve.
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
      `--disable-extensions-except=${ext}`,
      `--load-extension=${ext}`,
    ],
  });
  const sw = ctx.serviceWorkers()[0] ?? (await ctx.waitForEvent("serviceworker", { timeout: 10_000 }));
  const extId = new URL(sw.url()).host;
  check(extId === expectedId, `extension id ${extId} is the manifest key's ${expectedId}`);
  log(`extension ${extId} loaded in ${Date.now() - launched} ms`);
  const tabOf = (url) =>
    until(`the tab id of ${url}`, () => sw.evaluate(async (u) => (await chrome.tabs.query({ url: u }))[0]?.id, url));
  // The panel as a page in a window of its own, beside the page's window
  // (a real side panel is not a page Playwright can drive): the page keeps
  // its window, which captureVisibleTab shoots.
  const openPanel = async (tab) => {
    const url = `chrome-extension://${extId}/panel.html?tab=${tab}`;
    const [p] = await Promise.all([
      ctx.waitForEvent("page", { predicate: (x) => x.url() === url, timeout: 10_000 }),
      sw.evaluate((u) => chrome.windows.create({ url: u, width: 420, height: 760 }), url),
    ]);
    await p.setViewportSize({ width: 420, height: 760 });
    return p;
  };
  return { ctx, sw, extId, tabOf, openPanel };
}

// The coding agent: webfold's MCP server over stdio, spoken to as a client does.
export class Agent {
  /** `webfold mcp` (the binary `bin`, daemon home `home`) in `project`; with `db`, the page tools too, on conversations kept there. */
  constructor(bin, home, project, db) {
    const args = db ? ["mcp", "--tools", "page,ui", "--db", db] : ["mcp", "--tools", "ui", "--no-db"];
    this.proc = spawn(bin, args, {
      cwd: project,
      env: { ...process.env, WEBFOLD_HOME: home },
      stdio: ["pipe", "pipe", "inherit"],
    });
    this.next = 1;
    this.waiting = new Map();
    this.notifications = [];
    let buf = "";
    this.proc.stdout.setEncoding("utf8");
    this.proc.stdout.on("data", (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.trim()) continue;
        const msg = JSON.parse(line);
        if (msg.method && msg.id === undefined) {
          // A notification the server pushed (a browser event, a resource update).
          this.notifications.push({ ...msg, at: Date.now() });
          continue;
        }
        const w = this.waiting.get(msg.id);
        if (w) {
          this.waiting.delete(msg.id);
          if (msg.error) w.reject(new Error(JSON.stringify(msg.error)));
          else w.resolve(msg.result);
        }
      }
    });
  }
  request(method, params) {
    const id = this.next++;
    this.proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }
  /** The MCP handshake; `capabilities` as the client declares them (a Claude Code channel: `{experimental: {"claude/channel": {}}}`). */
  async init(capabilities = {}) {
    await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities,
      clientInfo: { name: "e2e-agent", version: "1.0.0" },
    });
    this.proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  }
  async tool(name, args) {
    const r = await this.request("tools/call", { name, arguments: args });
    if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
    return r;
  }
  /** A tool call that must fail: its error text. */
  async refused(name, args) {
    const r = await this.request("tools/call", { name, arguments: args });
    if (!r.isError) throw new Error(`${name} should have failed: ${JSON.stringify(r.content)}`);
    return r.content.map((c) => c.text).join("\n");
  }
  close() {
    this.proc.stdin.end();
    this.proc.kill();
  }
}

/** Picks `selector` on `page` with the real picker, started from `panel`; waits until the tab's selection is stored. */
export async function pickIn(panel, page, selector) {
  await panel.click("#pick");
  await until("picking to start", () => panel.$eval("#pick", (e) => e.dataset.picking === "true"));
  await page.bringToFront();
  const box = await page.locator(selector).boundingBox();
  await page.mouse.move(box.x + 5, box.y + 5);
  await page.mouse.click(box.x + 5, box.y + 5);
  await panel.bringToFront();
  await until("the selection to be stored", () => panel.$eval("#selection", (e) => e.dataset.contextId !== ""));
}
