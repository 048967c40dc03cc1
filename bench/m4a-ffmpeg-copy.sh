#!/usr/bin/env bash
# The peer of cafconv's M4A move: every .m4a under SRC to OUT/<same path>.mp4 with
# `ffmpeg -c copy` (packets copied, no decoding), one ffmpeg process per file, two at a time.
#   bash bench/m4a-ffmpeg-copy.sh SRC OUT
set -euo pipefail
src=$1
out=$2
cd "$src"
find . -name '*.m4a' -print0 | OUT=$out xargs -0 -P 2 -n 1 bash -c '
    target="$OUT/${1%.m4a}.mp4"
    mkdir -p "$(dirname "$target")"
    ffmpeg -nostdin -v error -y -i "$1" -c copy "$target"' _
