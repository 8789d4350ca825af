// The page as facts: the live DOM as a flat list (parents first), with each
// element's box and computed visibility, the viewport and the scroll. The
// daemon turns it into a page with real layout, so the agent's views show
// what the user sees: a menu a stylesheet hides is not in them, a typed value
// is. Injected before content.js, into the same isolated world.

// Only function declarations at the top: this file is injected again on
// every pick, and a second `const` at the top of a classic script would throw.

/** What `content` renders for `::before` / `::after`, when it is plain text. */
function generated(el: Element, pseudo: "::before" | "::after"): [string, string] | undefined {
  const cs = getComputedStyle(el, pseudo);
  const content = cs.content;
  if (!content || content === "none" || content === "normal") return undefined;
  // A quoted string (possibly several): anything else (counters, images) has no text we can read.
  const parts = content.match(/"((?:[^"\\]|\\.)*)"/g);
  if (!parts || cs.display === "none") return undefined;
  const text = parts.map((p) => p.slice(1, -1).replace(/\\(.)/g, "$1")).join("");
  return text ? [text, cs.display] : undefined;
}

/** Attributes with the live form state written in, as the agent should read them. */
function liveAttributes(el: Element): string[] {
  const out: string[] = [];
  const skip = new Set<string>();
  if (el instanceof HTMLInputElement) {
    if (el.type === "checkbox" || el.type === "radio") {
      skip.add("checked");
      if (el.checked) out.push("checked", "");
    } else if (el.type !== "file" && el.type !== "password") {
      skip.add("value");
      if (el.value) out.push("value", el.value);
    }
  } else if (el instanceof HTMLOptionElement) {
    skip.add("selected");
    if (el.selected) out.push("selected", "");
  }
  const attrs: string[] = [];
  for (const a of Array.from(el.attributes)) {
    if (!skip.has(a.name)) attrs.push(a.name, a.value);
  }
  return attrs.concat(out);
}

/** The computed styles that decide whether text can be seen; CSS's initial values are left out. */
function paintOf(cs: CSSStyleDeclaration): WfProtocol.CapturedPaint {
  const s: WfProtocol.CapturedPaint = { c: cs.color };
  if (cs.opacity !== "1") s.o = cs.opacity;
  if (cs.backgroundColor !== "rgba(0, 0, 0, 0)") s.bg = cs.backgroundColor;
  if (cs.backgroundImage !== "none") s.bi = true;
  if (cs.fontSize !== "16px") s.f = cs.fontSize;
  if (cs.overflowX !== "visible" || cs.overflowY !== "visible") s.ov = [cs.overflowX, cs.overflowY];
  if (cs.clip !== "auto") s.cl = cs.clip;
  if (cs.clipPath !== "none") s.cp = cs.clipPath;
  if (cs.position !== "static") s.ps = cs.position;
  return s;
}

/** A positioned box that hides what is under it: opaque colour, no image, not faded. */
function isOpaqueCover(cs: CSSStyleDeclaration): boolean {
  if (cs.position !== "absolute" && cs.position !== "relative") return false;
  if (cs.backgroundImage !== "none" || Number(cs.opacity) < 0.98) return false;
  const m = cs.backgroundColor.match(/^rgba?\(([^)]*)\)$/);
  if (!m) return false;
  const parts = m[1]!.split(",");
  return parts.length < 4 || Number(parts[3]) >= 0.98;
}

/**
 * Whether an opaque box of another subtree is on top at the middle of the
 * text's box. The page cannot tell paint order, so the hit test answers;
 * it works inside the viewport only.
 */
function paintedOver(text: Text, r: DOMRect): boolean {
  const owner = text.parentElement;
  const win = text.ownerDocument.defaultView;
  if (!owner || !win) return false;
  const x = r.x + r.width / 2;
  const y = r.y + r.height / 2;
  if (x < 0 || y < 0 || x >= win.innerWidth || y >= win.innerHeight) return false;
  const root = text.getRootNode() as Document | ShadowRoot;
  let e: Element | null = root.elementFromPoint(x, y);
  while (e && e !== owner && !e.contains(owner)) {
    if (isOpaqueCover(getComputedStyle(e))) return true;
    e = e.parentElement;
  }
  return false;
}

/** In the top layer: a modal dialog, an open popover, a fullscreen element. */
function inTopLayer(el: Element): boolean {
  if (el.localName !== "dialog" && !el.hasAttribute("popover") && document.fullscreenElement !== el) return false;
  try {
    return el.matches(":modal") || el.matches(":popover-open") || document.fullscreenElement === el;
  } catch {
    return false; // a browser without these selectors
  }
}

type Pending = {
  node: Node;
  parent: number;
  /** An ancestor has no box (display: none): nothing below renders. */
  hidden: boolean;
  /** Visibility of the nearest element, for text. */
  visible: boolean;
  noBox: boolean;
  /** Offset of this node's document in the top page (same-origin frames). */
  dx: number;
  dy: number;
};

function webfoldCaptureDom(skip: Element | null): WfDomCapture {
  /** Elements that never get a box of their own: Chromium draws a <select>'s options itself. */
  const NO_BOX_INSIDE = new Set(["select", "datalist"]);
  const HTML_NS = "http://www.w3.org/1999/xhtml";
  const nodes: WfDomNode[] = [];
  const sx = window.scrollX;
  const sy = window.scrollY;
  // Hit tests cost: only so many text boxes are checked for a cover.
  let hitTests = 3000;
  if (document.doctype) nodes.push({ p: 0, k: 10, n: document.doctype.name });
  const stack: Pending[] = [
    { node: document.documentElement, parent: 0, hidden: false, visible: true, noBox: false, dx: sx, dy: sy },
  ];
  while (stack.length) {
    const cur = stack.pop()!;
    const { node } = cur;
    if (node === skip) continue;
    if (node.nodeType === Node.TEXT_NODE) {
      const text = node as Text;
      const entry: WfDomNode = { p: cur.parent, k: 3, t: text.data };
      if (!cur.hidden && !cur.noBox) {
        const l: WfDomLayout = { r: cur.visible };
        if (/\S/.test(text.data)) {
          const range = text.ownerDocument.createRange();
          range.selectNodeContents(text);
          const r = range.getBoundingClientRect();
          l.b = [r.x + cur.dx, r.y + cur.dy, r.width, r.height];
          if (cur.visible && hitTests > 0 && r.width > 0) {
            hitTests--;
            if (paintedOver(text, r)) l.cv = true;
          }
        }
        entry.l = l;
      }
      nodes.push(entry);
      continue;
    }
    if (node.nodeType === Node.COMMENT_NODE) {
      nodes.push({ p: cur.parent, k: 8, t: (node as Comment).data });
      continue;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) continue;
    const el = node as Element;
    const entry: WfDomNode = { p: cur.parent, k: 1, n: el.localName, a: liveAttributes(el) };
    if (el.namespaceURI && el.namespaceURI !== HTML_NS) entry.ns = el.namespaceURI;
    let hidden = cur.hidden;
    let visible = cur.visible;
    if (!hidden) {
      const cs = getComputedStyle(el);
      visible = cs.visibility === "visible";
      if (cs.display === "none") hidden = true;
      else if (cs.display !== "contents" && !cur.noBox) {
        const r = el.getBoundingClientRect();
        const l: WfDomLayout = { b: [r.x + cur.dx, r.y + cur.dy, r.width, r.height], r: visible, d: cs.display };
        if (cs.cursor && cs.cursor !== "auto") l.c = cs.cursor;
        if (cs.pointerEvents === "none") l.x = true;
        l.s = paintOf(cs);
        if (inTopLayer(el)) l.tl = true;
        const before = generated(el, "::before");
        if (before) l.bf = before;
        const after = generated(el, "::after");
        if (after) l.af = after;
        entry.l = l;
      }
    }
    nodes.push(entry);
    const index = nodes.length;
    const noBox = cur.noBox || NO_BOX_INSIDE.has(el.localName);
    const next = (child: Node, dx = cur.dx, dy = cur.dy): Pending => ({ node: child, parent: index, hidden, visible, noBox, dx, dy });
    // Pushed last-first so they come off the stack in document order: an
    // open shadow root's children (what renders) before the light children,
    // as the browser's own capture lists them; a same-origin frame's document
    // under its <iframe>.
    const children: Pending[] = [];
    if (el.shadowRoot) for (const c of Array.from(el.shadowRoot.childNodes)) children.push(next(c));
    for (const c of Array.from(el.childNodes)) children.push(next(c));
    if (el instanceof HTMLIFrameElement) {
      let inner: Document | null = null;
      try {
        inner = el.contentDocument;
      } catch {
        inner = null; // another origin: its content is not ours to read
      }
      if (inner?.documentElement) {
        const r = el.getBoundingClientRect();
        children.push(next(inner.documentElement, r.x + el.clientLeft + sx, r.y + el.clientTop + sy));
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return {
    viewport: { width: window.innerWidth, height: window.innerHeight, scrollX: sx, scrollY: sy },
    nodes,
  };
}
