#!/usr/bin/env bash
# M4A to CAF: an AAC source's packets moved (issue 31) against re-encoding them, and against
# ffmpeg's own packet copy into MP4. The music corpus is encoded once (not timed) by ffmpeg's AAC
# encoder at 128 kb/s into .m4a; then, each writing every file:
#   cafconv move:       `convert -d aac -j 2` (packets moved, proven byte for byte)
#   cafconv re-encode:  `convert -d aac -b 128000 -j 2` (decoded, encoded, proven by SNR)
#   ffmpeg -c copy:     one ffmpeg per file into .mp4, `xargs -P 2`
# Goals: the move at least 5x faster than the re-encode, and no slower than ffmpeg -c copy.
#
#   bash bench/m4a-remux.sh       (BENCH_RUNS, default 3; BENCH_WARMUP, default 1; BIN: a cafconv binary)
# Writes under bench/work/: corpus/ (shared with run.sh), m4a/, out/m4a/, results/m4a/.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
W=bench/work
RUNS=${BENCH_RUNS:-3}
R=$W/results/m4a
out=$W/out/m4a
rm -rf "$R" "$out"
mkdir -p "$R" "$out"

if [[ -z ${BIN:-} ]]; then
    flags=$(bash scripts/release-flags.sh)
    echo "== building cafconv (release)" >&2
    # shellcheck disable=SC2086
    swift build $flags --product cafconv
    # shellcheck disable=SC2086
    BIN="$(swift build $flags --show-bin-path)/cafconv"
fi

python3 bench/make-corpus.py "$W/corpus" music >/dev/null
src=$W/m4a
if [[ ! -d $src ]]; then
    echo "== encoding the music corpus to .m4a (once)" >&2
    mkdir -p "$src.tmp"
    (cd "$W/corpus/music" && find . -name '*.wav' -print0 | OUT=$OLDPWD/$src.tmp xargs -0 -P 2 -n 1 bash -c '
        target="$OUT/${1%.wav}.m4a"; mkdir -p "$(dirname "$target")"
        ffmpeg -nostdin -v error -y -i "$1" -c:a aac -b:a 128k "$target"' _)
    mv "$src.tmp" "$src"
fi
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "nproc: $(nproc), load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "cafconv: $(git rev-parse --short HEAD)"
    echo "ffmpeg: $(ffmpeg -version | head -1)"
    echo "corpus: $(find "$src" -name '*.m4a' | wc -l) .m4a files, $(du -sb "$src" | cut -f1) bytes"
} >"$R/machine.txt"

copy_cmd="bash bench/m4a-ffmpeg-copy.sh $src $PWD/$out/ffmpeg"
hyperfine --warmup "${BENCH_WARMUP:-1}" --runs "$RUNS" --export-json "$R/timing.json" \
    -n "cafconv move (-d aac, -j 2)" --prepare "rm -rf $out/moved" "$BIN convert $src -o $out/moved -d aac -j 2 --force -q" \
    -n "cafconv re-encode (-d aac -b 128000, -j 2)" --prepare "rm -rf $out/encoded" \
    "$BIN convert $src -o $out/encoded -d aac -b 128000 -j 2 --force -q" \
    -n "ffmpeg -c copy to .mp4 (xargs -P 2)" --prepare "rm -rf $out/ffmpeg" "$copy_cmd"

python3 - "$R" <<'PY'
import json, sys, os
r = sys.argv[1]
t = json.load(open(os.path.join(r, "timing.json")))["results"]
print(open(os.path.join(r, "machine.txt")).read())
print("| music corpus .m4a to CAF | mean s | ± | ratio to the move |")
print("|---|---|---|---|")
for x in t:
    print(f"| {x['command']} | {x['mean']:.3f} | {(x['stddev'] or 0):.3f} | {x['mean'] / t[0]['mean']:.2f} |")
PY
