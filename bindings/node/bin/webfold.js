#!/usr/bin/env node
// The `webfold` command, from the package: the same code as the binary.
"use strict";
const { realpathSync } = require("node:fs");
// What the command starts again for itself (the daemon, the browser's
// native host) must be a program: this script.
process.env.WEBFOLD_EXE ??= realpathSync(__filename);
require("../webfold.node").cli(["webfold", ...process.argv.slice(2)]);
