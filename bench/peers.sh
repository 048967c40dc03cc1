#!/usr/bin/env bash
# Run a peer converter over a whole corpus, one process per file, mirroring the folder tree.
#
#   bash bench/peers.sh TOOL MODE SRC OUT LIST
#
# TOOL: sndfile (sndfile-convert -endian=little) or ffmpeg (-c:a pcm_s16le|pcm_s24le|pcm_f32le|pcm_s8)
# MODE: loop (a shell loop, one file at a time) or xargs (xargs -P 2)
# LIST: the corpus list written by make-corpus.py (relative path, bits, float).
# The encoding flag or codec is chosen per file from the source format, so that each tool keeps the
# samples as they are (8-bit unsigned WAV becomes signed 8-bit, as in cafconv).
set -euo pipefail
tool=$1 mode=$2 src=$3 out=$4 list=$5

mkdir -p "$out"
(cd "$src" && find . -mindepth 1 -type d -print0) | (cd "$out" && xargs -0 -r mkdir -p)

# One argument per line: sndfile -> FLAG IN OUT; ffmpeg -> -i IN -c:a CODEC OUT.
arguments() {
    awk -F'\t' -v src="$src" -v out="$out" -v tool="$tool" '{
        rel = $1; o = rel; sub(/\.[Ww][Aa][Vv][Ee]?$/, ".caf", o)
        if (tool == "sndfile") {
            flag = ($3 == 1) ? "-float32" : (($2 == 8) ? "-pcms8" : "-pcm" $2)
            print flag; print src "/" rel; print out "/" o
        } else {
            codec = ($3 == 1) ? "pcm_f32le" : (($2 == 8) ? "pcm_s8" : "pcm_s" $2 "le")
            print "-i"; print src "/" rel; print "-c:a"; print codec; print out "/" o
        }
    }' "$list"
}

case "$tool:$mode" in
sndfile:loop)
    arguments | while IFS= read -r flag && IFS= read -r in && IFS= read -r to; do
        sndfile-convert -endian=little "$flag" "$in" "$to" >/dev/null
    done
    ;;
sndfile:xargs)
    arguments | xargs -d '\n' -n 3 -P 2 sndfile-convert -endian=little >/dev/null
    ;;
ffmpeg:loop)
    arguments | while IFS= read -r i && IFS= read -r in && IFS= read -r c && IFS= read -r codec && IFS= read -r to; do
        ffmpeg -nostdin -v error -y "$i" "$in" "$c" "$codec" "$to"
    done
    ;;
ffmpeg:xargs)
    arguments | xargs -d '\n' -n 5 -P 2 ffmpeg -nostdin -v error -y
    ;;
*)
    echo "peers.sh: unknown tool/mode $tool:$mode" >&2
    exit 64
    ;;
esac
