// Pairing with no paste: a fresh profile whose browser knows webfold's
// native messaging host (`webfold install-host --profile`), and no daemon
// running. Opening the panel must start the daemon and connect; a question
// asked before any agent runs is kept and pushed to the first agent that
// connects (as a Claude Code channel event); a daemon killed with -9 must
// come back, started by the host, and the panel with it.
// Progress goes to stderr; the last stdout line is a JSON summary.
//
// Environment: WEBFOLD_BIN, WEBFOLD_HOME, WEBFOLD_PROJECT, EXTENSION_DIR,
// EXTENSION_ID, PROFILE (set up by install-host), SHOTS_DIR; the daemon's
// port in WEBFOLD_DAEMON_PORT, which Chromium passes on to the host.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, check, env, launch, log, pickIn, serveFixture, until } from "./lib.mjs";

const BIN = env("WEBFOLD_BIN");
const HOME = env("WEBFOLD_HOME");
const PROJECT = env("WEBFOLD_PROJECT");
const EXT = env("EXTENSION_DIR");
const EXT_ID = env("EXTENSION_ID");
const PROFILE = env("PROFILE");
const SHOTS = env("SHOTS_DIR");

const summary = { screenshots: [], pastes: 0 };
const daemonPid = () => {
  try {
    return JSON.parse(readFileSync(join(HOME, "daemon.json"), "utf8")).pid;
  } catch {
    return undefined;
  }
};

const { server, url: pageUrl } = await serveFixture();
let ctx;
let agent;
try {
  check(daemonPid() === undefined, "no daemon runs before the panel opens");
  const browser = await launch(EXT, PROFILE, EXT_ID);
  ctx = browser.ctx;
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  await page.goto(pageUrl);
  const opened = Date.now();
  const panel = await browser.openPanel(await browser.tabOf(pageUrl));
  await until("the panel to connect by itself", () => panel.$eval("#conn", (e) => e.dataset.state === "open"), 20_000);
  summary.pairMs = Date.now() - opened;
  check(!(await panel.isVisible("#pairing")), "no pairing form was shown to fill");
  const first = daemonPid();
  check(first, "the host started the daemon");
  log(`panel opened → connected, daemon started by the host: ${summary.pairMs} ms`);

  // No agent yet: a question is kept, and the panel says so.
  await pickIn(panel, page, "#buy");
  const question = "Is anyone there? Make this button blue.";
  await panel.fill("#message", question);
  await panel.press("#message", "Enter");
  await until("the question kept for the next agent", () =>
    panel.$eval("#chat > li.user:last-child .meta", (e) => e.textContent.startsWith("kept for the next agent")),
  );
  await panel.screenshot({ path: join(SHOTS, "host-waiting.png") });
  summary.screenshots.push("host-waiting.png");

  // An agent that takes browser events connects: the question is pushed to
  // it, once, and the dot turns green.
  agent = new Agent(BIN, HOME, PROJECT);
  await agent.init({ experimental: { "claude/channel": {} } });
  const event = await until("the question pushed to the agent", () =>
    agent.notifications.find((n) => n.method === "notifications/claude/channel"),
  );
  check(event.params.content.includes(question) && event.params.meta.message_id, `the event: ${JSON.stringify(event.params)}`);
  await until("the panel to say whose it is now", () =>
    panel.$eval("#chat > li.user:last-child .meta", (e) => e.textContent.startsWith("to ")),
  );
  await until("the dot to turn green (an agent to ask)", () =>
    panel.$eval("#conn", (e) => e.dataset.state === "open" && e.dataset.agents !== "0"),
  );
  await agent.tool("respond_to_browser", {
    sessionId: event.params.meta.session_id,
    messageId: event.params.meta.message_id,
    message: "Here now: done.",
    isComplete: true,
  });
  await until("the answer in the panel", () =>
    panel.$eval("#chat > li.assistant:last-child .md", (e) => e.textContent === "Here now: done."),
  );
  check(agent.notifications.filter((n) => n.method === "notifications/claude/channel").length === 1, "the event came once");
  await panel.screenshot({ path: join(SHOTS, "host-paired.png") });
  summary.screenshots.push("host-paired.png");

  // kill -9: the panel notices, the host starts a new daemon, the panel reconnects.
  // The panel may be back before a poll lands between the two, so the
  // panel itself records the moment its connection leaves "open".
  await panel.$eval("#conn", (conn) => {
    window.sawConnLeaveOpen = false;
    new MutationObserver(() => {
      if (conn.dataset.state !== "open") window.sawConnLeaveOpen = true;
    }).observe(conn, { attributes: true, attributeFilter: ["data-state"] });
  });
  const killed = Date.now();
  process.kill(first, "SIGKILL");
  await until("the panel to see the daemon gone", () => panel.evaluate(() => window.sawConnLeaveOpen)).catch(
    async (e) => {
      // Say which side kept the link: the process, the panel or the record.
      let alive = true;
      try {
        process.kill(first, 0);
      } catch {
        alive = false;
      }
      const said = await panel.$eval("#conn-text", (t) => t.textContent).catch((err) => String(err));
      throw new Error(
        `${e.message}; daemon ${first} ${alive ? "still alive" : "gone"}; daemon.json pid now ${daemonPid()}; the panel says: ${said}`,
      );
    },
  );
  await until(
    "a new daemon and the panel back on it",
    async () => daemonPid() !== first && (await panel.$eval("#conn", (e) => e.dataset.state === "open")),
    20_000,
  );
  summary.backMs = Date.now() - killed;
  log(`daemon killed → a new one started and the panel back: ${summary.backMs} ms`);
  summary.ok = true;
} finally {
  agent?.close();
  const pid = daemonPid();
  if (pid) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  await ctx?.close().catch(() => {});
  server.close();
}
console.log(JSON.stringify(summary));
