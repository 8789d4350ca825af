// Pairing with no paste: a fresh profile whose browser knows webfold's
// native messaging host (`webfold install-host --profile`), and no daemon
// running. Opening the panel must start the daemon and connect; a daemon
// killed with -9 must come back, started by the host, and the panel with it.
// Progress goes to stderr; the last stdout line is a JSON summary.
//
// Environment: WEBFOLD_BIN, WEBFOLD_HOME, WEBFOLD_PROJECT, EXTENSION_DIR,
// EXTENSION_ID, PROFILE (set up by install-host), SHOTS_DIR; the daemon's
// port in WEBFOLD_DAEMON_PORT, which Chromium passes on to the host.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { check, env, launch, log, serveFixture, until } from "./lib.mjs";

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

  // An agent: the dot turns green.
  agent = spawn(BIN, ["mcp", "--tools", "ui", "--no-db"], { cwd: PROJECT, stdio: ["pipe", "ignore", "inherit"] });
  await until("the dot to turn green (an agent to ask)", () =>
    panel.$eval("#conn", (e) => e.dataset.state === "open" && e.dataset.agents !== "0"),
  );
  await panel.screenshot({ path: join(SHOTS, "host-paired.png") });
  summary.screenshots.push("host-paired.png");

  // kill -9: the panel notices, the host starts a new daemon, the panel reconnects.
  const killed = Date.now();
  process.kill(first, "SIGKILL");
  await until("the panel to see the daemon gone", () => panel.$eval("#conn", (e) => e.dataset.state !== "open"));
  await until(
    "a new daemon and the panel back on it",
    async () => daemonPid() !== first && (await panel.$eval("#conn", (e) => e.dataset.state === "open")),
    20_000,
  );
  summary.backMs = Date.now() - killed;
  log(`daemon killed → a new one started and the panel back: ${summary.backMs} ms`);
  summary.ok = true;
} finally {
  agent?.kill();
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
