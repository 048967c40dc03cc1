#!/bin/sh
# Fuzzes the CAF parser for SECONDS (default 60) from a seed corpus made at run time from the
# real CAF files (cut to the 64 KiB max_len; nothing is committed). Build first: Fuzz/build.sh caf.
# ASan's quarantine is off and freed memory goes back to the OS so that the 64 MB RSS limit
# measures the parser, not the sanitizer's caches (the Swift runtime + ASan start near 50 MB).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
corpus=${CAF_CORPUS:-$root/../shared/corpus/real}
seed=$(mktemp -d "${TMPDIR:-/tmp}/caf-seed.XXXXXX")
artifacts=$(mktemp -d "${TMPDIR:-/tmp}/caf-artifacts.XXXXXX")
trap 'rm -rf "$seed"' EXIT
for file in "$corpus"/*.caf; do head -c 65536 "$file" > "$seed/$(basename "$file")"; done
echo "seed: $(ls "$seed" | wc -l) files; crashes go to $artifacts/"
ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=0:thread_local_quarantine_size_kb=0:allocator_release_to_os_interval_ms=50:malloc_context_size=2} \
    "$root/.build-fuzz/caf-fuzz" -rss_limit_mb=64 -max_len=65536 -max_total_time="$seconds" \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$seed"
