const fs = require('fs');
const path = require('path');
const dir = process.argv[2];
const flat = (o, p = '') => Object.entries(o).flatMap(([k, v]) =>
  typeof v === 'object' ? flat(v, p + k + '.') : [p + k]);
const en = new Set(flat(JSON.parse(fs.readFileSync(path.join(dir, 'en.json')))));
for (const f of fs.readdirSync(dir).filter(f => f !== 'en.json')) {
  const have = new Set(flat(JSON.parse(fs.readFileSync(path.join(dir, f)))));
  const miss = [...en].filter(k => !have.has(k));
  console.log(f, miss.length, 'missing');
}
