#!/usr/bin/env bash
# Issue 34's Bazel row: N one-file conversions (cafconv_convert actions of bazel/cafconv.bzl) under
# one Bazel, through the persistent worker against one sandboxed process each (Bazel's default
# for actions without a worker on Linux), same machine, same Bazel, same build.
#
#   bash bench/bazel-worker.sh [cafconv binary]      (default: .build/release/cafconv)
#
# Environment: BENCH_RUNS (default 3; medians), BENCH_BAZEL_FILES (default 400: the sfx corpus's
# files, repeated under new names, in one folder). Needs bazel (Debian's bazel-bootstrap).
#
# Each run is `bazel clean` then `bazel build //:all` with --strategy=CafConvert=worker or
# =sandboxed; the analysis alone (`bazel build --nobuild` after a clean) is timed too and taken
# off, so the rows compare the actions. The worker's own per-request overhead is bench/build-scale.sh's.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-.build/release/cafconv}")
RUNS=${BENCH_RUNS:-3}
N=${BENCH_BAZEL_FILES:-400}
if ! command -v bazel >/dev/null; then
    echo "| Bazel rows | skipped: bazel is not installed (apt-get install bazel-bootstrap) |"
    exit 0
fi
W=$(realpath -m bench/work/bazel-worker)
mkdir -p "$W/ws/Sounds"
[[ -d bench/work/corpus/sfx ]] || python3 bench/make-corpus.py bench/work/corpus sfx >&2
if [[ ! -f $W/ws/Sounds/.complete-$N ]]; then
    rm -rf "$W/ws/Sounds"
    mkdir -p "$W/ws/Sounds"
    mapfile -t sources < <(find bench/work/corpus/sfx -name '*.wav' | sort)
    for index in $(seq 0 $((N - 1))); do
        cp "${sources[index % ${#sources[@]}]}" "$W/ws/Sounds/$(printf 's%04d.wav' "$index")"
    done
    touch "$W/ws/Sounds/.complete-$N"
fi
cat >"$W/ws/WORKSPACE" <<EOF
workspace(name = "bench")
local_repository(name = "cafconv_rules", path = "$PWD/bazel")
load("@cafconv_rules//:cafconv.bzl", "cafconv_local")
cafconv_local(name = "cafconv", binary = "$BIN")
EOF
cat >"$W/ws/BUILD.bazel" <<'EOF'
load("@cafconv_rules//:cafconv.bzl", "cafconv_folder")
cafconv_folder(name = "all", srcs = glob(["Sounds/*.wav"]), strip_prefix = "Sounds/", out_dir = "Build")
EOF
bazel_in() { (cd "$W/ws" && bazel --nohome_rc --output_user_root="$W/root" "$@"); }
trap 'bazel_in shutdown >/dev/null 2>&1 || true' EXIT

# The median of RUNS wall times of "bazel build FLAGS //:all" after a clean, in seconds.
timed_build() {
    local times=()
    for _ in $(seq "$RUNS"); do
        bazel_in clean >/dev/null 2>&1
        local start end
        start=$(date +%s%N)
        bazel_in build --experimental_worker_allow_json_protocol "$@" //:all >"$W/build.log" 2>&1 || {
            cat "$W/build.log" >&2
            return 1
        }
        end=$(date +%s%N)
        times+=("$(((end - start) / 1000000))")
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]/1000}'
}

echo "== Bazel $(bazel_in --version 2>/dev/null | awk '{print $2}'): $N one-file conversions, worker vs one sandboxed process each (nproc $(nproc), medians of $RUNS)"
bazel_in build --experimental_worker_allow_json_protocol //:all >/dev/null 2>&1 # warm the server
analysis=$(timed_build --nobuild)
worker=$(timed_build --strategy=CafConvert=worker)
grep -o '[0-9]* processes: .*' "$W/build.log" | sed 's/^/   worker build: /'
sandboxed=$(timed_build --strategy=CafConvert=sandboxed)
grep -o '[0-9]* processes: .*' "$W/build.log" | sed 's/^/   sandboxed build: /'
awk -v a="$analysis" -v w="$worker" -v s="$sandboxed" -v n="$N" 'BEGIN {
    printf "| analysis alone (clean, --nobuild) | %.3f s |\n", a
    printf "| %d actions, persistent worker | %.3f s (%.3f s beyond analysis, %.2f ms per file) |\n", n, w, w - a, (w - a) * 1000 / n
    printf "| %d actions, one sandboxed process each | %.3f s (%.3f s beyond analysis, %.2f ms per file) |\n", n, s, s - a, (s - a) * 1000 / n
    printf "| worker speed-up (beyond analysis) | %.1fx (whole builds: %.1fx) |\n", (s - a) / (w - a), s / w
}'
