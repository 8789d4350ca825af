// The packed package, installed into a fresh folder, against the command
// line on real corpus pages: every view gives the command's text byte for
// byte, errors are WebfoldError in the command's words, and the package's
// `webfold` bin runs the command (`--version`, an MCP tools/list).
//
// Environment: WEBFOLD_BIN (the binary the same sources built),
// WEBFOLD_PACKAGE_DIR (the folder the tarball was installed into),
// WEBFOLD_SHARED (the shared corpus; default: beside the repository).

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "node:http";

const here = dirname(fileURLToPath(import.meta.url));
const BIN = process.env.WEBFOLD_BIN;
const PKG = process.env.WEBFOLD_PACKAGE_DIR;
const SHARED = resolve(process.env.WEBFOLD_SHARED ?? join(here, "../../../../shared"));
const webfold = createRequire(join(PKG, "package.json"))("webfold");

// Options each view is called with (camelCase), besides its defaults.
const CALLS = {
  outline: [{}, { maxTokens: 300 }],
  chunk: [{ selector: "body", maxTokens: 1500 }],
  snapshot: [{}, { maxTokens: 800 }],
  find: [{ query: "the" }],
  markdown: [{}, { maxTokens: 500 }],
  cnt: [{}, { maxTokens: 1000 }],
  links: [{}],
};

function corpusPages(n = 6) {
  const seen = new Set();
  const pages = [];
  for (const line of readFileSync(join(SHARED, "corpus/manifest.jsonl"), "utf8").split("\n")) {
    if (!line.trim()) continue;
    const p = JSON.parse(line);
    if (seen.has(p.set) || p.gzip) continue;
    seen.add(p.set);
    pages.push(join(SHARED, "corpus", p.dir, p.source));
    if (pages.length === n) break;
  }
  return pages;
}

function flags(view, options) {
  const args = [];
  for (const [k, v] of Object.entries(options)) {
    if (view === "find" && k === "query") continue;
    args.push(`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, String(v));
  }
  if (view === "find") args.push(options.query);
  return args;
}

test("every view is a method", () => {
  const names = webfold.VIEWS.map((v) => v.name).sort();
  assert.deepEqual(names, Object.keys(CALLS).sort());
  for (const v of webfold.VIEWS) assert.equal(typeof webfold.Page.prototype[v.method], "function");
});

test("each view prints what the command prints", () => {
  const dir = mkdtempSync(join(tmpdir(), "webfold-node-"));
  for (const source of corpusPages()) {
    const plain = join(dir, "page.html");
    writeFileSync(plain, readFileSync(source));
    for (const v of webfold.VIEWS) {
      // A page keeps a snapshot session, as the command with --session does.
      const keeps = v.session !== "none";
      CALLS[v.name].forEach((options, n) => {
        const page = new webfold.Page(readFileSync(plain), keeps ? { url: `file://${plain}` } : {});
        const got = page[v.method](options);
        const session = keeps ? ["--session", join(dir, `${v.name}-${n}-${Math.random()}.json`)] : [];
        const want = execFileSync(BIN, [v.name, plain, ...flags(v.name, options), ...session]).toString();
        assert.ok(want === got.text || want === `${got.text}\n`, `${v.name} ${JSON.stringify(options)} on ${source}`);
        if (options.maxTokens) {
          assert.ok(got.tokens <= options.maxTokens);
          assert.equal(got.maxTokens, options.maxTokens);
        }
      });
    }
  }
});

test("each view is a function too, giving the method's text", () => {
  for (const source of corpusPages(3)) {
    const bytes = readFileSync(source);
    const options = { url: "https://example.test/a/", contentType: "text/html" };
    for (const v of webfold.VIEWS) {
      for (const call of CALLS[v.name]) {
        const want = new webfold.Page(bytes, options)[v.method](call);
        const got = webfold[v.method](bytes, { ...options, ...call });
        assert.equal(got.text, want.text, `${v.name} ${JSON.stringify(call)} on ${source}`);
        assert.equal(got.tokens, want.tokens);
        assert.deepEqual(got.hints, want.hints);
      }
    }
  }
  assert.throws(() => webfold.markdown("<p>x", { maxTokens: 0 }), { name: "WebfoldError", message: /max_tokens must be a whole number above 0/ });
  assert.throws(() => webfold.view("nope", "<p>x"), { name: "WebfoldError", message: /no view named 'nope'/ });
});

test("a loop of functions holds one page at a time", () => {
  // A Page is freed once the event loop turns; a loop of calls that never
  // yields must not keep every page it read.
  const [source] = corpusPages(1);
  const html = readFileSync(source, "utf8").repeat(Math.ceil(1e6 / readFileSync(source).length));
  const text = webfold.markdown(html, { main: false }).text;
  const before = process.memoryUsage.rss();
  for (let i = 0; i < 60; i++) assert.equal(webfold.markdown(html, { main: false }).text, text);
  const grown = process.memoryUsage.rss() - before;
  assert.ok(grown < 20 * Buffer.byteLength(html), `grew ${grown} bytes over 60 calls on a ${Buffer.byteLength(html)}-byte page`);
});

test("errors are WebfoldError in the command's words", () => {
  const page = new webfold.Page("<html><body><main><a href='/x'>Sign in</a></main></body></html>");
  assert.throws(() => page.snapshot({ maxTokens: 0 }), { name: "WebfoldError", message: /max_tokens must be a whole number above 0/ });
  assert.throws(() => page.chunk({ selector: "nav" }), { name: "WebfoldError", message: /Element not found: nav/ });
  assert.throws(() => page.chunk({ selector: "a[" }), { name: "WebfoldError", message: /invalid selector/ });
  assert.throws(() => new webfold.Page("   "), { name: "WebfoldError", message: /empty input/ });
  assert.throws(() => page.view("nope"), { name: "WebfoldError", message: /no view named 'nope'/ });
});

test("a string is read as the text it is, a Buffer by its charset", () => {
  const html = '<html><head><meta charset="iso-8859-1"></head><body><p>Café crème</p></body></html>';
  assert.match(new webfold.Page(html).markdown({ main: false }).text, /Café crème/);
  assert.match(new webfold.Page(Buffer.from(html, "latin1")).markdown({ main: false }).text, /Café crème/);
});

test("a string in any script reads as its UTF-8 bytes do", () => {
  const whole = (html) => new webfold.Page(html).markdown({ main: false }).text;
  const pages = [
    "<p>plain <a href='https://x.test/a'>ASCII</a></p>",
    "<p>Ünïcödé, one byte a character in the engine</p>",
    "<h1>東京 — Zürich</h1><p>😀 astral 𝄞 and a lone \uD800 surrogate</p>",
  ];
  // Longest first, then shorter: what a longer page left behind is never read.
  for (const html of [pages[2].repeat(50), ...pages].reverse().concat(pages))
    assert.equal(whole(html), whole(Buffer.from(html)), html);
  assert.match(whole(pages[2]), /東京 — Zürich[^]*😀 astral 𝄞 and a lone \uFFFD surrogate/);
});

test("refs carry across calls on one page", () => {
  const page = new webfold.Page("<html><body><button>Buy</button></body></html>", { url: "https://shop.test/" });
  const ref = page.snapshot().text.split("[ref=")[1].split("]")[0];
  assert.match(page.chunk({ ref }).text, /<button>Buy<\/button>/);
});

test("fetch reads a local server", async () => {
  const server = createServer((_, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<html><head><title>Local</title></head><body><h1>Here</h1></body></html>");
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}/p`;
  // The fetch blocks the thread that calls it: a child process calls it,
  // while this process's server answers.
  const child = spawn(process.execPath, ["-e", `
    const w = require(${JSON.stringify(join(PKG, "node_modules/webfold"))});
    const p = w.fetch(${JSON.stringify(url)});
    process.stdout.write(JSON.stringify({ url: p.url, md: p.markdown().text }));
  `]);
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const status = await new Promise((r) => child.on("close", r));
  server.close();
  assert.equal(status, 0, err);
  const got = JSON.parse(out);
  assert.equal(got.url, url);
  assert.match(got.md, /# Here/);
});

test("the package's bin runs the command", async () => {
  const bin = join(PKG, "node_modules/.bin/webfold");
  const version = spawnSync(bin, ["--version"]).stdout.toString().trim();
  assert.equal(version, `webfold ${JSON.parse(readFileSync(join(PKG, "node_modules/webfold/package.json"))).version}`);
  const mcp = spawn(bin, ["mcp", "--no-db"], { stdio: ["pipe", "pipe", "inherit"] });
  let buf = "";
  const answers = new Map();
  mcp.stdout.on("data", (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      answers.get(msg.id)?.(msg.result);
    }
  });
  const ask = (id, method, params) =>
    new Promise((r) => {
      answers.set(id, r);
      mcp.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  await ask(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "node-test", version: "1" } });
  mcp.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  const tools = (await ask(2, "tools/list", {})).tools.map((t) => t.name);
  mcp.stdin.end();
  for (const t of ["get_dom_outline", "page_snapshot", "get_html_chunk"]) assert.ok(tools.includes(t), `${t} in ${tools}`);
});

test("the types are current", async () => {
  const { dts } = await import(join(here, "..", "dts.mjs"));
  assert.equal(readFileSync(join(here, "..", "index.d.ts"), "utf8"), dts(webfold.VIEWS));
});
