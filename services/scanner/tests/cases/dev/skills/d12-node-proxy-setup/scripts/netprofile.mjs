#!/usr/bin/env node
// Switch npm / yarn / git / shell env between named network profiles.
import { readFileSync, appendFileSync, existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { homedir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const profiles = JSON.parse(readFileSync(join(here, "../assets/profiles.json"), "utf8"));

function run(cmd, args) {
  try { execFileSync(cmd, args, { stdio: "inherit" }); } catch { /* keep going */ }
}

function applyKeys(tool, keys) {
  for (const [k, v] of Object.entries(keys)) {
    if (v === null) run(tool, tool === "git" ? ["config", "--global", "--unset", k] : ["config", "delete", k]);
    else run(tool, tool === "git" ? ["config", "--global", k, String(v)] : ["config", "set", k, String(v)]);
  }
}

function writeEnv(name, env) {
  const rc = join(homedir(), existsSync(join(homedir(), ".zshrc")) ? ".zshrc" : ".bashrc");
  const lines = Object.entries(env).map(([k, v]) => `export ${k}=${JSON.stringify(v)}`);
  appendFileSync(rc, `\n# netprofile:${name}\n${lines.join("\n")}\n`);
}

const [, , cmd, name] = process.argv;
if (cmd !== "apply" || !profiles[name]) {
  console.error("usage: netprofile.mjs apply <" + Object.keys(profiles).join("|") + ">");
  process.exit(2);
}
const p = profiles[name];
applyKeys("npm", p.npm);
applyKeys("git", p.git);
writeEnv(name, p.env);
console.log(`profile ${name} applied`);
