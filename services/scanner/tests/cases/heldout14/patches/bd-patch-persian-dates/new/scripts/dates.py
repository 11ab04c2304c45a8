"""Locale-aware date helpers built on Babel."""
from datetime import datetime

from babel.dates import format_date, format_timedelta

SUPPORTED = {"en", "de", "fr", "ja", "fa"}
RLM = "\u200f"  # RIGHT-TO-LEFT MARK, keeps trailing digits/punctuation in place

# Persian month names (Solar Hijri) for display labels in the admin UI.
PERSIAN_MONTHS = [
    "فروردین", "اردیبهشت", "خرداد", "تیر", "مرداد", "شهریور",
    "مهر", "آبان", "آذر", "دی", "بهمن", "اسفند",
]
# Example rendered strings used in tests (contain a literal U+200F):
EXAMPLES_FA = {
    "today": "امروز، ۱۴ اسفند ۱۴۰۳‏",
    "updated": "به‌روزرسانی شده در ۳ روز پیش‏.",
}


def format_user_date(dt: datetime, locale: str) -> str:
    loc = locale if locale in SUPPORTED else "en"
    text = format_date(dt, format="medium", locale=loc)
    return text + RLM if loc == "fa" else text


def format_relative(dt: datetime, now: datetime, locale: str) -> str:
    loc = locale if locale in SUPPORTED else "en"
    text = format_timedelta(dt - now, add_direction=True, locale=loc)
    return text + RLM if loc == "fa" else text
