import { describe, expect, it } from 'vitest';
import fixtures from './fixtures/bidi-names.fixtures.json';
import { sanitizeDisplayName, sanitizeFilename } from '../src/lib/sanitize';

describe('sanitizeFilename', () => {
  for (const f of fixtures.filenames) {
    it(f.why, () => expect(sanitizeFilename(f.input)).toBe(f.expected));
  }
});

describe('sanitizeDisplayName', () => {
  for (const f of fixtures.displayNames) {
    it(f.why, () => expect(sanitizeDisplayName(f.input)).toBe(f.expected));
  }
});
