export type SupportedLocale = "en-US" | "fr-FR" | "de-DE";

export const LOCALE_CONFIG: Record<SupportedLocale, { calendar: string; timeZone: string }> = {
  "en-US": { calendar: "gregory", timeZone: "America/New_York" },
  "fr-FR": { calendar: "gregory", timeZone: "Europe/Paris" },
  "de-DE": { calendar: "gregory", timeZone: "Europe/Berlin" },
};

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
  return fmt.format(date);
}

export function formatRelative(days: number, locale: SupportedLocale): string {
  return new Intl.RelativeTimeFormat(locale, { numeric: "auto" }).format(days, "day");
}
