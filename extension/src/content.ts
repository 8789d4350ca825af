// The picker, injected into the page on demand: hover outlines an element,
// ↑ / ↓ (or Alt + the wheel) widen it to its parent and narrow it back
// toward the element under the pointer, a click selects it, Esc cancels. Only trusted (user) events count, so the
// page cannot pick for the user. It talks to the service worker only; it
// never opens a connection of its own.

(() => {
  const flag = "__webfoldPicker";
  const w = window as unknown as Record<string, unknown>;
  if (w[flag]) return;

  /** The daemon's limit on a page's HTML (its MAX_HTML_BYTES). */
  const MAX_HTML_BYTES = 16 * 1024 * 1024;
  const MAX_TEXT = 2000;
  const MAX_CHILDREN = 50;

  let picking = false;
  /** The deepest element under the pointer. */
  let pointed: Element | null = null;
  /** What a click picks: `pointed`, or an ancestor of it the user widened to. */
  let hovered: Element | null = null;
  let selected: Element | null = null;
  /** The element under the pointer in the side panel's view of the page. */
  let hinted: Element | null = null;

  // Our marks live in a closed shadow root on a host outside the page's
  // own markup; the host is taken out while the page's HTML is read.
  const host = document.createElement("webfold-mark");
  host.style.cssText = "all: initial; position: fixed; inset: 0; pointer-events: none; z-index: 2147483647;";
  const root = host.attachShadow({ mode: "closed" });
  const style = document.createElement("style");
  style.textContent = `
    .box { position: fixed; pointer-events: none; box-sizing: border-box; display: none;
           border: 2px solid #d9480f; background: rgba(217, 72, 15, 0.12); border-radius: 2px; }
    .box.selected { border-color: #1971c2; background: rgba(25, 113, 194, 0.10); }
    .tag { position: absolute; left: -2px; top: -22px; font: 12px/18px system-ui, sans-serif; color: #fff;
           background: #d9480f; padding: 0 6px; border-radius: 3px; white-space: nowrap; }
    .box.selected .tag { background: #1971c2; }
    .box.hint { border-color: #2f9e44; background: rgba(47, 158, 68, 0.14); }
    .box.hint .tag { background: #2f9e44; }
    .pill { position: fixed; right: 12px; bottom: 12px; font: 12px/20px system-ui, sans-serif; color: #fff;
            background: #1f2328; padding: 2px 10px; border-radius: 10px; opacity: 0.9; }
  `;
  const box = document.createElement("div");
  box.className = "box";
  const tag = document.createElement("span");
  tag.className = "tag";
  box.append(tag);
  const pill = document.createElement("div");
  pill.className = "pill";
  pill.textContent = "webfold";
  root.append(style, box, pill);
  document.documentElement.append(host);

  function label(el: Element): string {
    let s = el.tagName.toLowerCase();
    if (el.id) s += `#${el.id}`;
    for (const c of Array.from(el.classList).slice(0, 2)) s += `.${c}`;
    return s;
  }

  function draw() {
    const el = picking ? hovered : (hinted ?? selected);
    if (!el || !el.isConnected) {
      box.style.display = "none";
      return;
    }
    const r = el.getBoundingClientRect();
    box.className = picking ? "box" : hinted ? "box hint" : "box selected";
    box.style.display = "block";
    box.style.left = `${r.left}px`;
    box.style.top = `${r.top}px`;
    box.style.width = `${r.width}px`;
    box.style.height = `${r.height}px`;
    tag.textContent = label(el);
    tag.style.top = r.top < 24 ? `${r.height}px` : "-22px";
  }

  function setPill() {
    pill.textContent = picking
      ? "webfold · click to pick · ↑ ↓ or Alt+wheel: wider, narrower · Esc cancels"
      : selected
        ? `webfold · picked ${label(selected)}`
        : "webfold";
  }

  function clip(s: string | null, n: number): string {
    const t = (s ?? "").replace(/\s+/g, " ").trim();
    return t.length > n ? `${t.slice(0, n)}…` : t;
  }

  function sameTagIndex(el: Element): string {
    const parent = el.parentElement;
    if (!parent) return "";
    const same = Array.from(parent.children).filter((c) => c.tagName === el.tagName);
    return same.length > 1 ? `:nth-of-type(${same.indexOf(el) + 1})` : "";
  }

  /** The shortest selector from `el` upward that matches it alone. */
  function uniqueSelector(el: Element): string {
    const parts: string[] = [];
    let cur: Element | null = el;
    while (cur) {
      if (cur.id && document.querySelectorAll(`#${CSS.escape(cur.id)}`).length === 1) {
        parts.unshift(`#${CSS.escape(cur.id)}`);
      } else {
        parts.unshift(CSS.escape(cur.localName) + sameTagIndex(cur));
      }
      const sel = parts.join(" > ");
      try {
        if (document.querySelectorAll(sel).length === 1) return sel;
      } catch {
        // An odd name: keep climbing.
      }
      cur = cur.parentElement;
    }
    return parts.join(" > ");
  }

  function pageHtml(): { html?: string; omitted?: string } {
    host.remove();
    try {
      const doctype = document.doctype ? `<!DOCTYPE ${document.doctype.name}>` : "";
      const html = doctype + document.documentElement.outerHTML;
      const bytes = new TextEncoder().encode(html).length;
      if (bytes > MAX_HTML_BYTES) {
        return {
          omitted: `The page's HTML (${Math.round(bytes / 1048576)} MB) is over the 16 MB the daemon takes; the agent gets the element without the page.`,
        };
      }
      return { html };
    } finally {
      document.documentElement.append(host);
    }
  }

  /**
   * The page for the agent's views: as facts (DOM with layout) when they fit
   * the daemon's limit, else as HTML, else why neither is sent.
   */
  function pageFacts(): { dom?: WfDomCapture; html?: string; omitted?: string } {
    const dom = webfoldCaptureDom(host);
    const bytes = new TextEncoder().encode(JSON.stringify(dom)).length;
    return bytes <= MAX_HTML_BYTES ? { dom } : pageHtml();
  }

  function describe(el: Element): { selection: WfSelection; htmlOmitted?: string } {
    const r = el.getBoundingClientRect();
    const attributes: Record<string, string> = {};
    for (const a of Array.from(el.attributes)) attributes[a.name] = a.value.slice(0, MAX_TEXT);
    const ancestors: WfSelection["ancestors"] = [];
    for (let a = el.parentElement; a; a = a.parentElement) {
      ancestors.push({ tagName: a.tagName, classList: Array.from(a.classList), ...(a.id ? { id: a.id } : {}) });
    }
    const children = Array.from(el.children)
      .slice(0, MAX_CHILDREN)
      .map((c) => ({ tagName: c.tagName, classList: Array.from(c.classList), textContent: clip(c.textContent, 200) }));
    const { dom, html, omitted } = pageFacts();
    const selection: WfSelection = {
      element: {
        tagName: el.tagName,
        ...(el.id ? { id: el.id } : {}),
        classList: Array.from(el.classList),
        textContent: clip(el.textContent, MAX_TEXT),
        attributes,
        boundingBox: { x: r.x, y: r.y, width: r.width, height: r.height },
      },
      ancestors,
      children,
      page: { url: location.href, title: document.title },
      selector: uniqueSelector(el),
      ...(dom !== undefined ? { dom } : html !== undefined ? { html } : {}),
    };
    return omitted ? { selection, htmlOmitted: omitted } : { selection };
  }

  function target(e: Event): Element | null {
    const t = e.target;
    return t instanceof Element && t !== host ? t : null;
  }

  function onMove(e: MouseEvent) {
    if (!picking || !e.isTrusted) return;
    const el = target(e);
    // A new element under the pointer starts from itself; moving within the
    // same one keeps what the user widened to.
    if (el && el !== pointed) {
      pointed = el;
      hovered = el;
      draw();
    }
  }

  /** Widens the proposal to its parent (`up`) or narrows it one step back toward `pointed`. */
  function step(up: boolean) {
    if (!hovered || !pointed) return;
    if (up) {
      const parent = hovered.parentElement;
      if (parent && parent !== document.documentElement) hovered = parent;
    } else if (hovered !== pointed) {
      let child: Element = pointed;
      while (child.parentElement && child.parentElement !== hovered) child = child.parentElement;
      hovered = child;
    }
    draw();
  }

  function swallow(e: Event) {
    if (!picking || !e.isTrusted) return;
    e.preventDefault();
    e.stopImmediatePropagation();
  }

  function onClick(e: MouseEvent) {
    if (!picking || !e.isTrusted) return;
    swallow(e);
    const t = target(e);
    // The widened proposal, when the click is within it.
    const el = hovered && (!t || hovered.contains(t)) ? hovered : t;
    if (!el) return;
    stop();
    selected = el;
    setPill();
    draw();
    const msg: WfFromPage = { kind: "picked", ...describe(el) };
    chrome.runtime.sendMessage(msg).catch(() => {});
  }

  function onKey(e: KeyboardEvent) {
    if (!picking || !e.isTrusted) return;
    if (e.key === "ArrowUp" || e.key === "ArrowDown") {
      swallow(e);
      step(e.key === "ArrowUp");
      return;
    }
    if (e.key !== "Escape") return;
    swallow(e);
    stop();
    chrome.runtime.sendMessage({ kind: "pick_cancelled" } satisfies WfFromPage).catch(() => {});
  }

  function onWheel(e: WheelEvent) {
    // The plain wheel still scrolls the page to find an element.
    if (!picking || !e.isTrusted || !e.altKey || e.deltaY === 0) return;
    swallow(e);
    step(e.deltaY < 0);
  }

  const blocked = ["mousedown", "mouseup", "pointerdown", "pointerup", "dblclick", "contextmenu"];
  const handlers: Array<[string, (e: never) => void]> = [
    ["mousemove", onMove],
    ["click", onClick],
    ["keydown", onKey],
    ...blocked.map((t): [string, (e: never) => void] => [t, swallow]),
  ];

  /** Picking on or off: our listeners run first (capture) while it is on. */
  function setPicking(on: boolean) {
    if (on === picking) return;
    picking = on;
    hovered = null;
    pointed = null;
    for (const [type, fn] of handlers) {
      if (on) window.addEventListener(type, fn as EventListener, true);
      else window.removeEventListener(type, fn as EventListener, true);
    }
    // Not passive, so Alt + the wheel does not also scroll the page.
    if (on) window.addEventListener("wheel", onWheel, { capture: true, passive: false });
    else window.removeEventListener("wheel", onWheel, { capture: true });
    setPill();
    draw();
  }

  const start = () => setPicking(true);
  const stop = () => setPicking(false);

  // What the marks show, for the extension's own scripts (this is the
  // content script's isolated world: the page cannot read it).
  w[flag] = {
    marks: () => ({
      className: box.className,
      display: box.style.display,
      box: { x: parseFloat(box.style.left), y: parseFloat(box.style.top), width: parseFloat(box.style.width), height: parseFloat(box.style.height) },
      label: tag.textContent,
    }),
  };

  window.addEventListener("scroll", draw, { capture: true, passive: true });
  window.addEventListener("resize", draw, { passive: true });

  chrome.runtime.onMessage.addListener((msg: WfToPage, sender, reply) => {
    if (sender.id !== chrome.runtime.id) return undefined;
    if (msg.kind === "start_pick") start();
    else if (msg.kind === "stop_pick") stop();
    else if (msg.kind === "highlight") {
      let el: Element | null = null;
      try {
        el = msg.selector ? document.querySelector(msg.selector) : null;
      } catch {
        el = null;
      }
      hinted = el;
      if (el) {
        const r = el.getBoundingClientRect();
        if (r.bottom < 0 || r.top > innerHeight) el.scrollIntoView({ block: "center" });
      }
      draw();
    } else if (msg.kind === "get_html") {
      // Without a selector the whole page is wanted: the built-in agent
      // picks its chunk from it.
      const selector = msg.selector;
      let matches: number | undefined;
      if (selector !== undefined) {
        try {
          matches = document.querySelectorAll(selector).length;
        } catch {
          reply({ error: `${selector} is not a valid CSS selector in the browser` } satisfies WfLiveHtml);
          return undefined;
        }
      }
      if (matches === 0) {
        reply({
          error: `no element matches ${selector} in the page now (it changed since the pick, or the tab moved on); read the outline for a selector that exists`,
        } satisfies WfLiveHtml);
      } else {
        const { html, omitted } = pageHtml();
        reply((html !== undefined ? { html, matches, url: location.href } : { error: omitted }) satisfies WfLiveHtml);
      }
    } else if (msg.kind === "recapture") {
      let el: Element | null = null;
      try {
        el = document.querySelector(msg.selector);
      } catch {
        el = null;
      }
      if (!el) {
        reply({ error: `The picked element (${msg.selector}) is no longer on the page; pick it again.` } satisfies WfRecaptured);
      } else {
        selected = el;
        draw();
        reply(describe(el) satisfies WfRecaptured);
      }
    }
    return undefined;
  });
})();
