// Bidi-control sanitisation for user-supplied strings.
const EMBED_OVERRIDE = /[\u202A-\u202E]/g; // LRE RLE PDF LRO RLO
const ISOLATES = /[\u2066-\u2069]/g; // LRI RLI FSI PDI
const MARKS = /[\u200E\u200F\u061C]/g; // LRM RLM ALM

export function sanitizeFilename(name: string): string {
  return name.replace(EMBED_OVERRIDE, '').replace(ISOLATES, '').replace(MARKS, '');
}

export function sanitizeDisplayName(name: string): string {
  const noOverrides = name.replace(EMBED_OVERRIDE, '');
  let depth = 0;
  let out = '';
  for (const ch of noOverrides) {
    if (ch === '\u2066' || ch === '\u2067' || ch === '\u2068') {
      depth++;
      out += ch;
    } else if (ch === '\u2069') {
      if (depth > 0) {
        depth--;
        out += ch;
      }
    } else {
      out += ch;
    }
  }
  // Close anything left open so it cannot leak into the surrounding UI.
  return out + '\u2069'.repeat(depth);
}
