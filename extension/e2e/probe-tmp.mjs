import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { readFileSync, existsSync } from "node:fs";
import { join, extname } from "node:path";
const root = "/tmp/apps-out";
const server = createServer((req, res) => {
  const p = join(root, decodeURIComponent(new URL(req.url, "http://x").pathname));
  if (!existsSync(p)) { res.writeHead(404); return res.end(); }
  res.writeHead(200, { "content-type": { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" }[extname(p)] ?? "application/octet-stream" });
  res.end(readFileSync(p));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const b = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless=new"] });
for (const app of ["react18", "react19", "vue", "svelte"]) {
  const p = await b.newPage();
  await p.goto(`http://127.0.0.1:${server.address().port}/${app}/index.html`);
  await p.waitForSelector('[data-pick="p19"]');
  const info = await p.evaluate(() => {
    const el = document.querySelector('[data-pick="p19"]');
    const out = { keys: Object.keys(el) };
    const fk = Object.keys(el).find((k) => k.startsWith("__reactFiber$"));
    if (fk) {
      const f = el[fk];
      out.debugSource = f._debugSource;
      out.debugStack = f._debugStack && String(f._debugStack.stack).split("\n").slice(0, 4);
      out.owner = f._debugOwner && (f._debugOwner.type?.name);
      out.ownerStack = f._debugOwner?._debugStack && String(f._debugOwner._debugStack.stack).split("\n").slice(0, 4);
    }
    if (el.__vueParentComponent) { const c = el.__vueParentComponent; out.vue = { file: c.type.__file, name: c.type.__name, parent: c.parent?.type.__file }; }
    if (el.__svelte_meta) out.svelte = JSON.parse(JSON.stringify(el.__svelte_meta, (k, v) => (k === "parent" && v ? { ...v, parent: undefined } : v)));
    return out;
  });
  console.log(app, JSON.stringify(info, null, 1).slice(0, 1500));
}
await b.close(); server.close();
