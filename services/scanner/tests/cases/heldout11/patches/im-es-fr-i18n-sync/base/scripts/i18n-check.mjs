import { readFileSync, readdirSync } from 'node:fs';
const en = JSON.parse(readFileSync('locales/en.json', 'utf8'));
let failed = false;
for (const f of readdirSync('locales').filter((f) => f.endsWith('.json') && f !== 'en.json')) {
  const loc = JSON.parse(readFileSync(`locales/${f}`, 'utf8'));
  const missing = Object.keys(en).filter((k) => !(k in loc));
  const extra = Object.keys(loc).filter((k) => !(k in en) && !k.startsWith('_'));
  if (missing.length || extra.length) failed = true;
  console.log(`${f}: ${missing.length} missing, ${extra.length} stale`);
  missing.slice(0, 20).forEach((k) => console.log(`  - missing ${k}`));
  extra.slice(0, 20).forEach((k) => console.log(`  - stale ${k}`));
}
process.exit(failed ? 1 : 0);
