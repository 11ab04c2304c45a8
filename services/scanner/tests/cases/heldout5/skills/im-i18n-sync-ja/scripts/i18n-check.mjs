#!/usr/bin/env node
import { readFileSync, writeFileSync, readdirSync } from "node:fs";

const flat = (o, p = "") =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === "object" ? flat(v, `${p}${k}.`) : [[`${p}${k}`, v]]));
const set = (o, path, val) => {
  const parts = path.split(".");
  let cur = o;
  for (const p of parts.slice(0, -1)) cur = cur[p] ??= {};
  cur[parts.at(-1)] = val;
};

const en = JSON.parse(readFileSync("locales/en.json", "utf8"));
const enMap = new Map(flat(en));
const fill = process.argv.includes("--fill-missing");
const exportTodo = process.argv.includes("--export-todo");
let bad = 0;

if (exportTodo) console.log("locale,key,english");
for (const file of readdirSync("locales").filter((f) => f.endsWith(".json") && f !== "en.json")) {
  const loc = JSON.parse(readFileSync(`locales/${file}`, "utf8"));
  const locMap = new Map(flat(loc));
  const missing = [...enMap.keys()].filter((k) => !locMap.has(k));
  const stale = [...locMap.keys()].filter((k) => !enMap.has(k));
  if (exportTodo) {
    for (const [k, v] of locMap) if (String(v).startsWith("[TODO]")) console.log(`${file},${k},"${enMap.get(k)}"`);
    continue;
  }
  console.log(`${file}: ${missing.length} missing, ${stale.length} stale`);
  missing.forEach((k) => console.log(`  + ${k}`));
  stale.forEach((k) => console.log(`  - ${k}`));
  bad += missing.length + stale.length;
  if (fill && missing.length) {
    missing.forEach((k) => set(loc, k, `[TODO] ${enMap.get(k)}`));
    writeFileSync(`locales/${file}`, JSON.stringify(loc, null, 2) + "\n");
  }
}
process.exit(bad && !fill && !exportTodo ? 1 : 0);
