// Drives the built extension in Debian's Chromium against a `webfold daemon`
// started with a (scripted) model provider: the panel chooses the daemon's
// built-in agent, the user picks and asks, the page changes before the
// model reads its chunk, and the panel shows the answer with the proposed
// changes. The caller checks what the model was sent. Every step waits for
// a condition with a deadline; the last stdout line is a JSON summary.
//
// Environment: WEBFOLD_BIN, WEBFOLD_HOME, EXTENSION_DIR, EXTENSION_ID,
// AGENT_REPLY (the scripted answer's text); CHROMIUM (default /usr/bin/chromium).

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { check, env, launch, log, pickIn, serveFixture, until } from "./lib.mjs";

const BIN = env("WEBFOLD_BIN");
const HOME = env("WEBFOLD_HOME");
const REPLY = env("AGENT_REPLY");

const summary = {};
const { server, url: pageUrl } = await serveFixture();
const profile = mkdtempSync(join(tmpdir(), "webfold-ext-agent-profile-"));
let ctx;
try {
  const browser = await launch(env("EXTENSION_DIR"), profile, env("EXTENSION_ID"));
  ctx = browser.ctx;
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  await page.goto(pageUrl);
  const panel = await browser.openPanel(await browser.tabOf(pageUrl));
  const pairText = execFileSync(BIN, ["pair"], { env: { ...process.env, WEBFOLD_HOME: HOME } }).toString();
  await panel.fill("#pair-text", pairText);
  await panel.click("#pair");
  await until("the connected indicator", () => panel.$eval("#conn", (e) => e.dataset.state === "open"));

  // The built-in agent is offered, named by its provider and model.
  const label = await until("the built-in agent in the list", () =>
    panel.$$eval("#agent option", (os) => os.find((o) => o.value === "webfold-agent")?.textContent),
  );
  check(label.startsWith("webfold agent · openai "), `the built-in agent's name: ${label}`);
  await panel.selectOption("#agent", "webfold-agent");

  // Pick the button; then the page changes before the model reads it.
  await pickIn(panel, page, "#buy");
  await page.evaluate(() => {
    document.querySelector(".price").textContent = "7 € (flash sale)";
  });

  await panel.fill("#message", "Is the price right?");
  await panel.press("#message", "Enter");
  await until("the message to reach the built-in agent", () =>
    // (The answer may be in already: the user's bubble need not be the last.)
    panel.$$eval("#chat > li.user .meta", (es, l) => es.at(-1)?.textContent.startsWith(`to ${l} · `), label),
  );
  const shown = await until(
    "the built-in agent's answer",
    () =>
      panel.$eval("#chat > li.assistant:last-child", (e) =>
        e.dataset.complete === "true"
          ? { text: e.querySelector(".md")?.textContent, changes: e.querySelector("pre.result")?.textContent, meta: e.querySelector(".meta")?.textContent }
          : null,
      ),
    30_000,
  );
  check(shown.text === REPLY, `the reply text: ${JSON.stringify(shown)}`);
  check(JSON.parse(shown.changes).domChanges?.[0]?.selector === ".price", `the proposed changes: ${shown.changes}`);
  check(shown.meta.startsWith("2 model calls · "), `what the run cost: ${shown.meta}`);
  check((await page.textContent(".price")) === "7 € (flash sale)", "the changes are not applied to the page");
  await until("the status to clear", () => panel.$eval("#status", (e) => e.textContent === ""));
  log(`built-in agent: ${JSON.stringify(shown)}`);
  summary.ok = true;
} finally {
  await ctx?.close().catch(() => {});
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(summary));
