#!/bin/sh
# Fuzzes a target that reads CAF bytes for SECONDS (default 60): TARGET `caf` (the CAF parser,
# the default) or `ima4` (the IMA4 codec on a CAF's packets). The seed corpus is made at run time
# from the real CAF files (cut to the 64 KiB max_len; nothing is committed). Build first:
# Fuzz/build.sh TARGET.
#
#   sh Fuzz/run-caf.sh [SECONDS] [TARGET]
#
# ASan's quarantine is off and freed memory goes back to the OS so that the RSS limit (64 MB for
# the parser, 128 MB for the codec, which holds a decoded block) measures the target, not the
# sanitizer's caches (the Swift runtime + ASan start near 50 MB).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
target=${2:-caf}
case $target in
    caf) rss=64 ;;
    ima4) rss=128 ;;
    *) echo "run-caf.sh: TARGET is caf or ima4, not $target" >&2; exit 64 ;;
esac
corpus=${CAF_CORPUS:-$root/../shared/corpus/real}
seed=$(mktemp -d "${TMPDIR:-/tmp}/$target-seed.XXXXXX")
artifacts=$(mktemp -d "${TMPDIR:-/tmp}/$target-artifacts.XXXXXX")
trap 'rm -rf "$seed"' EXIT
for file in "$corpus"/*.caf; do head -c 65536 "$file" > "$seed/$(basename "$file")"; done
echo "seed: $(ls "$seed" | wc -l) files; crashes go to $artifacts/"
ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=0:thread_local_quarantine_size_kb=0:allocator_release_to_os_interval_ms=50:malloc_context_size=2} \
    "$root/.build-fuzz/$target-fuzz" -rss_limit_mb="$rss" -max_len=65536 -max_total_time="$seconds" \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$seed"
