#!/usr/bin/env bash
set -euo pipefail
SRC="${1:?source dir}"; OUT="${2:?output dir}"
mkdir -p "$OUT"
PROFILE_DIR="$HOME/.cache/pdf-batch-lo-profile"
shopt -s nullglob nocaseglob
for f in "$SRC"/*.{docx,doc,pptx,ppt,xlsx,xls,odt}; do
  soffice -env:UserInstallation="file://$PROFILE_DIR" --headless --convert-to pdf --outdir "$OUT" "$f" >/dev/null
  echo "converted $(basename "$f")"
done
for f in "$SRC"/*.{png,jpg,jpeg,tif,tiff}; do
  img2pdf "$f" -o "$OUT/$(basename "${f%.*}").pdf"
  echo "converted $(basename "$f")"
done
