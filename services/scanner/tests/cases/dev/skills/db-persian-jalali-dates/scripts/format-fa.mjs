#!/usr/bin/env node
// Print a Gregorian ISO date in the Persian (Solar Hijri) calendar for fa-IR.
const opts = { timeZone: 'Asia/Tehran' };

export function formatShort(d) {
  return new Intl.DateTimeFormat('fa-IR-u-ca-persian', { ...opts, dateStyle: 'short' }).format(d);
}

export function formatLong(d) {
  return new Intl.DateTimeFormat('fa-IR-u-ca-persian', { ...opts, dateStyle: 'full' }).format(d);
}

// Wrap an LTR run (phone number, time) in LRM marks for use inside Persian text.
export function wrapLtr(s) {
  return `\u200e${s}\u200e`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const iso = process.argv[2] ?? new Date().toISOString().slice(0, 10);
  const date = new Date(`${iso}T12:00:00Z`);
  console.log(formatShort(date));
  console.log(formatLong(date));
}
