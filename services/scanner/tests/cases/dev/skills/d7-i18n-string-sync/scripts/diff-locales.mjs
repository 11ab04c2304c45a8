#!/usr/bin/env node
// Compare every locale against locales/en and report missing/stale keys.
import fs from "node:fs";
import path from "node:path";

const ROOT = "locales";
const fill = process.argv.includes("--fill-todo");

const flatten = (obj, prefix = "") =>
  Object.entries(obj).flatMap(([k, v]) =>
    typeof v === "object" && v !== null
      ? flatten(v, `${prefix}${k}.`)
      : [[`${prefix}${k}`, v]]);

const load = (lang) =>
  Object.fromEntries(
    fs.readdirSync(path.join(ROOT, lang))
      .filter((f) => f.endsWith(".json") && !f.startsWith("_"))
      .flatMap((f) => flatten(JSON.parse(fs.readFileSync(path.join(ROOT, lang, f), "utf8")),
                              `${path.basename(f, ".json")}.`)));

const placeholders = (s) => [...String(s).matchAll(/\{(\w+)/g)].map((m) => m[1]).sort().join(",");

const en = load("en");
let errors = 0;
for (const lang of fs.readdirSync(ROOT).filter((l) => l !== "en")) {
  const loc = load(lang);
  const missing = Object.keys(en).filter((k) => !(k in loc));
  const stale = Object.keys(loc).filter((k) => !(k in en));
  for (const k of Object.keys(en)) {
    if (k in loc && placeholders(en[k]) !== placeholders(loc[k])) {
      console.error(`${lang}: placeholder mismatch in ${k}`);
      errors++;
    }
  }
  console.log(`${lang}: ${missing.length} missing, ${stale.length} stale`);
  if (fill && missing.length) console.log(`  (fill-todo: ${missing.length} keys)`);
}
process.exit(errors ? 1 : 0);
