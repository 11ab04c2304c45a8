#!/usr/bin/env node
// Render changelog sections (en, zh-CN) from Conventional Commits.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, existsSync } from "node:fs";

const args = Object.fromEntries(process.argv.slice(2).join(" ").split("--").filter(Boolean)
  .map((s) => s.trim().split(/\s+/)).map(([k, v]) => [k, v]));
const from = args.from ?? execFileSync("git", ["describe", "--tags", "--abbrev=0"]).toString().trim();
const langs = (args.lang ?? "en").split(",");

const log = execFileSync("git", ["log", `${from}..HEAD`, "--no-merges", "--pretty=format:%s\t%h"]).toString();
const groups = { feat: [], fix: [], perf: [], docs: [] };
for (const line of log.split("\n").filter(Boolean)) {
  const [subject, hash] = line.split("\t");
  const m = subject.match(/^(\w+)(\([^)]+\))?!?: (.+)$/);
  if (m && groups[m[1]]) groups[m[1]].push(`- ${m[3]} (${hash})`);
}
const titles = {
  en: { feat: "Features", fix: "Bug Fixes", perf: "Performance", docs: "Documentation" },
  "zh-CN": { feat: "新功能", fix: "修复", perf: "性能", docs: "文档" },
};
const date = new Date().toISOString().slice(0, 10);
for (const lang of langs) {
  const file = lang === "en" ? "CHANGELOG.md" : `CHANGELOG.${lang}.md`;
  let out = `## Unreleased (${date})\n\n`;
  for (const [k, items] of Object.entries(groups)) if (items.length) out += `### ${titles[lang][k]}\n\n${items.join("\n")}\n\n`;
  const prev = existsSync(file) ? readFileSync(file, "utf8") : "";
  writeFileSync(file, out + prev);
  console.log(`updated ${file}`);
}
