// webfold for Node.js: `new Page(html, { url })` parses a page once; each
// view is a method of it (`page.snapshot({ maxTokens: 4000 })`), with the
// options, defaults and limits of the `webfold` command in camelCase, and
// returns an envelope whose `text` is what the command prints.
"use strict";

const native = require("./webfold.node");

/** What went wrong, in webfold's words: a wrong option, a selector that matches nothing, a page that is not HTML. */
class WebfoldError extends Error {
  constructor(message) {
    super(message);
    this.name = "WebfoldError";
  }
}

const camel = (s) => s.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const snake = (s) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const FIELDS = ["view", "text", "tokens", "max_tokens", "cut", "note", "hints", "url", "version"];

function wrapped(f) {
  try {
    return f();
  } catch (e) {
    throw new WebfoldError(e.message);
  }
}

// The text comes as a string of its own, and its tokens, unless the view
// counted them, are counted the first time `tokens` is read: a caller that
// wants the text alone (most whole-page Markdown) never pays for a count.
function envelope(viewed) {
  const raw = JSON.parse(viewed.rest);
  const out = { view: raw.view, text: viewed.text, data: {} };
  let tokens = viewed.tokens;
  Object.defineProperty(out, "tokens", {
    enumerable: true,
    get: () => (tokens ??= native.countTokens(out.text, viewed.encoding)),
    set: (n) => (tokens = n),
  });
  for (const [k, v] of Object.entries(raw)) {
    if (FIELDS.includes(k)) out[camel(k)] = v;
    else out.data[k] = v;
  }
  out.cut = out.cut ?? false;
  out.hints = out.hints ?? [];
  return out;
}

class Page {
  /** Parses `html` (a string, or a Buffer decoded as a browser would). */
  constructor(html, { url, contentType } = {}) {
    this._page = wrapped(() => new native.NativePage(html, url ?? null, contentType ?? null));
  }

  get url() {
    return this._page.url;
  }

  /** Runs the view `name` (as `webfold NAME`) with `options` (camelCase). */
  view(name, options = {}) {
    return envelope(wrapped(() => this._page.view(name, optionsJson(options))));
  }
}

function optionsJson(options) {
  const args = {};
  for (const [k, v] of Object.entries(options ?? {})) if (v !== undefined) args[snake(k)] = v;
  return JSON.stringify(args);
}

/**
 * One view of `html`, the page let go at once: `markdown(html, { url, maxTokens })`.
 * A `Page` is freed only after the event loop turns, so a loop that calls
 * one view per page holds every page until it ends; this holds one.
 */
function view(name, html, { url, contentType, ...options } = {}) {
  return envelope(wrapped(() => native.viewOf(html, url ?? null, contentType ?? null, name, optionsJson(options))));
}

/** Every view: its method name, what it shows, its options' JSON Schema, and whether it keeps the snapshot session. */
const VIEWS = native.views().map((v) => ({ ...v, method: camel(v.name), options: JSON.parse(v.options) }));
for (const v of VIEWS) {
  Object.defineProperty(Page.prototype, v.method, {
    value: function (options) {
      return this.view(v.name, options);
    },
    writable: true,
    configurable: true,
  });
}

const viewFunctions = Object.fromEntries(VIEWS.map((v) => [v.method, (html, options) => view(v.name, html, options)]));

/** Fetches `url` and parses it: the page, known by its address after redirects. */
function fetch(url) {
  const got = wrapped(() => native.fetch(url));
  return new Page(got.body, { url: got.url, contentType: got.contentType ?? undefined });
}

module.exports = { Page, WebfoldError, fetch, view, VIEWS, ...viewFunctions };
