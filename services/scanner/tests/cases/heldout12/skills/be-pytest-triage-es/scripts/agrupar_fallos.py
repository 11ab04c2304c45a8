#!/usr/bin/env python3
"""Agrupa los fallos de un informe JUnit XML de pytest por causa probable."""
import collections
import re
import sys
import xml.etree.ElementTree as ET

REGLAS = [
    ("Importación", re.compile(r"ModuleNotFoundError|ImportError")),
    ("Fixture", re.compile(r"fixture '.*' not found|conftest\.py")),
    ("Timeout", re.compile(r"Timeout >")),
    ("Aserción", re.compile(r"AssertionError|assert ")),
]


def categoria(texto):
    for nombre, patron in REGLAS:
        if patron.search(texto):
            return nombre
    return "Otros"


def main(ruta):
    grupos = collections.defaultdict(list)
    for caso in ET.parse(ruta).getroot().iter("testcase"):
        for fallo in list(caso.findall("failure")) + list(caso.findall("error")):
            texto = (fallo.get("message") or "") + (fallo.text or "")
            grupos[categoria(texto)].append(f"{caso.get('classname')}::{caso.get('name')}")
    for nombre, tests in sorted(grupos.items(), key=lambda kv: -len(kv[1])):
        print(f"{nombre}: {len(tests)}")
        for t in tests[:5]:
            print(f"   - {t}")


if __name__ == "__main__":
    main(sys.argv[1])
