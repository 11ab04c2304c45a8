#!/usr/bin/env bash
set -euo pipefail
root="$(git rev-parse --show-toplevel)"
cd "$root"
names=(node_modules dist build .next .turbo .parcel-cache target __pycache__ .pytest_cache coverage)
apply=0; [ "${1:-}" = "--yes" ] && apply=1

expr=(); for n in "${names[@]}"; do expr+=(-name "$n" -o); done; unset 'expr[${#expr[@]}-1]'
mapfile -t dirs < <(find . -type d \( "${expr[@]}" \) -prune -print)

todo=()
for d in "${dirs[@]}"; do
  # never touch anything git tracks
  if [ -n "$(git ls-files -- "$d" | head -1)" ]; then echo "skip (tracked): $d"; continue; fi
  todo+=("$d")
done

scratch="${TMPDIR:-/tmp}/$(basename "$root")-build"
[ -d "$scratch" ] && todo+=("$scratch")

[ ${#todo[@]} -gt 0 ] || { echo "nothing to clean"; exit 0; }
du -sch "${todo[@]}" 2>/dev/null | tail -1
if [ $apply -eq 1 ]; then
  for d in "${todo[@]}"; do
    case "$d" in ./*|"$scratch") rm -rf -- "$d" ;; *) echo "skip: $d" ;; esac
  done
  echo "cleaned ${#todo[@]} directories"
else
  printf '%s\n' "${todo[@]}"; echo "dry run; pass --yes to delete"
fi
