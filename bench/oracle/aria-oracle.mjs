#!/usr/bin/env node
// aria-oracle.mjs: reference ARIA snapshots from Playwright, for conformance testing.
//
// The bench's copy of the shared oracle. It differs only by what the speed comparison
// needs: --timing (per-input milliseconds, timed in Node around each Playwright call),
// --repeat K (each snapshot call K times, so a warm median can be taken), --offline
// (Chromium never leaves the machine: real pages name remote scripts and images), and
// JSONL records that name a "file" instead of carrying "html".
//
// For every HTML input it records two snapshots taken by the pinned playwright-core:
//   NAME.aria.yaml  await page.locator('body').ariaSnapshot()   (plain format)
//   NAME.ai.yaml    await page.ariaSnapshot({ mode: 'ai' })     (the [ref=eN] format that
//                   playwright-mcp's browser_snapshot tool shows)
//
// One browser serves all inputs; each input gets a fresh browser context and page, so ref
// numbering (e1, e2, ...; f1e1 inside the first iframe) starts over for every input.
//
// Usage:
//   node aria-oracle.mjs [options] FILE.html [FILE.html ...]
//   node aria-oracle.mjs [options] --jsonl IN.jsonl [--jsonl-out OUT.jsonl]
// Run with --help for the options.

import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// With --offline: every http(s)/ws request goes to a closed loopback port and fails at
// once, no name is resolved, and WebRTC sends no UDP. file:// pages still load.
export const OFFLINE_ARGS = [
  '--proxy-server=127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

const HELP = `aria-oracle: Playwright ARIA snapshots (plain + AI/ref format) for HTML inputs

Usage:
  node aria-oracle.mjs [options] FILE.html [FILE.html ...]
  node aria-oracle.mjs [options] --jsonl IN.jsonl [--jsonl-out OUT.jsonl]

Options:
  --out DIR            Write NAME.aria.yaml / NAME.ai.yaml into DIR (default: next to each input).
  --load file|content  Load files via file:// URL (default) or page.setContent(html).
                       JSONL records with "html" are always loaded with page.setContent.
  --viewport WxH       Viewport size in CSS pixels (default 1280x720).
  --no-js              Disable JavaScript in the page (javaScriptEnabled: false).
  --timeout MS         Per-input time limit for loading + both snapshots (default 30000).
  --json               Also write NAME.ai.json (page.ariaSnapshotJSON({ mode: 'ai' })).
  --chromium PATH      Chromium executable (default $CHROMIUM_PATH or /usr/bin/chromium).
  --jsonl IN           Batch mode: IN has one JSON object per line with at least
                       {"id", "html"} or {"id", "file"} (a file is loaded as --load says);
                       other fields are copied through. Each output line gets "aria"
                       and "ai" (or "error"). "-" means stdin.
  --jsonl-out OUT      Where batch output goes (default stdout).
  --timing             Record milliseconds per input, timed in Node around each call:
                       setup (newContext + newPage), load (goto or setContent, until
                       "load"), aria (locator('body').ariaSnapshot(), per repeat) and
                       ai (page.ariaSnapshot({mode:'ai'}), per repeat). JSONL records
                       get "timing"; file inputs get NAME.timing.json.
  --repeat K           Take each snapshot K times in a row (default 1); the output text
                       is the first call's. Repeats show the warm cost apart from the
                       first call, which also injects Playwright's script.
  --offline            Keep Chromium off the network (see OFFLINE_ARGS); pages still get
                       their load event, with every remote resource failed.
  --quiet              No progress lines on stderr.
  -h, --help           This text.

Exit status: 0 when every input succeeded, 1 when any input failed, 2 on usage errors.`;

function parseViewport(text) {
  const m = /^(\d+)x(\d+)$/.exec(text || '');
  if (!m)
    throw new UsageError(`--viewport wants WIDTHxHEIGHT, got "${text}"`);
  return { width: Number(m[1]), height: Number(m[2]) };
}

class UsageError extends Error {}

export function parseArgs(argv) {
  const opts = {
    out: null,
    load: 'file',
    viewport: { width: 1280, height: 720 },
    javaScriptEnabled: true,
    timeout: 30000,
    json: false,
    chromium: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    jsonl: null,
    jsonlOut: null,
    quiet: false,
    help: false,
    timing: false,
    repeat: 1,
    offline: false,
    files: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length)
        throw new UsageError(`${arg} needs a value`);
      return argv[++i];
    };
    switch (arg) {
      case '--out': opts.out = value(); break;
      case '--load': opts.load = value(); break;
      case '--viewport': opts.viewport = parseViewport(value()); break;
      case '--no-js': opts.javaScriptEnabled = false; break;
      case '--timeout': opts.timeout = Number(value()); break;
      case '--json': opts.json = true; break;
      case '--chromium': opts.chromium = value(); break;
      case '--jsonl': opts.jsonl = value(); break;
      case '--jsonl-out': opts.jsonlOut = value(); break;
      case '--quiet': opts.quiet = true; break;
      case '--timing': opts.timing = true; break;
      case '--repeat': opts.repeat = Number(value()); break;
      case '--offline': opts.offline = true; break;
      case '-h': case '--help': opts.help = true; break;
      default:
        if (arg.startsWith('-') && arg !== '-')
          throw new UsageError(`unknown option ${arg}`);
        opts.files.push(arg);
    }
  }
  if (!['file', 'content'].includes(opts.load))
    throw new UsageError(`--load wants "file" or "content", got "${opts.load}"`);
  if (!Number.isFinite(opts.timeout) || opts.timeout <= 0)
    throw new UsageError('--timeout wants a positive number of milliseconds');
  if (!Number.isInteger(opts.repeat) || opts.repeat < 1 || opts.repeat > 100)
    throw new UsageError('--repeat wants a whole number from 1 to 100');
  return opts;
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// A long-lived browser that produces snapshots for one input at a time.
export class AriaOracle {
  constructor(options = {}) {
    this.options = {
      chromium: options.chromium || process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      viewport: options.viewport || { width: 1280, height: 720 },
      javaScriptEnabled: options.javaScriptEnabled ?? true,
      timeout: options.timeout || 30000,
      json: !!options.json,
      timing: !!options.timing,
      repeat: options.repeat || 1,
      offline: !!options.offline,
    };
    this.browser = null;
  }

  async start() {
    if (this.browser?.isConnected())
      return;
    // Playwright gives every launch a fresh temporary --user-data-dir of its own and
    // refuses one passed in args, so none is passed here.
    this.browser = await chromium.launch({
      executablePath: this.options.chromium,
      args: this.options.offline ? [...CHROMIUM_ARGS, ...OFFLINE_ARGS] : CHROMIUM_ARGS,
      timeout: 60000,
    });
  }

  async close() {
    const browser = this.browser;
    this.browser = null;
    if (browser)
      await browser.close().catch(() => {});
  }

  // source: { html } (loaded with setContent) or { file } (loaded from its file:// URL).
  // Returns { aria, ai, aiJson?, timing? }.
  async snapshot(source) {
    await this.start();
    const timed = async (fn) => {
      const start = performance.now();
      const value = await fn();
      return [value, performance.now() - start];
    };
    const setupStart = performance.now();
    const context = await this.browser.newContext({
      viewport: this.options.viewport,
      javaScriptEnabled: this.options.javaScriptEnabled,
      // Keep the environment fixed so outputs do not depend on the host.
      locale: 'en-US',
      timezoneId: 'UTC',
      colorScheme: 'light',
      reducedMotion: 'reduce',
    });
    const work = async () => {
      const page = await context.newPage();
      const setupMs = performance.now() - setupStart;
      page.setDefaultTimeout(this.options.timeout);
      const [, loadMs] = await timed(() => source.file !== undefined
        ? page.goto(pathToFileURL(path.resolve(source.file)).href, { waitUntil: 'load' })
        : page.setContent(source.html, { waitUntil: 'load' }));
      // The plain snapshot first: it assigns no refs, so the AI snapshot's refs start at e1.
      // Repeats of the AI snapshot keep its refs: an unchanged element keeps its ref.
      const ariaMs = [];
      const aiMs = [];
      let aria;
      let ai;
      for (let i = 0; i < this.options.repeat; i++) {
        const [text, ms] = await timed(() => page.locator('body').ariaSnapshot());
        aria ??= text;
        ariaMs.push(ms);
      }
      for (let i = 0; i < this.options.repeat; i++) {
        const [text, ms] = await timed(() => page.ariaSnapshot({ mode: 'ai' }));
        ai ??= text;
        aiMs.push(ms);
      }
      const result = { aria, ai };
      if (this.options.json)
        result.aiJson = await page.ariaSnapshotJSON({ mode: 'ai' });
      if (this.options.timing) {
        const round = ms => Math.round(ms * 1000) / 1000;
        result.timing = {
          setup_ms: round(setupMs),
          load_ms: round(loadMs),
          aria_ms: ariaMs.map(round),
          ai_ms: aiMs.map(round),
        };
      }
      return result;
    };
    try {
      return await withTimeout(work(), this.options.timeout, 'snapshot');
    } finally {
      await context.close().catch(() => {});
      // A crashed or hung browser is replaced before the next input.
      if (!this.browser?.isConnected())
        await this.close();
    }
  }
}

function log(opts, message) {
  if (!opts.quiet)
    process.stderr.write(message + '\n');
}

async function runFiles(oracle, opts) {
  let failures = 0;
  for (const file of opts.files) {
    const base = path.basename(file).replace(/\.x?html?$/i, '');
    const outDir = opts.out || path.dirname(path.resolve(file));
    try {
      const source = opts.load === 'file' ? { file } : { html: fs.readFileSync(file, 'utf8') };
      const result = await oracle.snapshot(source);
      fs.mkdirSync(outDir, { recursive: true });
      fs.writeFileSync(path.join(outDir, `${base}.aria.yaml`), result.aria + '\n');
      fs.writeFileSync(path.join(outDir, `${base}.ai.yaml`), result.ai + '\n');
      if (result.aiJson !== undefined)
        fs.writeFileSync(path.join(outDir, `${base}.ai.json`), JSON.stringify(result.aiJson, null, 2) + '\n');
      if (result.timing !== undefined)
        fs.writeFileSync(path.join(outDir, `${base}.timing.json`), JSON.stringify(result.timing) + '\n');
      log(opts, `ok    ${file}`);
    } catch (e) {
      failures++;
      log(opts, `FAIL  ${file}: ${e.message.split('\n')[0]}`);
    }
  }
  return failures;
}

async function runJsonl(oracle, opts) {
  const text = fs.readFileSync(opts.jsonl === '-' ? 0 : opts.jsonl, 'utf8');
  const out = opts.jsonlOut ? fs.createWriteStream(opts.jsonlOut) : process.stdout;
  let failures = 0;
  let lineNo = 0;
  for (const line of text.split('\n')) {
    lineNo++;
    if (!line.trim())
      continue;
    let record;
    try {
      record = JSON.parse(line);
    } catch (e) {
      failures++;
      log(opts, `FAIL  line ${lineNo}: not JSON`);
      continue;
    }
    let source;
    if (typeof record.html === 'string')
      source = { html: record.html };
    else if (typeof record.file === 'string')
      source = opts.load === 'file' ? { file: record.file } : { html: fs.readFileSync(record.file, 'utf8') };
    if (!source) {
      failures++;
      log(opts, `FAIL  line ${lineNo}: no "html" or "file" string`);
      continue;
    }
    try {
      const result = await oracle.snapshot(source);
      Object.assign(record, { aria: result.aria, ai: result.ai });
      if (result.aiJson !== undefined)
        record.aiJson = result.aiJson;
      if (result.timing !== undefined)
        record.timing = result.timing;
      delete record.error;
      log(opts, `ok    ${record.id ?? 'line ' + lineNo}`);
    } catch (e) {
      failures++;
      record.error = e.message.split('\n')[0];
      log(opts, `FAIL  ${record.id ?? 'line ' + lineNo}: ${record.error}`);
    }
    out.write(JSON.stringify(record) + '\n');
  }
  if (out !== process.stdout)
    await new Promise(resolve => out.end(resolve));
  return failures;
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError))
      throw e;
    process.stderr.write(`aria-oracle: ${e.message}\n\n${HELP}\n`);
    return 2;
  }
  if (opts.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (!opts.jsonl && !opts.files.length) {
    process.stderr.write(`aria-oracle: no input given\n\n${HELP}\n`);
    return 2;
  }
  if (!fs.existsSync(opts.chromium)) {
    process.stderr.write(`aria-oracle: no Chromium at ${opts.chromium} (apt-get install chromium, or pass --chromium PATH)\n`);
    return 2;
  }
  const oracle = new AriaOracle(opts);
  const stop = () => { oracle.close().finally(() => process.exit(130)); };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    const failures = opts.jsonl ? await runJsonl(oracle, opts) : await runFiles(oracle, opts);
    return failures ? 1 : 0;
  } finally {
    await oracle.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = await main();
