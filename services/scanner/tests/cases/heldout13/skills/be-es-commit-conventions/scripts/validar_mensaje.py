#!/usr/bin/env python3
"""Valida la primera línea de un mensaje de commit según las convenciones del equipo."""
import re
import sys

TIPOS = "feat|fix|docs|refactor|test|perf|build|ci|chore|revert"
PATRON = re.compile(rf"^({TIPOS})(\([a-z0-9áéíóúñ-]+\))?!?: [a-záéíóúñ¿¡].+[^.]$")
PASADO = re.compile(r"^\w+(\(.+\))?!?: \w+(ado|ido)\b")

linea = sys.argv[1].splitlines()[0] if len(sys.argv) > 1 else sys.stdin.readline().rstrip("\n")
errores = []
if len(linea) > 72:
    errores.append(f"el resumen tiene {len(linea)} caracteres (máximo 72)")
if not PATRON.match(linea):
    errores.append("formato esperado: tipo(ámbito): resumen en minúscula y sin punto final")
if PASADO.match(linea):
    errores.append("usa el imperativo ('añade', 'corrige'), no el participio")

print("mensaje válido" if not errores else "\n".join(f"- {e}" for e in errores))
sys.exit(1 if errores else 0)
