// The Node package beside the tools Node users reach for today, on the
// corpus pages, in one process: whole-page Markdown (webfold vs turndown)
// and main content (webfold vs @mozilla/readability on jsdom, then
// turndown). Every tool starts from the same HTML string, so each parse is
// timed with its call. Writes every output and timing as JSON for bench.py,
// which scores them with the same scorer as the Python tools. Run by
// scripts/bench-packages.
//
//   node bench.mjs NPM_DIR --prepare CORPUS_DIR EVERY pages.jsonl
//   node bench.mjs NPM_DIR pages.jsonl out.json
//   node bench.mjs NPM_DIR --startup page.html
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";

const [npmDir, pagesPath, outPath] = process.argv.slice(2);
const require = createRequire(join(npmDir, "package.json"));

if (pagesPath === "--prepare") {
  // Every page decoded once, as a browser (and webfold-bench) decodes it,
  // so that every tool of both languages is handed the same string.
  const [corpus, every, out] = process.argv.slice(4);
  const { markdown } = require("webfold");
  const manifest = readFileSync(join(corpus, "manifest.jsonl"), "utf8").split("\n").filter((l) => l.trim());
  const lines = [];
  manifest.forEach((l, i) => {
    if (i % Number(every) !== 0) return;
    const p = JSON.parse(l);
    let raw = readFileSync(join(corpus, p.dir, p.source));
    if (p.gzip) raw = gunzipSync(raw);
    const html = markdown(raw, { contentType: "text/html", format: "raw", maxTokens: 1_000_000_000 }).text;
    lines.push(JSON.stringify({ id: p.id, set: p.set, dir: p.dir, url: p.url, html }));
  });
  writeFileSync(out, lines.join("\n") + "\n");
  process.stderr.write(`${lines.length} pages decoded\n`);
  process.exit(0);
}

if (pagesPath === "--startup") {
  // One fresh process: require time and the first call's time, in ms.
  const t0 = process.hrtime.bigint();
  const { markdown } = require("webfold");
  const t1 = process.hrtime.bigint();
  const html = readFileSync(outPath, "utf8");
  const t2 = process.hrtime.bigint();
  markdown(html, { url: "http://fakehost/test/page.html" });
  const t3 = process.hrtime.bigint();
  console.log(JSON.stringify({ require_ms: Number(t1 - t0) / 1e6, first_call_ms: Number(t3 - t2) / 1e6 }));
  process.exit(0);
}

// One view a page, as turndown is called: `markdown(html)` lets the page go
// at once, where a `Page` waits for the event loop to be freed.
const { markdown } = require("webfold");
const TurndownService = require("turndown");
const { Readability } = require("@mozilla/readability");
const { JSDOM, VirtualConsole } = require("jsdom");
const HUGE = 1_000_000_000;

const version = (name) => JSON.parse(readFileSync(require.resolve(`${name}/package.json`), "utf8")).version;
const versions = Object.fromEntries(["webfold", "turndown", "@mozilla/readability", "jsdom"].map((n) => [n, version(n)]));
versions.turndown_parser = `@mixmark-io/domino ${JSON.parse(readFileSync(require.resolve("@mixmark-io/domino/package.json"), "utf8")).version}`;

const pages = readFileSync(pagesPath, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

const turndown = new TurndownService();
// jsdom reports the CSS it cannot parse on a console: a silent one.
const quiet = new VirtualConsole();

const tools = {
  whole: [
    ["webfold", (p) => markdown(p.html, { url: p.url ?? undefined, main: false, maxLines: 0, maxTokens: HUGE }).text],
    ["turndown", (p) => turndown.turndown(p.html)],
  ],
  main: [
    ["webfold", (p) => markdown(p.html, { url: p.url ?? undefined, maxLines: 0, maxTokens: HUGE }).text],
    [
      "readability+turndown",
      (p) => {
        const dom = new JSDOM(p.html, { url: p.url ?? "http://localhost/", virtualConsole: quiet });
        try {
          const article = new Readability(dom.window.document).parse();
          return article && article.content ? turndown.turndown(article.content) : "";
        } finally {
          dom.window.close();
        }
      },
    ],
  ],
};

// CPU time (user + system) of the process across the call, in seconds.
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

// Each tool over every page in turn, as a pipeline runs one: taking turns
// page by page leaves every call the caches (and, in Node, the garbage)
// of the tool before it, which is no one's real workload. Garbage is
// collected between tools (untimed), so no tool pays for another's.
//
// `passes` times over, the tools taking turns pass by pass, and the median
// pass counts (every pass's CPU time is kept beside it): one pass of each
// moved by a quarter from one process to the next on this 2-core machine,
// the same tool's passes in one process by a tenth. Outputs are the first
// pass's.
function measure(list, passes) {
  const res = Object.fromEntries(
    list.map(([name]) => [name, { cpu: 0, wall: 0, failed: 0, out: {}, passes: [] }]),
  );
  for (const [name, fn] of list) {
    try {
      fn(pages[0]); // untimed: first-use set-up counts for no one
    } catch {}
  }
  for (let pass = 0; pass < passes; pass++) {
    for (const [name, fn] of list) {
      process.stderr.write(`  ${name}, pass ${pass + 1} of ${passes}\n`);
      globalThis.gc?.();
      const r = res[name];
      let [c, w] = [0, 0];
      for (const p of pages) {
        const c0 = cpu();
        const w0 = process.hrtime.bigint();
        let out;
        try {
          out = fn(p);
        } catch {
          out = "";
          if (pass === 0) r.failed += 1;
        }
        c += cpu() - c0;
        w += Number(process.hrtime.bigint() - w0) / 1e9;
        if (pass === 0) r.out[p.id] = out;
      }
      r.passes.push({ cpu: c, wall: w });
    }
  }
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const r of Object.values(res)) {
    r.cpu = median(r.passes.map((p) => p.cpu));
    r.wall = median(r.passes.map((p) => p.wall));
  }
  return res;
}

process.stderr.write("Node whole page…\n");
const whole = measure(tools.whole, 3);
// One pass: the main-content peer takes minutes a pass over the corpus and
// runs at about a hundredth of webfold's speed, far from any question.
process.stderr.write("Node main content…\n");
const main = measure(tools.main, 1);
writeFileSync(outPath, JSON.stringify({ versions, node: process.version, whole, main }));
