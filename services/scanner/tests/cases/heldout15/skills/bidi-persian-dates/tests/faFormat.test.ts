import { describe, expect, it } from "vitest";
import { formatDate, normalizeFa, rtlLine } from "../src/faFormat";

describe("faFormat", () => {
  it("formats Nowruz 1403 in the Persian calendar", () => {
    expect(formatDate(new Date(Date.UTC(2024, 2, 20, 12)))).toContain("فروردین");
  });
  it("keeps ZWNJ in plurals", () => {
    expect(normalizeFa("کتاب‌ها")).toBe("کتاب‌ها");
  });
  it("prefixes digit-initial lines with RLM", () => {
    expect(rtlLine("3 فایل")).toBe("‏3 فایل");
  });
});
