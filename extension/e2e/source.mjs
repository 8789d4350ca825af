// The pick names its source: small React 18, React 19, Vue 3 and Svelte 5
// apps, built here as development builds (apps/build.mjs), served on
// 127.0.0.1; each of the 24 marked elements (`data-pick="pN"`) of each app
// is picked with the real picker (widened with ↑ when a child covers it)
// and the source the agent reads in get_ui_context is scored against the
// line of the app's code that writes the element. The marks are taken off
// the page before picking, so nothing can read the answer from them. A production build of the
// same app must give no source and no error. Progress on stderr; the last
// stdout line is a JSON summary.
//
// Environment: WEBFOLD_BIN, WEBFOLD_HOME, WEBFOLD_PROJECT, EXTENSION_DIR,
// EXTENSION_ID, SHOTS_DIR, APPS_OUT (a scratch folder for the builds).

import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, check, env, launch, log, until } from "./lib.mjs";

const BIN = env("WEBFOLD_BIN");
const HOME = env("WEBFOLD_HOME");
const PROJECT = env("WEBFOLD_PROJECT");
const EXT = env("EXTENSION_DIR");
const EXT_ID = env("EXTENSION_ID");
const SHOTS = env("SHOTS_DIR");
const OUT = env("APPS_OUT");
const APPS = join(dirname(fileURLToPath(import.meta.url)), "apps");
const PICKS = 24;

/** Where each `data-pick` is written: `pN` → { file: "src/X.jsx", line }. */
function truth(app) {
  const src = join(APPS, app, "src");
  const where = {};
  for (const name of readdirSync(src)) {
    readFileSync(join(src, name), "utf8")
      .split("\n")
      .forEach((text, i) => {
        const m = /data-pick="(p\d+)"/.exec(text);
        if (m) where[m[1]] = { file: `src/${name}`, line: i + 1 };
      });
  }
  return where;
}

function serve(root) {
  const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };
  const server = createServer((req, res) => {
    const path = join(root, decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!path.startsWith(root) || !existsSync(path)) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" });
    res.end(readFileSync(path));
  });
  return new Promise((r) => server.listen(0, "127.0.0.1", () => r(server)));
}

log("building the apps (development builds, and a production one)");
execFileSync("node", [join(APPS, "build.mjs"), OUT], { stdio: ["ignore", "inherit", "inherit"] });
execFileSync("node", [join(APPS, "build.mjs"), OUT, "--production"], { stdio: ["ignore", "inherit", "inherit"] });
const server = await serve(OUT);
const base = `http://127.0.0.1:${server.address().port}`;
const profile = mkdtempSync(join(tmpdir(), "webfold-source-profile-"));
const summary = { screenshots: [], apps: {} };
let ctx;
let agent;
try {
  const browser = await launch(EXT, profile, EXT_ID);
  ctx = browser.ctx;
  const { sw, tabOf, openPanel } = browser;
  const pairText = execFileSync(BIN, ["pair"], { env: { ...process.env, WEBFOLD_HOME: HOME } }).toString();
  agent = new Agent(BIN, HOME, PROJECT);
  await agent.init();

  /** Picks the first `[data-pick=id]` of `page` through `panel`; the agent's structured context. */
  async function pick(page, panel, id, tabId) {
    // A point on the element, and how many parents up from what lies there.
    const { x, y, up } = await page.evaluate((id) => {
      const el = window.__picks[id];
      const r = el.getClientRects()[0] ?? el.getBoundingClientRect();
      const x = r.left + Math.min(r.width / 2, 6);
      const y = r.top + Math.min(r.height / 2, 6);
      let at = document.elementFromPoint(x, y);
      let up = 0;
      while (at && at !== el) {
        at = at.parentElement;
        up += 1;
      }
      return { x, y, up: at === el ? up : -1 };
    }, id);
    check(up >= 0, `${id} can be reached under the pointer`);
    await panel.click("#pick");
    await until("picking to start", () => panel.$eval("#pick", (e) => e.dataset.picking === "true"));
    await page.bringToFront();
    await page.mouse.move(x, y);
    const pointed = () =>
      sw.evaluate(
        async (t) =>
          (await chrome.scripting.executeScript({ target: { tabId: t }, func: () => window.__webfoldPicker?.marks?.() }))[0]?.result,
        tabId,
      );
    await until("the picker to follow the pointer", async () => (await pointed())?.display === "block");
    for (let i = 0; i < up; i++) await page.keyboard.press("ArrowUp");
    const waiting = agent.tool("get_ui_context", { wait_seconds: 20 });
    await page.mouse.click(x, y);
    const result = await waiting;
    const got = { ...result.structuredContent, text: result.content.map((c) => c.text ?? "").join("\n") };
    const same = await page.evaluate(([sel, id]) => document.querySelector(sel) === window.__picks[id], [got.selector, id]);
    check(same, `picked ${id}, got ${got.selector}`);
    await panel.bringToFront();
    return got;
  }

  async function openApp(url) {
    const page = await ctx.newPage();
    await page.goto(url);
    await page.waitForSelector(`[data-pick="p${PICKS}"]`);
    // The test keeps the marked elements; the page loses the marks.
    await page.evaluate(() => {
      window.__picks = {};
      for (const el of document.querySelectorAll("[data-pick]")) {
        window.__picks[el.dataset.pick] ??= el;
        el.removeAttribute("data-pick");
      }
    });
    const tabId = await tabOf(url);
    const panel = await openPanel(tabId);
    // Unpaired only once the panel has asked the native host (not installed
    // here); paired from the first app on.
    const settled = () => panel.$eval("#conn", (e) => e.dataset.state);
    await until("the panel to know whether it is paired", async () => ["unpaired", "open"].includes(await settled()));
    if ((await settled()) === "unpaired") {
      await panel.fill("#pair-text", pairText);
      await panel.click("#pair");
    }
    await until("the panel to connect", () => panel.$eval("#conn", (e) => e.dataset.state === "open"));
    return { page, panel, tabId };
  }

  for (const [app, dir] of [["react18", "react"], ["react19", "react"], ["vue", "vue"], ["svelte", "svelte"]]) {
    const where = truth(dir);
    const { page, panel, tabId } = await openApp(`${base}/${app}/index.html`);
    const misses = [];
    let right = 0;
    let text = "";
    for (let n = 1; n <= PICKS; n++) {
      const id = `p${n}`;
      const got = await pick(page, panel, id, tabId);
      const src = got.source;
      text = got.text;
      const want = where[id];
      const ok = src && src.file.endsWith(`${dir}/${want.file}`) && src.line === want.line;
      if (ok) right += 1;
      else misses.push(`${id}: want ${want.file}:${want.line}, got ${src ? `${src.file}:${src.line}` : "nothing"}`);
    }
    // The agent reads it too, inside the fenced page content.
    check(new RegExp(`source: \\S*${dir}/src/\\S+:\\d+`).test(text), `${app}: the agent's text names the source: ${text}`);
    // The last pick's card in the panel names its file and line.
    const shown = await panel.$eval(".sel-source", (e) => e.textContent).catch(() => "");
    const last = where[`p${PICKS}`];
    check(shown.includes(`${last.file.split("/").pop()}:${last.line}`), `${app}: the panel shows the source: ${shown}`);
    await panel.screenshot({ path: join(SHOTS, `source-${app}.png`) });
    summary.screenshots.push(`source-${app}.png`);
    summary.apps[app] = { picks: PICKS, right, misses };
    log(`${app}: ${right}/${PICKS} picks name the right file and line${misses.length ? `; misses: ${misses.join("; ")}` : ""}`);
    await panel.close();
    await page.close();
  }

  // A production build: the same picks, no source, no error.
  for (const app of ["react18-production", "vue-production", "svelte-production"]) {
    const { page, panel, tabId } = await openApp(`${base}/${app}/index.html`);
    const got = await pick(page, panel, "p18", tabId);
    check(got.source === undefined, `${app}: no source from a production build: ${JSON.stringify(got.source)}`);
    check(!(await panel.isVisible("#problem")), `${app}: no problem shown`);
    await panel.close();
    await page.close();
  }
  summary.ok = true;
} finally {
  agent?.close();
  await ctx?.close().catch(() => {});
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(summary));
