#!/usr/bin/env bash
# The HTML report next to the conversion, on the sfx corpus (300 short WAVs, bench/make-corpus.py):
# `convert` alone, `convert --report`, `report` of the sources and `report --against` of the
# outputs. Each report's last stderr line says how long reading and making the page took; the
# page's share is what issue 35 asks to keep well under a second for 300 files.
#
#   bash bench/report.sh [cafconv binary] [-d format]
#   bash bench/report.sh .build/release/cafconv ima4
set -euo pipefail
binary=${1:-.build/release/cafconv}
format=${2:-}
work=${BENCH_WORK:-bench/work}
[[ -d $work/corpus/sfx ]] || python3 bench/make-corpus.py "$work/corpus" sfx >&2
src=$work/corpus/sfx
out=$(mktemp -d "${TMPDIR:-/tmp}/cafconv-report-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
args=(-q --force)
[[ -n $format ]] && args+=(-d "$format")
step() {
    local name=$1
    shift
    /usr/bin/time -f "%e %U %M" -o "$out/time" "$@" 2> "$out/err" || true
    read -r wall user peak < "$out/time"
    printf '%-28s %8s s wall %8s s user %8s KiB  %s\n' "$name" "$wall" "$user" "$peak" "$(grep -h 'files,' "$out/err" | sed 's/^.*: //')"
}
step "convert" "$binary" convert "${args[@]}" "$src" -o "$out/a"
# Not -q: the page's line (and how many files were decoded again after the run) is not quiet.
step "convert --report" sh -c '"$@" > /dev/null' - "$binary" convert "${args[@]:1}" "$src" -o "$out/b" --report "$out/run.html"
step "report (sources)" "$binary" report "$src" -o "$out/sources.html"
step "report --against" "$binary" report "$out/a" --against "$src" -o "$out/pairs.html"
ls -l "$out"/*.html | awk '{print $5, $9}' | sed "s|$out/||"
