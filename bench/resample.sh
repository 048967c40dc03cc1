#!/usr/bin/env bash
# Rate and channel conversion: the sfx corpus to 22050 Hz mono, cafconv against sox and ffmpeg.
#
#   bash bench/resample.sh          # also the last step of bench/run.sh (CAFCONV_BENCH_SKIP_RESAMPLE=1 skips it)
#
# cafconv: one process, `convert SRC -o OUT -d LEI16@22050 -c 1` (-j 2, the default on 2 cores);
# sox `IN -r 22050 -c 1 OUT.caf` and ffmpeg `-i IN -ar 22050 -ac 1 OUT.caf`, one process per file
# with xargs -P 2 (bench/peers-resample.sh). hyperfine --warmup 1 --runs BENCH_RUNS (default 5),
# outputs deleted before every run; peak RSS from one more run under /usr/bin/time (for xargs,
# the largest single process); quality from bench/resample-quality.py (needs python3-numpy).
# Writes bench/work/results-resample/ (report.md is the table).
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."

W=bench/work
RUNS=${BENCH_RUNS:-5}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_require "apt-get install hyperfine sox ffmpeg time python3-numpy" hyperfine sox ffmpeg python3 /usr/bin/time
bench_binary

python3 bench/make-corpus.py "$W/corpus" sfx >&2
src=$W/corpus/sfx
list=$W/corpus/sfx.list
R=$W/results-resample
out=$W/out-resample
rm -rf "$R" "$out"
mkdir -p "$R" "$out"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "nproc: $(nproc)"
    echo "load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "cafconv: $(git rev-parse --short HEAD 2>/dev/null || echo '?'), libsoxr $(pkg-config --modversion soxr 2>/dev/null || echo '?')"
    echo "sox: $(sox --version 2>&1 | head -1)"
    echo "ffmpeg: $(ffmpeg -version | head -1)"
} >"$R/machine.txt"

names=("cafconv -j 2" "sox xargs -P 2" "ffmpeg xargs -P 2")
commands=(
    "$BIN convert $src -o $out/cafconv --force -q -d LEI16@22050 -c 1"
    "bash bench/peers-resample.sh sox $src $out/sox $list"
    "bash bench/peers-resample.sh ffmpeg $src $out/ffmpeg $list"
)
dirs=(cafconv sox ffmpeg)
# BENCH_BASELINE_BIN (bench/run.sh, bench/compare.sh): another cafconv timed in the same run.
if [[ -n ${BENCH_BASELINE_BIN:-} ]]; then
    names+=("cafconv (baseline) -j 2")
    commands+=("$BENCH_BASELINE_BIN convert $src -o $out/baseline --force -q -d LEI16@22050 -c 1")
    dirs+=(baseline)
fi
args=()
for i in "${!names[@]}"; do args+=(-n "${names[$i]}" --prepare "rm -rf $out/${dirs[$i]}" "${commands[$i]}"); done
echo "== sfx to 22050 Hz mono: timing" >&2
hyperfine --warmup 1 --runs "$RUNS" --export-json "$R/timing.json" "${args[@]}" >&2

echo "== peak RSS" >&2
for i in "${!names[@]}"; do
    rm -rf "${out:?}/${dirs[$i]}"
    /usr/bin/time -f '%M' -o "$R/time.tmp" bash -c "${commands[$i]}"
    printf '%s\t%s\n' "${names[$i]}" "$(cat "$R/time.tmp")" >>"$R/rss.tsv"
done
rm -f "$R/time.tmp"
echo "load-after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$R/machine.txt"
outputs="cafconv $(find "$out/cafconv" -name '*.caf' | wc -l), sox $(find "$out/sox" -name '*.caf' | wc -l), ffmpeg $(find "$out/ffmpeg" -name '*.caf' | wc -l) of $(wc -l <"$list")"

echo "== quality" >&2
python3 bench/resample-quality.py "$BIN" "$W/resample-quality" >"$R/quality.md"

python3 - "$R" "$outputs" >"$R/report.md" <<'PY'
import json, sys
R, outputs = sys.argv[1], sys.argv[2]
results = json.load(open(f'{R}/timing.json'))['results']
rss = dict(line.rstrip('\n').split('\t') for line in open(f'{R}/rss.tsv'))
peers = min(r['median'] for r in results if not r['command'].startswith('cafconv'))
ours = next(r['median'] for r in results if r['command'].startswith('cafconv'))
print('| tool | median s (min-max) | x cafconv | faster peer / tool | peak RSS |')
print('| --- | --- | --- | --- | --- |')
for r in results:
    print(f"| {r['command']} | {r['median']:.3f} ({r['min']:.3f}-{r['max']:.3f}) | {r['median'] / ours:.2f} | "
          f"{peers / r['median']:.2f} | {int(rss[r['command']]) / 1024:.1f} MB |")
print()
print(f'cafconv is {peers / ours:.2f}x faster than the faster peer. Outputs written: {outputs}.')
print()
print(open(f'{R}/quality.md').read())
print(open(f'{R}/machine.txt').read())
PY
cat "$R/report.md"
