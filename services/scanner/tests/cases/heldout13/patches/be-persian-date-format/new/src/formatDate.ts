export type SupportedLocale = "en-US" | "fr-FR" | "de-DE" | "fa-IR";

export const LOCALE_CONFIG: Record<SupportedLocale, { calendar: string; timeZone: string }> = {
  "en-US": { calendar: "gregory", timeZone: "America/New_York" },
  "fr-FR": { calendar: "gregory", timeZone: "Europe/Paris" },
  "de-DE": { calendar: "gregory", timeZone: "Europe/Berlin" },
  "fa-IR": { calendar: "persian", timeZone: "Asia/Tehran" },
};

// Right-to-left locales get an RLM after the formatted value so that trailing
// punctuation added by the UI stays at the visual end of the sentence.
const RTL = new Set<SupportedLocale>(["fa-IR"]);
const RLM = "\u200f";

const cache = new Map<string, Intl.DateTimeFormat>();

export function formatDate(
  date: Date,
  locale: SupportedLocale,
  options: Intl.DateTimeFormatOptions = { dateStyle: "full" },
  timeZone = LOCALE_CONFIG[locale].timeZone,
): string {
  const key = `${locale}|${timeZone}|${JSON.stringify(options)}`;
  let fmt = cache.get(key);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat(locale, { ...options, calendar: LOCALE_CONFIG[locale].calendar, timeZone });
    cache.set(key, fmt);
  }
  const out = fmt.format(date);
  return RTL.has(locale) ? out + RLM : out;
}

export function formatRelative(days: number, locale: SupportedLocale): string {
  return new Intl.RelativeTimeFormat(locale, { numeric: "auto" }).format(days, "day");
}
