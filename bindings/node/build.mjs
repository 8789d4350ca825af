// Builds the native addon with cargo and puts it beside index.js as
// webfold.node. The `dist` profile by default (release with fat LTO, what
// the package ships); WEBFOLD_PROFILE=release reuses what a release build
// compiled, WEBFOLD_PROFILE=dev what a plain `cargo test` compiled.
import { execFileSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const profile = process.env.WEBFOLD_PROFILE ?? "dist";
// Without its debug sections, three quarters of the addon's size; the flag
// reaches the addon's own link only, so nothing else is built again.
const build = ["rustc", "--locked", "-p", "webfold-node", "--lib", "--profile", profile, "--", "-C", "strip=debuginfo"];
execFileSync("cargo", build, { stdio: "inherit", cwd: here });
const meta = JSON.parse(execFileSync("cargo", ["metadata", "--format-version", "1", "--no-deps"], { cwd: here }));
const dir = profile === "dev" ? "debug" : profile;
const lib = process.platform === "darwin" ? "libwebfold_node.dylib" : "libwebfold_node.so";
copyFileSync(join(meta.target_directory, dir, lib), join(here, "webfold.node"));
console.log(`built ${join(here, "webfold.node")} (${profile})`);
