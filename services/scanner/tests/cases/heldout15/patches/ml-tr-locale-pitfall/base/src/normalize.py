import re
import unicodedata

_WS = re.compile(r"\s+")


def normalize_identifier(value: str) -> str:
    s = _WS.sub(" ", value.strip())
    s = unicodedata.normalize("NFKC", s)
    return s.casefold()
