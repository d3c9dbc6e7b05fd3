#!/usr/bin/env bash
# Renders the Marketplace icon (media/icon.png, 128×128) from media/icon.svg: the activity-bar
# glyph drawn white on the gallery banner's blue. Needs ImageMagick (apt-get install imagemagick).
set -euo pipefail
cd "$(dirname "$0")/.."
CONVERT=/usr/bin/convert
[ -x "$CONVERT" ] || CONVERT=convert
sed 's/currentColor/#ffffff/' media/icon.svg >"${TMPDIR:-/tmp}/atl-icon.svg"
"$CONVERT" -background none -density 1536 "${TMPDIR:-/tmp}/atl-icon.svg" -resize 96x96 \
  \( -size 128x128 xc:none -fill '#1e3a5f' -draw 'roundrectangle 0,0 127,127 20,20' \) +swap \
  -gravity center -composite -strip PNG32:media/icon.png
rm -f "${TMPDIR:-/tmp}/atl-icon.svg"
