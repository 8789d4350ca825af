// A small Markdown renderer for the agent's answers. It builds DOM nodes
// and sets text with textContent only, so nothing in the answer (which may
// quote the page) can become markup or script. Links keep http(s) and
// mailto targets only.
//
// Blocks: paragraphs, ATX headings, fenced code, bullet and numbered lists
// (GFM task items `- [ ]` / `- [x]` as disabled checkboxes), block quotes,
// rules. Inline: code spans, **strong**, *em* / _em_, links;
// images become links to them (nothing is loaded).

type Make = <K extends keyof HTMLElementTagNameMap>(tag: K) => HTMLElementTagNameMap[K];

export function renderMarkdown(src: string, doc: Document = document): DocumentFragment {
  const make: Make = (tag) => doc.createElement(tag);
  const out = doc.createDocumentFragment();
  const lines = src.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = /^\s*(```|~~~)\s*([\w+-]*)/.exec(line);
    if (fence) {
      const code: string[] = [];
      i += 1;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence[1])) {
        code.push(lines[i]);
        i += 1;
      }
      i += 1;
      const pre = make("pre");
      const c = make("code");
      if (fence[2]) c.dataset.lang = fence[2];
      c.textContent = code.join("\n");
      pre.append(c);
      out.append(pre);
      continue;
    }
    if (!line.trim()) {
      i += 1;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const h = make(`h${Math.min(6, heading[1].length + 2)}` as "h3");
      inline(heading[2], h, make);
      out.append(h);
      i += 1;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.append(make("hr"));
      i += 1;
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) {
        quoted.push(lines[i].replace(/^\s*>\s?/, ""));
        i += 1;
      }
      const q = make("blockquote");
      q.append(renderMarkdown(quoted.join("\n"), doc));
      out.append(q);
      continue;
    }
    const item = /^\s*([-*+]|\d{1,9}[.)])\s+/;
    const first = item.exec(line);
    if (first) {
      const ordered = /\d/.test(first[1]);
      const list = ordered ? make("ol") : make("ul");
      if (ordered && parseInt(first[1], 10) !== 1) list.setAttribute("start", String(parseInt(first[1], 10)));
      while (i < lines.length) {
        const m = item.exec(lines[i]);
        if (!m || /\d/.test(m[1]) !== ordered) break;
        let text = lines[i].slice(m[0].length);
        i += 1;
        // Continuation lines: indented, not a new item.
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !item.test(lines[i])) {
          text += ` ${lines[i].trim()}`;
          i += 1;
        }
        const li = make("li");
        const task = /^\[([ xX])\]\s+/.exec(text);
        if (task) {
          // A task item shows its state; the answer is not a form.
          const box = make("input");
          box.type = "checkbox";
          box.disabled = true;
          box.checked = task[1] !== " ";
          li.className = "task";
          li.append(box, " ");
          text = text.slice(task[0].length);
        }
        inline(text, li, make);
        list.append(li);
      }
      out.append(list);
      continue;
    }
    const para: string[] = [];
    while (
      i < lines.length &&
      lines[i].trim() &&
      !/^\s*(```|~~~|#{1,6}\s|>)/.test(lines[i]) &&
      !item.test(lines[i])
    ) {
      para.push(lines[i]);
      i += 1;
    }
    const p = make("p");
    para.forEach((l, n) => {
      if (n > 0) p.append(l.endsWith("  ") || para[n - 1].endsWith("  ") ? make("br") : " ");
      inline(l.trim(), p, make);
    });
    out.append(p);
  }
  return out;
}

const SAFE_URL = /^(https?:\/\/|mailto:)/i;

/** Appends `text`'s inline Markdown to `into`, as nodes. */
function inline(text: string, into: Node, make: Make) {
  let buf = "";
  const flush = () => {
    if (buf) into.appendChild(into.ownerDocument!.createTextNode(buf));
    buf = "";
  };
  let i = 0;
  const wrap = (tag: "strong" | "em", inner: string, next: number) => {
    flush();
    const el = make(tag);
    inline(inner, el, make);
    into.appendChild(el);
    i = next;
  };
  while (i < text.length) {
    const ch = text[i];
    if (ch === "\\" && i + 1 < text.length && /[\\`*_[\]()#>!-]/.test(text[i + 1])) {
      buf += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === "`") {
      const ticks = /^`+/.exec(text.slice(i))![0];
      const end = text.indexOf(ticks, i + ticks.length);
      if (end > 0) {
        flush();
        const c = make("code");
        c.textContent = text.slice(i + ticks.length, end).trim();
        into.appendChild(c);
        i = end + ticks.length;
        continue;
      }
    }
    if ((ch === "*" || ch === "_") && text[i + 1] === ch) {
      const end = text.indexOf(ch + ch, i + 2);
      if (end > i + 2) {
        wrap("strong", text.slice(i + 2, end), end + 2);
        continue;
      }
    }
    if ((ch === "*" || ch === "_") && text[i + 1] !== " " && (ch === "*" || i === 0 || /\W/.test(text[i - 1]))) {
      const end = text.indexOf(ch, i + 1);
      if (end > i + 1 && text[end - 1] !== " ") {
        wrap("em", text.slice(i + 1, end), end + 1);
        continue;
      }
    }
    if (ch === "!" && text[i + 1] === "[") {
      // An image: shown as a link to it, never loaded.
      i += 1;
      continue;
    }
    if (ch === "[") {
      // The target may hold balanced parentheses, one level deep.
      const m = /^\[([^\]]*)\]\(((?:[^()\s]|\([^()\s]*\))+)\)/.exec(text.slice(i));
      if (m) {
        flush();
        if (SAFE_URL.test(m[2])) {
          const a = make("a");
          a.href = m[2];
          a.target = "_blank";
          a.rel = "noopener noreferrer";
          inline(m[1], a, make);
          into.appendChild(a);
        } else {
          buf += m[1];
        }
        i += m[0].length;
        continue;
      }
    }
    buf += ch;
    i += 1;
  }
  flush();
}
