import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatShort, wrapLtr } from './format-fa.mjs';

const strip = (s) => s.replace(/[\u200e\u200f]/g, '');

test('short Jalali date', () => {
  assert.equal(strip(formatShort(new Date('2024-05-04T12:00:00Z'))), '۱۴۰۳/۲/۱۵');
});

test('phone number is wrapped in LRM', () => {
  // The expected value contains real U+200E characters on both sides.
  assert.equal(wrapLtr('+98 21 5555 0100'), '‎+98 21 5555 0100‎');
});
