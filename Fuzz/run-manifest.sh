#!/bin/sh
# Fuzzes the manifest parser for SECONDS (default 60) from a seed corpus written at run time:
# a sealed manifest, a version 1 one, one with hostile output paths (NUL, '..', absolute), a
# damaged one and a foreign file. Build first: Fuzz/build.sh manifest.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
seed=$(mktemp -d "${TMPDIR:-/tmp}/manifest-seed.XXXXXX")
artifacts=$(mktemp -d "${TMPDIR:-/tmp}/manifest-artifacts.XXXXXX")
trap 'rm -rf "$seed"' EXIT
record='a/b.caf\t/src/a/b.wav\t644\t1795475667152823038\trules=1;d=source;endian=default\t4696\t1795475667944667519\tLEI16\tLEI16\t300\n'
printf "cafconv-manifest 2\n$record" > "$seed/body"
printf "cafconv-manifest 1\n$record" > "$seed/version1"
printf "cafconv-manifest 2\n$record../x.caf\t/s\t1\t1\tv\t1\t1\tA\tB\t1\n/etc/x.caf\t/s\t1\t1\tv\t1\t1\tA\tB\t1\nk.wav\000.caf\t/s\t1\t1\tv\t1\t1\tA\tB\t1\nend 0000000000000000\n" > "$seed/hostile"
printf "cafconv-manifest 2\nd\\\\tir/x\\\\n.caf\t/s\t1\t1\tv\t1\t1\tA\tB\t1\nend 0123456789abcdef\n" > "$seed/damaged"
head -c 4096 /dev/urandom > "$seed/foreign"
echo "seed: $(ls "$seed" | wc -l) files; crashes go to $artifacts/"
ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=0:thread_local_quarantine_size_kb=0:allocator_release_to_os_interval_ms=50:malloc_context_size=2} \
    "$root/.build-fuzz/manifest-fuzz" -rss_limit_mb=64 -max_len=65536 -max_total_time="$seconds" \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$seed"
