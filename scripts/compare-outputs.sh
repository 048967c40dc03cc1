#!/usr/bin/env bash
# Converts the same inputs with two cafconv binaries and compares every output byte for byte.
#
#   scripts/compare-outputs.sh OLD_CAFCONV NEW_CAFCONV [BENCH_CORPUS_DIR]
#
# Inputs: Samples/, ../shared/corpus/real (skipped with a message when absent) and, when given,
# a bench corpus made by `python3 bench/make-corpus.py DIR sfx music tiny` (any subset).
# Each input folder is converted with the default format and with -d LEF32, ulaw, alaw, alac,
# BEI24 and I8 (so every road runs: direct payload, pump, G.711 codes, ALAC); the outputs must be
# the same files with the same bytes (the .cafconv-manifest, which records times, excepted), and
# both runs must end with the same exit status.
# Exit status: 0 when everything is identical, 1 otherwise.
set -u
old=$1 new=$2 bench=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inputs=("$here/Samples")
if [ -d "$here/../shared/corpus/real" ]; then inputs+=("$here/../shared/corpus/real")
else echo "note: ../shared/corpus/real is absent: not compared"; fi
if [ -n "$bench" ]; then for d in "$bench"/*/; do inputs+=("${d%/}"); done; fi
status=0
for input in "${inputs[@]}"; do
    for format in default LEF32 ulaw alaw alac BEI24 I8; do
        args=(); [ "$format" = default ] || args=(-d "$format")
        name=$(basename "$input")-$format
        "$old" convert -q "${args[@]}" "$input" -o "$work/old/$name" >/dev/null 2>&1; a=$?
        "$new" convert -q "${args[@]}" "$input" -o "$work/new/$name" >/dev/null 2>&1; b=$?
        if [ "$a" != "$b" ]; then echo "DIFFERENT exit status: $name: $a vs $b"; status=1; fi
        if ! diff -r -q -x .cafconv-manifest "$work/old/$name" "$work/new/$name" >"$work/diff" 2>&1; then
            echo "DIFFERENT outputs: $name"; head -5 "$work/diff"; status=1
        else
            echo "identical: $name ($(find "$work/new/$name" -type f 2>/dev/null | wc -l) files, exit $b)"
        fi
        rm -rf "$work/old/$name" "$work/new/$name"
    done
done
[ $status = 0 ] && echo "all outputs identical" || echo "outputs differ"
exit $status
