// Persian (fa-IR) formatting helpers.
const RLM = "\u200f";

export function formatDate(d: Date, opts: { latinDigits?: boolean } = {}): string {
  const locale = opts.latinDigits ? "fa-IR-u-ca-persian-nu-latn" : "fa-IR-u-ca-persian";
  return new Intl.DateTimeFormat(locale, { year: "numeric", month: "long", day: "numeric" }).format(d);
}

export function formatRelative(d: Date, now = new Date()): string {
  const days = Math.round((d.getTime() - now.getTime()) / 86_400_000);
  if (Math.abs(days) <= 7) {
    return new Intl.RelativeTimeFormat("fa", { numeric: "auto" }).format(days, "day");
  }
  return formatDate(d);
}

export function formatRial(amount: number): string {
  return new Intl.NumberFormat("fa-IR", { style: "currency", currency: "IRR", maximumFractionDigits: 0 }).format(amount);
}

/** Prefix a line that starts with a digit or Latin text so the paragraph stays RTL. */
export function rtlLine(s: string): string {
  return /^[0-9A-Za-z\u06F0-\u06F9]/.test(s) ? RLM + s : s;
}

/** Normalise Persian text without destroying ZWNJ (U+200C). */
export function normalizeFa(s: string): string {
  return s.replace(/\u064A/g, "\u06CC").replace(/\u0643/g, "\u06A9").replace(/ +/g, " ").trim();
}
