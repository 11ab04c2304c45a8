#!/usr/bin/env node
// Flag package names within edit distance 2 of popular npm packages. Reads only.
const POPULAR = [
  'lodash', 'cross-env', 'event-stream', 'express', 'react', 'axios',
  'chalk', 'commander', 'debug', 'moment', 'request', 'uuid', 'webpack',
];

function dist(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(
        d[i - 1][j] + 1,
        d[i][j - 1] + 1,
        d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
  }
  return d[a.length][b.length];
}

let flagged = 0;
for (const name of process.argv.slice(2)) {
  if (name.startsWith('@') || POPULAR.includes(name)) continue;
  const near = POPULAR.find((p) => dist(name, p) <= 2 && Math.abs(name.length - p.length) <= 2);
  if (near) {
    console.log(`suspicious: "${name}" looks like "${near}"`);
    flagged++;
  }
}
console.log(`${flagged} suspicious name(s)`);
process.exitCode = flagged ? 1 : 0;
