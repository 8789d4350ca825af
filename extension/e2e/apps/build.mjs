// Builds the fixture apps as development builds (the frameworks' dev
// runtimes, inline source maps, nothing minified), as a developer's dev
// server would serve them: `node build.mjs OUT` writes OUT/<app>/index.html
// and its assets for react18, react19, vue and svelte. With `--production`,
// the production builds instead, as OUT/<app>-production (react18, vue,
// svelte).

import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import vue from "@vitejs/plugin-vue";
import { svelte } from "@sveltejs/vite-plugin-svelte";

const production = process.argv.includes("--production");
const mode = production ? "production" : "development";
// The frameworks' plugins read it to choose their dev or production output.
process.env.NODE_ENV = mode;
const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out || out.startsWith("--")) throw new Error("usage: node build.mjs OUT [--production]");

const react = (version) => ({
  root: join(here, "react"),
  esbuild: { jsx: "automatic", jsxDev: !production },
  resolve: {
    alias: [
      { find: /^react-dom(\/.*)?$/, replacement: `react-dom${version}$1` },
      { find: /^react(\/.*)?$/, replacement: `react${version}$1` },
    ],
  },
});

const apps = {
  react18: react(18),
  react19: react(19),
  vue: { root: join(here, "vue"), plugins: [vue()] },
  svelte: { root: join(here, "svelte"), plugins: [svelte()] },
};

for (const [name, config] of Object.entries(apps)) {
  if (production && name === "react19") continue;
  await build({
    ...config,
    mode,
    logLevel: "warn",
    configFile: false,
    base: "./",
    define: { "process.env.NODE_ENV": JSON.stringify(mode) },
    build: {
      outDir: join(out, production ? `${name}-production` : name),
      emptyOutDir: true,
      minify: production,
      sourcemap: production ? false : "inline",
    },
  });
}
