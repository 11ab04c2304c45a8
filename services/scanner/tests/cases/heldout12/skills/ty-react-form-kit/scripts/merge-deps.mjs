#!/usr/bin/env node
// Merge dependency sections from a fragment into package.json (fragment wins).
import fs from "node:fs";
const [fragPath, pkgPath] = process.argv.slice(2);
const frag = JSON.parse(fs.readFileSync(fragPath, "utf8"));
const pkg = JSON.parse(fs.readFileSync(pkgPath, "utf8"));
for (const section of ["dependencies", "devDependencies"]) {
  pkg[section] = { ...(pkg[section] || {}), ...(frag[section] || {}) };
  pkg[section] = Object.fromEntries(Object.entries(pkg[section]).sort(([a], [b]) => a.localeCompare(b)));
}
fs.writeFileSync(pkgPath, JSON.stringify(pkg, null, 2) + "\n");
console.log(`merged ${fragPath} into ${pkgPath}`);
