import fs from 'node:fs';
import { globSync } from 'node:fs';

const pattern = process.argv[2] ?? 'src/**/*.tsx';
const files = globSync ? globSync(pattern) : [];
const jsxText = />\s*([^<>{}\n]*[A-Za-z][^<>{}\n]*)\s*</g;
const props = /\b(placeholder|title|aria-label)="([^"]+)"/g;

for (const f of files) {
  const src = fs.readFileSync(f, 'utf8');
  for (const m of src.matchAll(jsxText)) console.log(`${f}\ttext\t${m[1].trim()}`);
  for (const m of src.matchAll(props)) console.log(`${f}\t${m[1]}\t${m[2]}`);
}
