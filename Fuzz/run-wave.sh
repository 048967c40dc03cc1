#!/bin/sh
# Runs .build-fuzz/wave-fuzz (built by Fuzz/build.sh wave) for SECONDS (default 60) on a seed corpus copied
# at run time from the real WAV/AIFF files of ../shared/corpus/real/ (never committed).
# Seeds are cut to the 64 KiB -max_len. ASan's default 256 MB quarantine and its allocation-stack
# depot alone exceed the 64 MB RSS limit, so both are turned down here.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
corpus="$root/.build-fuzz/wave-corpus"
mkdir -p "$corpus" "$root/.build-fuzz/artifacts"
real="$root/../shared/corpus/real"
if [ -d "$real" ]; then
    for file in "$real"/*; do
        case "$(head -c 12 "$file" | od -An -c | tr -d ' \n')" in
            RIFF*WAVE*|RIFX*WAVE*|RF64*WAVE*|FORM*AIF*) head -c 65536 "$file" > "$corpus/seed-$(basename "$file")" ;;
        esac
    done
fi
ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=0:thread_local_quarantine_size_kb=0:malloc_context_size=0:allocator_release_to_os_interval_ms=100} \
    "$root/.build-fuzz/wave-fuzz" -max_total_time="$seconds" -rss_limit_mb=64 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$root/.build-fuzz/artifacts/" "$corpus"
