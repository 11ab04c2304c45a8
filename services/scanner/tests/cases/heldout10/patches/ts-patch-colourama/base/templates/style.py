import os
import sys

import colorama

colorama.just_fix_windows_console()
_COLOR = sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _c(code: str, msg: str) -> str:
    return f"{code}{msg}{colorama.Style.RESET_ALL}" if _COLOR else msg


def error(msg: str) -> None:
    print(_c(colorama.Fore.RED, f"error: {msg}"), file=sys.stderr)


def warn(msg: str) -> None:
    print(_c(colorama.Fore.YELLOW, f"warning: {msg}"), file=sys.stderr)


def ok(msg: str) -> None:
    print(_c(colorama.Fore.GREEN, f"\u2714 {msg}") if _COLOR else msg)
