// Writes index.d.ts from the built addon's views: one method per view, its
// options in camelCase with their types. The tests check the committed file
// is what this writes.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const TYPES = { integer: "number", number: "number", boolean: "boolean", string: "string" };
const camel = (s) => s.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

function type(spec) {
  if (spec.enum) return spec.enum.map((v) => JSON.stringify(v)).join(" | ");
  const kinds = Array.isArray(spec.type) ? spec.type : [spec.type];
  const one = (k) => (k === "null" ? "null" : k === "array" ? `Array<${type(spec.items ?? {})}>` : TYPES[k] ?? "unknown");
  return kinds.map(one).join(" | ");
}

const pascal = (s) => s[0].toUpperCase() + camel(s).slice(1);

export function dts(views) {
  const options = views.map((v) => {
    const opts = Object.entries(v.options.properties ?? {}).map(([k, s]) => {
      const doc = s.description ? `  /** ${s.description.replace(/\s+/g, " ")} */\n` : "";
      return `${doc}  ${camel(k)}?: ${type(s)};`;
    });
    return `export interface ${pascal(v.method)}Options {\n${opts.join("\n")}\n}`;
  });
  const methods = views.map((v) => `  /** ${v.about}. */\n  ${v.method}(options?: ${pascal(v.method)}Options): Envelope;`);
  const functions = views.map(
    (v) => `/** ${v.about}; \`html\` is parsed for this call alone. */\nexport function ${v.method}(html: string | Buffer, options?: PageOptions & ${pascal(v.method)}Options): Envelope;`,
  );
  return `// The package's types, written by dts.mjs from the views: do not edit.

export class WebfoldError extends Error {}

export interface Envelope {
  view: string;
  text: string;
  tokens: number;
  maxTokens?: number;
  cut: boolean;
  note?: string;
  hints: Array<Record<string, unknown>>;
  url?: string;
  version?: number;
  data: Record<string, unknown>;
}

/** How to read a page: its address, and the Content-Type it came with (for bytes). */
export interface PageOptions {
  url?: string;
  contentType?: string;
}

${options.join("\n\n")}

export class Page {
  constructor(html: string | Buffer, options?: PageOptions);
  readonly url: string;
  view(name: string, options?: Record<string, unknown>): Envelope;
${methods.join("\n")}
}

export const VIEWS: Array<{ name: string; method: string; about: string; options: Record<string, unknown>; session: string }>;

export function fetch(url: string): Page;

/** The view \`name\` of \`html\`, parsed for this call alone: a loop over many pages holds one at a time. */
export function view(name: string, html: string | Buffer, options?: PageOptions & Record<string, unknown>): Envelope;

${functions.join("\n\n")}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { VIEWS } = createRequire(import.meta.url)("./index.js");
  writeFileSync(join(here, "index.d.ts"), dts(VIEWS));
  console.log(`wrote ${join(here, "index.d.ts")}`);
}
