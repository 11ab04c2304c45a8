import os
import sys

from colorama import Fore, Style, just_fix_windows_console

just_fix_windows_console()
_USE = sys.stdout.isatty() and "NO_COLOR" not in os.environ


def _c(color, prefix, msg):
    text = f"{prefix} {msg}"
    print(f"{color}{text}{Style.RESET_ALL}" if _USE else text)


def ok(msg):
    _c(Fore.GREEN, "✔", msg)


def warn(msg):
    _c(Fore.YELLOW, "!", msg)


def err(msg):
    _c(Fore.RED, "✖", msg)
