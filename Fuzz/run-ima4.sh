#!/bin/sh
# Fuzzes the IMA4 codec for SECONDS (default 60) from a seed corpus made at run time from the real
# CAF files (cut to the 64 KiB max_len; nothing is committed). Build first: Fuzz/build.sh ima4.
# ASan settings as in run-caf.sh.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
corpus=${CAF_CORPUS:-$root/../shared/corpus/real}
seed=$(mktemp -d "${TMPDIR:-/tmp}/ima4-seed.XXXXXX")
artifacts=$(mktemp -d "${TMPDIR:-/tmp}/ima4-artifacts.XXXXXX")
trap 'rm -rf "$seed"' EXIT
for file in "$corpus"/*.caf; do head -c 65536 "$file" > "$seed/$(basename "$file")"; done
echo "seed: $(ls "$seed" | wc -l) files; crashes go to $artifacts/"
ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=0:thread_local_quarantine_size_kb=0:allocator_release_to_os_interval_ms=50:malloc_context_size=2} \
    "$root/.build-fuzz/ima4-fuzz" -rss_limit_mb=128 -max_len=65536 -max_total_time="$seconds" \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$seed"
