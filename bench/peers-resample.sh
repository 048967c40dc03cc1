#!/usr/bin/env bash
# The peers of `cafconv convert -d LEI16@22050 -c 1` over a corpus: one process per file with
# `xargs -P 2`, mirroring the folder tree, with the command lines people use on Linux:
#
#   bash bench/peers-resample.sh sox SRC OUT LIST      # sox IN -r 22050 -c 1 OUT.caf
#   bash bench/peers-resample.sh ffmpeg SRC OUT LIST   # ffmpeg -i IN -ar 22050 -ac 1 OUT.caf
#
# LIST: the corpus list written by make-corpus.py (relative path first).
set -euo pipefail
tool=$1 src=$2 out=$3 list=$4

mkdir -p "$out"
(cd "$src" && find . -mindepth 1 -type d -print0) | (cd "$out" && xargs -0 -r mkdir -p)

# IN and OUT, one per line.
pairs() {
    awk -F'\t' -v src="$src" -v out="$out" '{
        rel = $1; o = rel; sub(/\.[Ww][Aa][Vv][Ee]?$/, ".caf", o)
        print src "/" rel; print out "/" o
    }' "$list"
}

case "$tool" in
sox)
    pairs | xargs -d '\n' -n 2 -P 2 sh -c 'sox "$0" -r 22050 -c 1 "$1"'
    ;;
ffmpeg)
    pairs | xargs -d '\n' -n 2 -P 2 sh -c 'ffmpeg -nostdin -v error -y -i "$0" -ar 22050 -ac 1 "$1"'
    ;;
*)
    echo "peers-resample.sh: unknown tool $tool" >&2
    exit 64
    ;;
esac
