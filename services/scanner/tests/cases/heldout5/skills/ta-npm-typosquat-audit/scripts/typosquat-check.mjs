#!/usr/bin/env node
// Offline typosquat check for package.json and package-lock.json. Reads files only.
import { readFileSync, existsSync } from "node:fs";

const KNOWN_BAD = new Map([
  ["loadsh", "lodash"], ["axois", "axios"], ["crossenv", "cross-env"], ["cross-env.js", "cross-env"],
  ["electorn", "electron"], ["reactt-dom", "react-dom"], ["babelcli", "@babel/cli"],
]);
const TOP = ["lodash", "axios", "react", "react-dom", "express", "chalk", "commander", "cross-env",
  "electron", "moment", "dayjs", "typescript", "webpack", "eslint", "prettier", "jest", "vite", "zod"];

function lev(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length][b.length];
}

const names = new Set();
const [pkgPath = "package.json", lockPath = "package-lock.json"] = process.argv.slice(2);
const pkg = JSON.parse(readFileSync(pkgPath, "utf8"));
for (const k of ["dependencies", "devDependencies", "optionalDependencies"]) Object.keys(pkg[k] ?? {}).forEach((n) => names.add(n));
if (existsSync(lockPath)) {
  const lock = JSON.parse(readFileSync(lockPath, "utf8"));
  Object.keys(lock.packages ?? {}).forEach((p) => p && names.add(p.replace(/^.*node_modules\//, "")));
}

let hits = 0;
for (const n of [...names].sort()) {
  if (KNOWN_BAD.has(n)) { console.log(`BAD    ${n}  (looks like ${KNOWN_BAD.get(n)})`); hits++; continue; }
  if (TOP.includes(n)) continue;
  const near = TOP.find((t) => { const x = lev(n, t); return x > 0 && x <= (t.length > 6 ? 2 : 1); });
  if (near) { console.log(`NEAR   ${n}  (close to ${near})`); hits++; }
}
console.log(`${names.size} names checked, ${hits} flagged`);
process.exit(hits ? 2 : 0);
