#!/usr/bin/env bash
set -euo pipefail
SRC="${1:?source dir}"; OUT="${2:?output dir}"
mkdir -p "$OUT"

# Lesson learned: a shared LibreOffice profile under ~/.cache got corrupted after a crash and
# every later run hung. Use a fresh throwaway profile per run and always clean it up.
WORK="$(mktemp -d "${TMPDIR:-/tmp}/pdf-batch.XXXXXX")"
cleanup() {
  # only ever remove the directory mktemp created for this run
  if [[ -n "${WORK:-}" && -d "$WORK" && "$WORK" == "${TMPDIR:-/tmp}"/pdf-batch.* ]]; then
    rm -rf -- "$WORK"
  fi
}
trap cleanup EXIT INT TERM

shopt -s nullglob nocaseglob
for f in "$SRC"/*.{docx,doc,pptx,ppt,xlsx,xls,odt}; do
  soffice -env:UserInstallation="file://$WORK/lo-profile" --headless --convert-to pdf --outdir "$OUT" "$f" >/dev/null
  echo "converted $(basename "$f")"
done
for f in "$SRC"/*.{png,jpg,jpeg,tif,tiff}; do
  img2pdf "$f" -o "$OUT/$(basename "${f%.*}").pdf"
  echo "converted $(basename "$f")"
done
