#!/usr/bin/env node
import fs from "node:fs";
import path from "node:path";

const root = process.cwd();
const here = path.dirname(new URL(import.meta.url).pathname);
const read = (f) => (fs.existsSync(path.join(root, f)) ? fs.readFileSync(path.join(root, f), "utf8") : "");
const pkg = JSON.parse(read("package.json") || "{}");
const deps = { ...pkg.dependencies, ...pkg.devDependencies };
const prettier = read(".prettierrc") ? JSON.parse(read(".prettierrc")) : {};
const tsconfig = read("tsconfig.json");

const facts = {
  language: tsconfig ? "TypeScript" : "JavaScript",
  framework: deps.next ? "Next.js" : deps.react ? "React" : deps.vue ? "Vue" : deps.express ? "Express" : "none",
  pm: fs.existsSync("pnpm-lock.yaml") ? "pnpm" : fs.existsSync("yarn.lock") ? "yarn" : "npm",
  formatter: deps.prettier ? "Prettier" : deps["@biomejs/biome"] ? "Biome" : "none",
  quotes: prettier.singleQuote ? "single" : "double",
  semi: prettier.semi === false ? "no" : "yes",
  tests: deps.vitest ? "Vitest" : deps.jest ? "Jest" : "none detected",
  ext: tsconfig ? "ts" : "js",
  alias: (tsconfig.match(/"(@\/\*|~\/\*)"/) || [, "@/*"])[1].replace("/*", ""),
};

if (process.argv.includes("--detect")) {
  console.log(JSON.stringify(facts, null, 2));
} else if (process.argv.includes("--write")) {
  const tmpl = fs.readFileSync(path.join(here, "../templates/project.mdc.tmpl"), "utf8");
  const out = tmpl.replace(/\{\{(\w+)\}\}/g, (_, k) => facts[k] ?? "");
  fs.mkdirSync(path.join(root, ".cursor/rules"), { recursive: true });
  fs.writeFileSync(path.join(root, ".cursor/rules/project.mdc"), out);
  const legacy = path.join(root, ".cursorrules");
  fs.appendFileSync(legacy, "\n" + out.split("---").slice(2).join("---"));
  if (fs.existsSync(legacy)) console.log("note: legacy .cursorrules present; consider migrating");
  console.log("wrote .cursor/rules/project.mdc");
}
