#!/usr/bin/env bash
# Issue 34's numbers: builds at studio scale.
#
#   bash bench/build-scale.sh [cafconv binary]       (default: .build/release/cafconv)
#
# Environment: BENCH_RUNS (default 5), BENCH_WORKER_FILES (default 400), BENCH_JOBS (the -j values
# swept, default "1 2 4 8 16 24" plus the default -j).
#
# Rows (medians of BENCH_RUNS, seconds):
#   1. the sfx corpus: a no-op run; a no-op after touching every source (a fresh checkout: the
#      digests decide); a reconversion with the game-asset options -d LEI16@22050 -c 1;
#   2. a shard gather copied with cp -r (no times kept): --check, then a full run (both no-ops);
#   3. N one-file conversions: N processes (`convert IN -o OUT`, the single-file mode, as a build
#      system runs it unsandboxed) against one persistent worker fed N requests, and the worker's
#      time per file beyond the conversion itself (N requests of a missing file: no conversion);
#   4. convert --force over sfx to LEI16 at each -j and at the default -j (the cores, at most 8).
# Bazel is not run (not installed here); row 3 compares against plain processes, not Bazel's
# sandboxed ones, which cost more per process.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/cafconv}
RUNS=${BENCH_RUNS:-5}
N=${BENCH_WORKER_FILES:-400}
JOBS=${BENCH_JOBS:-"1 2 4 8 16 24"}
W=bench/work/build-scale
mkdir -p "$W"
[[ -d bench/work/corpus/sfx ]] || python3 bench/make-corpus.py bench/work/corpus sfx >&2
SFX=bench/work/corpus/sfx

# The median wall time of RUNS runs of "$@" (each preceded by PREPARE, not timed).
median() {
    local prepare=$1
    shift
    local times=()
    for _ in $(seq "$RUNS"); do
        eval "$prepare"
        local start end
        start=$(date +%s%N)
        "$@" >/dev/null 2>&1 || true
        end=$(date +%s%N)
        times+=("$(((end - start) / 1000))")
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.4f", a[int((NR+1)/2)]/1e6}'
}

echo "== 1. no-op after a fresh checkout (sfx: $(find "$SFX" -name '*.wav' | wc -l) files, $(du -sh "$SFX" | cut -f1))"
rm -rf "$W/out"
"$BIN" convert -q "$SFX" -o "$W/out"
noop=$(median ":" "$BIN" convert -q "$SFX" -o "$W/out")
touched=$(median "find $SFX -name '*.wav' -exec touch {} +" "$BIN" convert -q "$SFX" -o "$W/out")
rm -rf "$W/game"
"$BIN" convert -q -d LEI16@22050 -c 1 "$SFX" -o "$W/game"
game=$(median ":" "$BIN" convert -q --force -d LEI16@22050 -c 1 "$SFX" -o "$W/game")
printf '| no-op | %s |\n| no-op, every source touched | %s (%.1fx the no-op) |\n| reconvert -d LEI16@22050 -c 1 | %s (%.1fx the touched no-op) |\n' \
    "$noop" "$touched" "$(echo "$touched / $noop" | bc -l)" "$game" "$(echo "$game / $touched" | bc -l)"

echo "== 2. a shard gather copied with cp -r"
rm -rf "$W/shard1" "$W/shard2" "$W/gather"
"$BIN" convert -q "$SFX" -o "$W/shard1" --shard 1/2
"$BIN" convert -q "$SFX" -o "$W/shard2" --shard 2/2
mkdir -p "$W/gather"
cp -r "$W/shard1/." "$W/gather"
cp -r "$W/shard2/." "$W/gather"
if "$BIN" convert --check -q "$SFX" -o "$W/gather"; then check=pass; else check=FAIL; fi
converted=$("$BIN" convert --json "$SFX" -o "$W/gather" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["converted"])')
echo "| cp -r gather: --check | $check |"
echo "| cp -r gather: full run converts | $converted files |"

echo "== 3. $N one-file conversions: processes vs one persistent worker"
rm -rf "$W/one"
mkdir -p "$W/one"
mapfile -t files < <(find "$SFX" -name '*.wav' | sort | head -n "$N")
: >"$W/requests"
: >"$W/missing"
index=0
for file in "${files[@]}"; do
    printf '{"arguments":["-q","%s","-o","%s/w%d.caf"],"requestId":0}' "$file" "$W/one" "$index" >>"$W/requests"
    printf '{"arguments":["-q","%s/none%d.wav","-o","%s/n.caf"],"requestId":0}' "$W" "$index" "$W/one" >>"$W/missing"
    index=$((index + 1))
done
processes() {
    local index=0
    for file in "${files[@]}"; do
        "$BIN" convert -q "$file" -o "$W/one/p$index.caf"
        index=$((index + 1))
    done
}
per_process=$(median "rm -f $W/one/p*.caf" processes)
worker=$(median "rm -f $W/one/w*.caf" sh -c "\"$BIN\" convert --persistent_worker <\"$W/requests\"")
empty=$(median ":" sh -c "\"$BIN\" convert --persistent_worker </dev/null")
missing=$(median ":" sh -c "\"$BIN\" convert --persistent_worker <\"$W/missing\"")
printf '| %d processes | %s |\n| one worker, %d requests | %s (%.1fx faster) |\n' \
    "${#files[@]}" "$per_process" "${#files[@]}" "$worker" "$(echo "$per_process / $worker" | bc -l)"
printf '| worker overhead per request (missing-file requests, start-up subtracted) | %.3f ms |\n' \
    "$(echo "($missing - $empty) * 1000 / ${#files[@]}" | bc -l)"

echo "== 4. -j sweep: convert --force sfx to LEI16 (nproc $(nproc))"
rm -rf "$W/jobs"
"$BIN" convert -q -d LEI16 "$SFX" -o "$W/jobs"
for jobs in $JOBS default; do
    if [[ $jobs == default ]]; then flag=(); else flag=(-j "$jobs"); fi
    t=$(median ":" "$BIN" convert -q --force -d LEI16 "${flag[@]}" "$SFX" -o "$W/jobs")
    sys=$( { /usr/bin/time -f "%S" "$BIN" convert -q --force -d LEI16 "${flag[@]}" "$SFX" -o "$W/jobs" >/dev/null; } 2>&1 | tail -1)
    echo "| -j $jobs | $t | sys $sys |"
done
