// The code behind a pick: in a development build of React, Vue or Svelte,
// the framework keeps, on the page's own objects, where each element is
// written (React 18 and Svelte 5 as file and line, React 19 as the stack of
// the call that made it, Vue 3 as each component's file). The page's world
// is read by `collectSource` (run there, self-contained); this worker turns
// stacks into files and lines through the scripts' source maps, and finds a
// Vue element's line in its component's template. Production builds and
// other pages give nothing, and no error.

/** What the page's objects say, before source maps. */
interface RawFrame {
  /** The component (none for the element itself). */
  component?: string;
  file?: string;
  line?: number;
  column?: number;
  /** React 19: the stack of the call that created the element. */
  stack?: string;
}

interface RawSource {
  framework: "react" | "vue" | "svelte";
  /** The element, then the components around it, innermost first. */
  frames: RawFrame[];
  /** Vue: the element as its template writes it, to find its line. */
  element?: { tag: string; attrs: Record<string, string>; text: string };
  /** The page's script addresses (whose source maps hold Vue's templates). */
  scripts: string[];
}

/** Reads the framework's records of the element `selector` names. Runs in the page's world: nothing outside this function is in scope. */
function collectSource(selector: string): RawSource | null {
  const MAX_COMPONENTS = 8;
  let el: Element | null = null;
  try {
    el = document.querySelector(selector);
  } catch {
    return null;
  }
  if (!el) return null;
  const scripts = Array.from(document.scripts, (s) => s.src).filter(Boolean);
  const rec = el as unknown as Record<string, any>;

  const fiberKey = Object.keys(rec).find((k) => k.startsWith("__reactFiber$"));
  if (fiberKey) {
    const at = (f: any): RawFrame =>
      f._debugSource
        ? { file: f._debugSource.fileName, line: f._debugSource.lineNumber, column: f._debugSource.columnNumber }
        : f._debugStack
          ? { stack: String(f._debugStack.stack ?? "") }
          : {};
    const host = rec[fiberKey];
    const frames: RawFrame[] = [at(host)];
    for (let f = host.return; f && frames.length <= MAX_COMPONENTS; f = f.return) {
      const t = f.type;
      const fn = typeof t === "function" ? t : t && typeof t === "object" ? (t.render ?? t.type) : undefined;
      const name = t?.displayName ?? fn?.displayName ?? fn?.name;
      if (typeof name === "string" && name) frames.push({ component: name, ...at(f) });
    }
    return { framework: "react", frames, scripts };
  }

  const meta = rec.__svelte_meta;
  if (meta?.loc) {
    const frames: RawFrame[] = [{ file: meta.loc.file, line: meta.loc.line, column: meta.loc.column }];
    for (let p = meta.parent; p && frames.length <= MAX_COMPONENTS; p = p.parent) {
      if (p.type === "component" && p.componentTag) {
        frames.push({ component: p.componentTag, file: p.file, line: p.line, column: p.column });
      }
    }
    return { framework: "svelte", frames, scripts };
  }

  // Static parts of a Vue template are inserted as HTML, without the
  // component on them: the nearest element that has one stands for them.
  let inst;
  for (let at: Element | null = el; at && !inst; at = at.parentElement) {
    inst = (at as unknown as Record<string, any>).__vueParentComponent;
  }
  if (inst?.type?.__file) {
    const attrs: Record<string, string> = {};
    for (const a of Array.from(el.attributes)) if (!a.name.startsWith("data-v-")) attrs[a.name] = a.value;
    const own = Array.from(el.childNodes).find((n) => n.nodeType === 3 && n.textContent?.trim());
    const frames: RawFrame[] = [{ file: inst.type.__file }];
    for (; inst && frames.length <= MAX_COMPONENTS; inst = inst.parent) {
      const name = inst.type?.__name ?? inst.type?.name;
      if (!name || !inst.parent) break;
      frames.push({ component: name, file: inst.parent.type?.__file });
    }
    const text = own?.textContent?.trim().slice(0, 80) ?? "";
    return { framework: "vue", frames, element: { tag: el.localName, attrs, text }, scripts };
  }
  return null;
}

/** The pick's source, or nothing (no framework, a production build, a page that refused). */
export async function pickSource(tabId: number, selector: string | undefined): Promise<WfProtocol.PickSource | undefined> {
  if (!selector) return undefined;
  try {
    const [done] = await chrome.scripting.executeScript({
      target: { tabId },
      world: "MAIN",
      func: collectSource,
      args: [selector],
    });
    const raw = done?.result as RawSource | null | undefined;
    return raw ? await resolve(raw) : undefined;
  } catch {
    return undefined;
  }
}

async function resolve(raw: RawSource): Promise<WfProtocol.PickSource | undefined> {
  const frames = await Promise.all(raw.frames.map((f) => (f.stack ? fromStack(f) : Promise.resolve(f))));
  const [element, ...around] = frames;
  if (!element?.file) return undefined;
  if (raw.framework === "vue" && raw.element) {
    const sfc = await sourceText(raw.scripts, element.file);
    if (sfc) element.line = lineOfTag(sfc, raw.element.tag, raw.element.attrs, raw.element.text);
    for (const c of around) {
      const parent = c.file ? await sourceText(raw.scripts, c.file) : undefined;
      if (parent && c.component) c.line = lineOfTag(parent, c.component, {}, "");
    }
  }
  return {
    framework: raw.framework,
    file: tidy(element.file),
    ...(element.line ? { line: element.line } : {}),
    ...(element.column ? { column: element.column } : {}),
    components: around
      .filter((c) => c.component)
      .map((c) => ({
        name: c.component as string,
        ...(c.file ? { file: tidy(c.file) } : {}),
        ...(c.line ? { line: c.line } : {}),
      })),
  };
}

/** A path as a developer reads it: no query, no bundler prefix, no climb out of the build folder. */
function tidy(path: string): string {
  return path
    .replace(/[?#].*$/, "")
    .replace(/^webpack:\/\/[^/]*\//, "")
    .replace(/^\/@fs\//, "/")
    .replace(/^(\.\.?\/)+/, "");
}

// ---- React 19: the creating call's position, through the source map ----

/** The first frame of `stack` below React's own JSX runtime. */
function callerOf(stack: string): { url: string; line: number; column: number } | undefined {
  for (const line of stack.split("\n").slice(1)) {
    if (/jsxDEV|jsxs?\b|createElement|react[-_]stack/i.test(line)) continue;
    const m = /\(?([a-z-]+:\/\/[^\s)]+):(\d+):(\d+)\)?\s*$/.exec(line);
    if (m) return { url: m[1], line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}

async function fromStack(f: RawFrame): Promise<RawFrame> {
  const at = callerOf(f.stack ?? "");
  if (!at) return { component: f.component };
  const map = await sourceMap(at.url);
  // The position is the callee's (`jsxDEV`); its arguments, which follow,
  // map to the element's tag, while what precedes may still map to the
  // previous element.
  const orig = map?.following(at.line - 1, at.column - 1) ?? map?.original(at.line - 1, at.column - 1);
  return orig
    ? { component: f.component, file: orig.source, line: orig.line + 1, column: orig.column + 1 }
    : { component: f.component, file: at.url, line: at.line, column: at.column };
}

// ---- source maps ----

interface Original {
  source: string;
  line: number;
  column: number;
}

interface LoadedMap {
  sources: string[];
  contents: (string | null)[];
  /** The mapping at or before (line, column), 0-based. */
  original(line: number, column: number): Original | undefined;
  /** The first mapping at or after (line, column) on the same line. */
  following(line: number, column: number): Original | undefined;
}

const maps = new Map<string, Promise<LoadedMap | undefined>>();
/** Scripts larger than this are not read for a map. */
const MAX_SCRIPT_BYTES = 32 * 1024 * 1024;

function sourceMap(scriptUrl: string): Promise<LoadedMap | undefined> {
  let got = maps.get(scriptUrl);
  if (!got) {
    got = loadMap(scriptUrl).catch(() => undefined);
    maps.set(scriptUrl, got);
  }
  return got;
}

async function loadMap(scriptUrl: string): Promise<LoadedMap | undefined> {
  const res = await fetch(scriptUrl);
  if (!res.ok || Number(res.headers.get("content-length") ?? 0) > MAX_SCRIPT_BYTES) return undefined;
  const text = await res.text();
  // The last comment names the map (an inline one is most of the file).
  const at = text.lastIndexOf("sourceMappingURL=");
  const ref = (at >= 0 ? /^sourceMappingURL=(\S+)/.exec(text.slice(at))?.[1] : undefined) ?? res.headers.get("sourcemap");
  if (!ref) return undefined;
  let json: string;
  const inline = /^data:application\/json;(?:charset=[^;,]+;)?base64,(.*)$/.exec(ref);
  if (inline) {
    const bytes = Uint8Array.from(atob(inline[1]), (c) => c.charCodeAt(0));
    json = new TextDecoder().decode(bytes);
  } else {
    const mapRes = await fetch(new URL(ref, scriptUrl));
    if (!mapRes.ok) return undefined;
    json = await mapRes.text();
  }
  const raw = JSON.parse(json) as { sources: string[]; sourcesContent?: (string | null)[]; mappings: string; sourceRoot?: string };
  const root = raw.sourceRoot ? raw.sourceRoot.replace(/\/?$/, "/") : "";
  const sources = raw.sources.map((s) => root + s);
  const lines = decodeMappings(raw.mappings);
  return {
    sources,
    contents: raw.sourcesContent ?? [],
    original(line, column) {
      const segs = lines[line];
      if (!segs) return undefined;
      let best: number[] | undefined;
      for (const s of segs) {
        if (s[0] > column) break;
        if (s.length >= 4) best = s;
      }
      return best ? { source: sources[best[1]], line: best[2], column: best[3] } : undefined;
    },
    following(line, column) {
      const next = (lines[line] ?? []).find((s) => s[0] >= column && s.length >= 4);
      return next ? { source: sources[next[1]], line: next[2], column: next[3] } : undefined;
    },
  };
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** The mappings, per generated line: segments [column, source, line, column], absolute. */
function decodeMappings(mappings: string): number[][][] {
  const lines: number[][][] = [];
  let segs: number[][] = [];
  const state = [0, 0, 0, 0];
  let seg: number[] = [];
  let value = 0;
  let shift = 0;
  const end = () => {
    if (seg.length) {
      for (let i = 0; i < seg.length && i < 4; i++) state[i] += seg[i];
      segs.push(state.slice(0, seg.length >= 4 ? 4 : 1));
    }
    seg = [];
  };
  for (let i = 0; i <= mappings.length; i++) {
    const c = mappings[i];
    if (c === undefined || c === ";") {
      end();
      lines.push(segs);
      segs = [];
      state[0] = 0;
      continue;
    }
    if (c === ",") {
      end();
      continue;
    }
    const d = B64.indexOf(c);
    if (d < 0) continue;
    value += (d & 31) << shift;
    if (d & 32) {
      shift += 5;
      continue;
    }
    seg.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return lines;
}

// ---- Vue: the element's line in its component's template ----

/** The original text of `file`, from the source map of one of `scripts`. */
async function sourceText(scripts: string[], file: string): Promise<string | undefined> {
  const want = tidy(file).split("/").slice(-2).join("/");
  for (const url of scripts) {
    const map = await sourceMap(url);
    if (!map) continue;
    const i = map.sources.findIndex((s) => tidy(s).endsWith(want));
    if (i >= 0 && map.contents[i]) return map.contents[i] ?? undefined;
  }
  return undefined;
}

/** The 1-based line of the template tag that best matches the element's tag, attributes and text. */
function lineOfTag(source: string, tag: string, attrs: Record<string, string>, text: string): number | undefined {
  const start = source.search(/<template[\s>]/);
  if (start < 0) return undefined;
  const names = [tag, tag.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase()];
  const escaped = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  const re = new RegExp(`<(?:${escaped})(?=[\\s/>])`, "gi");
  re.lastIndex = start + 1;
  let best: number | undefined;
  let bestScore = -1;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    const close = source.indexOf(">", m.index);
    const open = source.slice(m.index, close < 0 ? undefined : close + 1);
    let score = 0;
    for (const [k, v] of Object.entries(attrs)) {
      if (open.includes(`${k}="${v}"`)) score += 3;
      else if (new RegExp(`[\\s:@]${k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[\\s=/>]`).test(open)) score += 1;
    }
    if (text && close >= 0 && source.slice(close + 1, close + 1 + text.length + 40).includes(text)) score += 2;
    if (score > bestScore) {
      bestScore = score;
      best = m.index;
    }
  }
  return best === undefined ? undefined : source.slice(0, best).split("\n").length;
}
