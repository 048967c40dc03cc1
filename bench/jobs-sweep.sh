#!/usr/bin/env bash
# Issue 34's -j study: how `convert` scales with jobs when every job writes into one output folder.
#
#   bash bench/jobs-sweep.sh [cafconv binary]        (default: .build/release/cafconv)
#
# Environment: BENCH_RUNS (default 5; the median is shown), BENCH_JOBS (default
# "1 2 4 8 12 16 24 32"; the default -j, the cores at most 8, is always added and compared
# with the best -j of the run), BENCH_FILES (default 400),
# BENCH_STRACE=0 (skip the system-call counts).
#
# The corpus: BENCH_FILES WAVs in ONE folder (the sfx corpus's files, repeated under new names),
# converted with --force to LEI16 into one output folder, so every job creates, links, swaps and
# unlinks in the same directory. Columns: wall (median, s), user and system CPU (s) and minor page faults per file of the
# median run. With strace installed, system calls per file at -j 1 and at the largest -j, and
# the directory operations among them. A machine with more cores than 2 is where the table says
# something about contention: please rerun it there.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/cafconv}
RUNS=${BENCH_RUNS:-5}
JOBS=${BENCH_JOBS:-"1 2 4 8 12 16 24 32"}
FILES=${BENCH_FILES:-400}
W=bench/work/jobs-sweep
mkdir -p "$W"
[[ -d bench/work/corpus/sfx ]] || python3 bench/make-corpus.py bench/work/corpus sfx >&2
FLAT=$W/flat$FILES
if [[ ! -f $FLAT/.complete ]]; then
    rm -rf "$FLAT"
    mkdir -p "$FLAT"
    mapfile -t sources < <(find bench/work/corpus/sfx -name '*.wav' | sort)
    for index in $(seq 0 $((FILES - 1))); do
        cp "${sources[index % ${#sources[@]}]}" "$FLAT/$(printf 'f%04d.wav' "$index")"
    done
    touch "$FLAT/.complete"
fi
"$BIN" convert -q -d LEI16 "$FLAT" -o "$W/out"

# One row: the median run's wall, user, sys and faults per file (python3 reads the child's rusage).
sweep_row() {
    local label=$1
    shift
    python3 - "$RUNS" "$FILES" "$label" "$@" <<'EOF'
import os, resource, subprocess, sys, time
runs, files, label, command = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
rows = []
for _ in range(runs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    rows.append((wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime, after.ru_minflt - before.ru_minflt))
rows.sort()
wall, user, system, faults = rows[len(rows) // 2]
print(f"| {label} | {wall:.3f} | {user:.3f} | {system:.3f} | {faults / files:.1f} |")
EOF
}

echo "== -j sweep: convert --force -d LEI16, $FILES files in one folder (nproc $(nproc), medians of $RUNS)"
echo "| run | wall s | user s | sys s | faults/file |"
echo "| --- | --- | --- | --- | --- |"
for jobs in $JOBS default; do
    if [[ $jobs == default ]]; then flag=(); else flag=(-j "$jobs"); fi
    sweep_row "-j $jobs" "$BIN" convert -q --force -d LEI16 "${flag[@]}" "$FLAT" -o "$W/out"
done | tee "$W/rows.txt"
# The default (the cores, at most 8: ConversionOptions.defaultJobsCap) against the best -j of
# this run; the issue asks for the default within noise of the best.
awk -F'|' -v cores="$(nproc)" '
    { label = $2; sub(/^ +/, "", label); sub(/ +$/, "", label); wall = $3 + 0 }
    label == "-j default" { fallback = wall; next }
    best == "" || wall < bestWall { best = label; bestWall = wall }
    END {
        printf "default (-j %d of %d cores): %.3f s; best %s: %.3f s; default/best %.2f\n",
            (cores < 8 ? cores : 8), cores, fallback, best, bestWall, fallback / bestWall
    }' "$W/rows.txt"

if [[ ${BENCH_STRACE:-1} == 1 ]] && command -v strace >/dev/null; then
    last=$(echo "$JOBS" | awk '{print $NF}')
    echo "== system calls per file (strace -f -c): new outputs at -j 1, replaced ones at -j 1 and -j $last"
    echo "| run | all | openat | linkat | renameat2 | unlinkat | brk+mmap+munmap+madvise | futex |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
    # "new": into an empty folder (each output linked straight to its name); "replace": --force
    # over the outputs of the run before (each swapped with the old file, which is then deleted).
    for run in "new 1" "replace 1" "replace $last"; do
        read -r mode jobs <<<"$run"
        if [[ $mode == new ]]; then rm -rf "$W/out"; force=(); else force=(--force); fi
        strace -f -c -o "$W/strace.txt" "$BIN" convert -q "${force[@]}" -d LEI16 -j "$jobs" "$FLAT" -o "$W/out" >/dev/null 2>&1 || true
            awk -v files="$FILES" -v label="$mode -j $jobs" '
                $NF ~ /^[a-z_0-9]+$/ && $1 ~ /^[0-9.]+$/ {
                    calls = $4
                    count[$NF] = calls
                    if ($NF != "total") all += calls
                }
                END {
                    memory = count["brk"] + count["mmap"] + count["munmap"] + count["madvise"]
                    printf "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", label, all / files,
                        count["openat"] / files, count["linkat"] / files, count["renameat2"] / files,
                        count["unlinkat"] / files, memory / files, count["futex"] / files
                }' "$W/strace.txt"
    done
fi
