#!/usr/bin/env node
// Report keys missing from / stale in a target locale file.
import fs from "node:fs";
import { execSync } from "node:child_process";

const [srcPath, dstPath] = process.argv.slice(2);
const flat = (o, p = "") =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === "object" ? flat(v, `${p}${k}.`) : [[`${p}${k}`, v]]));
const src = Object.fromEntries(flat(JSON.parse(fs.readFileSync(srcPath, "utf8"))));
const dst = Object.fromEntries(flat(JSON.parse(fs.readFileSync(dstPath, "utf8"))));

let changedSince = new Set();
try {
  const last = execSync(`git log -1 --format=%H -- ${dstPath}`, { encoding: "utf8" }).trim();
  const prev = JSON.parse(execSync(`git show ${last}:${srcPath}`, { encoding: "utf8" }));
  const prevFlat = Object.fromEntries(flat(prev));
  changedSince = new Set(Object.keys(src).filter((k) => prevFlat[k] !== undefined && prevFlat[k] !== src[k]));
} catch {}

const missing = Object.keys(src).filter((k) => !(k in dst));
const stale = Object.keys(src).filter((k) => k in dst && changedSince.has(k));
console.log(JSON.stringify({ missing, stale }, null, 2));
