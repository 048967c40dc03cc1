#!/usr/bin/env bash
# The benchmark of this work tree against a base commit, in one run:
#
#   make bench-compare BASE=fa0d625          # = bash bench/compare.sh fa0d625
#   bash bench/compare.sh --build-only BASE  # only build BASE's binary and print its path
#
# Builds BASE's release binary as `make release` builds it (BASE's own scripts/release-flags.sh,
# in a temporary `git worktree add --detach`, removed afterwards; kept in
# .build-compare/release-SHA/ and reused by later runs), then runs bench/run.sh with
# BENCH_BASELINE_BIN set to it: every cafconv row of the run gets a "cafconv (baseline)" row
# timed in the same hyperfine call, and the report ends with a table of the ratios new / base.
# The environment of bench/run.sh applies (CAFCONV_BENCH_SKIP_HUGE=1, BENCH_RUNS...).
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."

build_only=0
if [[ ${1:-} == --build-only ]]; then
    build_only=1
    shift
fi
if [[ $# != 1 || -z $1 ]]; then
    echo "usage: bash bench/compare.sh [--build-only] BASE_COMMIT" >&2
    exit 2
fi
sha=$(git rev-parse --verify --quiet "$1^{commit}") || {
    echo "bench: '$1' is not a commit" >&2
    exit 2
}
dir=$PWD/.build-compare/release-${sha:0:12}
if [[ ! -x $dir/cafconv || ! -f $dir/.complete ]]; then
    src=$(mktemp -d "${TMPDIR:-/tmp}/bench-base.XXXXXX")
    rmdir "$src"
    trap 'git worktree remove --force "$src" 2>/dev/null || rm -rf "$src"' EXIT
    git worktree add --quiet --detach "$src" "$sha"
    if [[ -f Package.resolved ]]; then cp Package.resolved "$src/"; fi
    mkdir -p "$dir"
    echo "== building ${sha:0:12} (release) in $dir, log $dir.log" >&2
    (
        cd "$src"
        flags=$(bash scripts/release-flags.sh)
        # shellcheck disable=SC2086
        swift build $flags --scratch-path "$dir" --product cafconv
        # shellcheck disable=SC2086
        cp "$(swift build $flags --scratch-path "$dir" --show-bin-path)/cafconv" "$dir/cafconv"
    ) >"$dir.log" 2>&1 || {
        tail -20 "$dir.log" >&2
        echo "bench: the build of ${sha:0:12} failed (see $dir.log)" >&2
        exit 1
    }
    touch "$dir/.complete"
fi
if [[ $build_only == 1 ]]; then
    echo "$dir/cafconv"
    exit 0
fi
echo "== baseline: ${sha:0:12} ($dir/cafconv)" >&2
BENCH_BASELINE_BIN=$dir/cafconv BENCH_BASELINE_NAME=${sha:0:12} bash bench/run.sh
