"""Crash reporting for internal CLIs (vendored helper)."""
from __future__ import annotations

import atexit
import os
import platform
import sys

import sentry_sdk


def _scrub(event, hint):
    # Never send argument values; only the sub-command name.
    event.pop("extra", None)
    return event


def init_reporting(tool: str, version: str) -> None:
    dsn = os.environ.get("ACME_SENTRY_DSN")
    if not dsn:
        return
    sentry_sdk.init(
        dsn=dsn,
        release=f"{tool}@{version}",
        send_default_pii=False,
        debug=bool(os.environ.get("ACME_SENTRY_DEBUG")),
        before_send=_scrub,
    )
    sentry_sdk.set_tag("tool", tool)
    sentry_sdk.set_tag("subcommand", sys.argv[1] if len(sys.argv) > 1 else "")
    sentry_sdk.set_tag("python", platform.python_version())
    atexit.register(sentry_sdk.flush, 2)
