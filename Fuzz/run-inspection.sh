#!/bin/sh
# Fuzzes `cafconv info` (the Inspection module: readers, text and JSON rendering) for SECONDS
# (default 60). Seeds, made at run time and never committed: the real CAF, WAV and AIFF files of
# ../shared/corpus/real and Samples/ cut to the 64 KiB max_len, and an RF64 and an AIFF-C written
# by ffmpeg when it is installed. Build first: Fuzz/build.sh inspection.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
seed=$(mktemp -d "${TMPDIR:-/tmp}/inspection-seed.XXXXXX")
artifacts=$(mktemp -d "${TMPDIR:-/tmp}/inspection-artifacts.XXXXXX")
trap 'rm -rf "$seed"' EXIT
for file in "$root"/../shared/corpus/real/* "$root"/Samples/*/*; do
    case $file in
        *.caf | *.wav | *.aif | *.aiff | *.aifc) head -c 65536 "$file" > "$seed/$(basename "$file")" ;;
    esac
done
if command -v ffmpeg > /dev/null; then
    ffmpeg -loglevel error -f lavfi -i sine=duration=0.05 -rf64 always "$seed/rf64.wav" || true
    ffmpeg -loglevel error -f lavfi -i sine=duration=0.05 -c:a pcm_s16be -f aiff "$seed/aifc.aif" || true
fi
echo "seed: $(ls "$seed" | wc -l) files; crashes go to $artifacts/"
ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=0:thread_local_quarantine_size_kb=0:allocator_release_to_os_interval_ms=50:malloc_context_size=2} \
    "$root/.build-fuzz/inspection-fuzz" -rss_limit_mb=96 -max_len=65536 -max_total_time="$seconds" \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$seed"
