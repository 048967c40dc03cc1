#!/usr/bin/env bash
# The peer of `cafconv convert -d aac`: every WAV under SRC to OUT/<same path>.m4a with ffmpeg's
# native AAC encoder at 128 kb/s, one ffmpeg process per file, two at a time (xargs -P 2).
#   bash bench/aac-ffmpeg.sh SRC OUT
set -euo pipefail
src=$1
out=$2
cd "$src"
find . -name '*.wav' -print0 | OUT=$out xargs -0 -P 2 -n 1 bash -c '
    target="$OUT/${1%.wav}.m4a"
    mkdir -p "$(dirname "$target")"
    ffmpeg -nostdin -v error -y -i "$1" -c:a aac -b:a 128k "$target"' _
