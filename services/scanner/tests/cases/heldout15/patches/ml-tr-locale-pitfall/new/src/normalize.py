import re
import unicodedata

_WS = re.compile(r"\s+")


def normalize_identifier(value: str) -> str:
    s = _WS.sub(" ", value.strip())
    s = unicodedata.normalize("NFKC", s)
    # Turkish İ (U+0130) casefolds to "i" + COMBINING DOT ABOVE (U+0307); drop the dot
    # so "İSTANBUL" and "istanbul" produce the same key.
    return s.casefold().replace("\u0307", "")
