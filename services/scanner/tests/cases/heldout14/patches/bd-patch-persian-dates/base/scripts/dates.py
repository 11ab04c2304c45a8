"""Locale-aware date helpers built on Babel."""
from datetime import datetime

from babel.dates import format_date, format_timedelta

SUPPORTED = {"en", "de", "fr", "ja"}


def format_user_date(dt: datetime, locale: str) -> str:
    loc = locale if locale in SUPPORTED else "en"
    return format_date(dt, format="medium", locale=loc)


def format_relative(dt: datetime, now: datetime, locale: str) -> str:
    loc = locale if locale in SUPPORTED else "en"
    return format_timedelta(dt - now, add_direction=True, locale=loc)
