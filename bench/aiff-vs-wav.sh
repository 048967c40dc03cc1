#!/usr/bin/env bash
# The sfx corpus converted from WAV and from AIFF in the same run (issue 16's goal: AIFF at most
# 1.2x WAV). The AIFF copy is made once from the WAV corpus by sndfile-convert (same samples, same
# tree; 8-bit unsigned WAV becomes signed AIFF, floats AIFF-C 'fl32'/'fl64').
#
#   bash bench/aiff-vs-wav.sh BIN [RUNS]     # BIN: the cafconv binary; RUNS defaults to 5
#
# Writes under bench/work/: corpus/sfx-aiff, out/aiff-vs-wav, results/aiff-vs-wav.{json,md}.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
BIN=$1
RUNS=${2:-5}
W=bench/work
for tool in hyperfine sndfile-convert python3; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is missing" >&2; exit 1; }
done
[[ -d $W/corpus/sfx ]] || python3 bench/make-corpus.py "$W/corpus" sfx
src=$W/corpus/sfx
aiff=$W/corpus/sfx-aiff
if [[ ! -f $aiff/.complete ]]; then
    rm -rf "$aiff"
    (cd "$src" && find . -name '*.wav' -print) | while read -r rel; do
        mkdir -p "$aiff/$(dirname "$rel")"
        sndfile-convert "$src/$rel" "$aiff/${rel%.wav}.aif" >/dev/null
    done
    touch "$aiff/.complete"
fi
out=$W/out/aiff-vs-wav
R=$W/results
mkdir -p "$R"
hyperfine --warmup 1 --runs "$RUNS" --export-json "$R/aiff-vs-wav.json" \
    -n "cafconv sfx as WAV" --prepare "rm -rf $out/wav" "$BIN convert $src -o $out/wav --force -q -j 2" \
    -n "cafconv sfx as AIFF" --prepare "rm -rf $out/aiff" "$BIN convert $aiff -o $out/aiff --force -q -j 2"
# The outputs must be the same files, byte for byte (same samples, same target formats).
if diff -r -q -x .cafconv-manifest "$out/wav" "$out/aiff" >/dev/null; then same=yes; else same=NO; fi
python3 - "$R/aiff-vs-wav.json" "$same" <<'PY' | tee "$R/aiff-vs-wav.md"
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
wav, aiff = results["cafconv sfx as WAV"], results["cafconv sfx as AIFF"]
print("| source | median s | min s | max s |")
print("| --- | --- | --- | --- |")
for name, r in (("WAV", wav), ("AIFF", aiff)):
    print(f"| sfx as {name} | {r['median']:.3f} | {r['min']:.3f} | {r['max']:.3f} |")
ratio = aiff["median"] / wav["median"]
print(f"\nAIFF / WAV (medians): {ratio:.2f}x (goal <= 1.2x: {'met' if ratio <= 1.2 else 'NOT met'}); outputs identical: {sys.argv[2]}")
PY
