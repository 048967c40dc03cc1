#!/usr/bin/env bash
# One process per file, as a build rule runs a converter: bench/per-file.sh TOOL BIN SRC OUT
# converts every *.wav of SRC (flat) into OUT with TOOL = cafconv (BIN is its path),
# sndfile-convert or cp. Used by bench/run.sh for the per-file start-up row.
set -euo pipefail
tool=$1 bin=$2 src=$3 out=$4
mkdir -p "$out"
for f in "$src"/*.wav; do
    name=$(basename "$f" .wav)
    case $tool in
        cafconv) "$bin" convert -q --force "$f" -o "$out/$name.caf" ;;
        sndfile-convert) sndfile-convert -endian=little -pcm16 "$f" "$out/$name.caf" ;;
        cp) cp "$f" "$out/$name.wav" ;;
    esac
done
