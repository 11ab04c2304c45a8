#!/usr/bin/env python3
"""Jalali date formatting and Persian string checks."""
import datetime as dt
import json
import re
import sys

import jdatetime

FA_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
MONTHS = ["فروردین", "اردیبهشت", "خرداد", "تیر", "مرداد", "شهریور",
          "مهر", "آبان", "آذر", "دی", "بهمن", "اسفند"]
WEEKDAYS = ["شنبه", "یک\u200cشنبه", "دوشنبه", "سه\u200cشنبه", "چهارشنبه", "پنج\u200cشنبه", "جمعه"]
# common prefixes/suffixes that need ZWNJ, not a space
ZWNJ_EXPECTED = re.compile(r"(?:^|\s)(می|نمی) (?=\S)|(?<=\S) (ها|های|ای|تر|ترین)(?=\s|$)")
OVERRIDES = re.compile("[\u202a-\u202e]")


def fmt(date: dt.date) -> str:
    j = jdatetime.date.fromgregorian(date=date)
    return f"{str(j.day).translate(FA_DIGITS)} {MONTHS[j.month - 1]} {str(j.year).translate(FA_DIGITS)}", WEEKDAYS[j.weekday()]


def check(path):
    problems = 0
    for key, val in json.load(open(path, encoding="utf-8")).items():
        if not isinstance(val, str):
            continue
        if ZWNJ_EXPECTED.search(val):
            print(f"{key}: space where ZWNJ (U+200C) is expected"); problems += 1
        if OVERRIDES.search(val):
            print(f"{key}: bidi override control found (U+202A-U+202E)"); problems += 1
    print("ok" if not problems else f"{problems} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    d, w = fmt(dt.date.fromisoformat(sys.argv[1]))
    print(d, "—", w)
