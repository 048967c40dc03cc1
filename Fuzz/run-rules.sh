#!/bin/sh
# Fuzzes the rules-file reader (cafconv.toml) for SECONDS (default 60) from seeds written at run
# time: a full rules file, one with every value type and escape, and broken ones. Build first:
# Fuzz/build.sh rules.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
seed=$(mktemp -d "${TMPDIR:-/tmp}/rules-seed.XXXXXX")
artifacts=$(mktemp -d "${TMPDIR:-/tmp}/rules-artifacts.XXXXXX")
trap 'rm -rf "$seed"' EXIT
printf '# rules\n[defaults]\nformat = "LEI16"\nendian = "little"\n\n[[rule]]\nmatch = ["sfx/**", '"'"'ui/*.wav'"'"',\n  "music/[a-c]?*.{wav,aif}",\n]\nformat = "aac"\nbitrate = 128_000\nrate = 44100\nchannels = 2\nmix = true\ndither = "tpdf"\nstrip-metadata = false\n' > "$seed/full"
printf '[[rule]]\nmatch = "a\\u00e9\\U0001F600\\t\\n\\"\\\\b"\n"quoted key" = 1\nrate = -1\n[[rule]]\nmatch = '"'"'**/x'"'"'\nformat = "ima4@22050"\n' > "$seed/values"
printf '[rule]\nmatch = "\033]0;x\007"\nformat = 1.5\n[defaults]\n[defaults]\nkey.dotted = true\n' > "$seed/broken"
echo "seed: $(ls "$seed" | wc -l) files; crashes go to $artifacts/"
ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=0:thread_local_quarantine_size_kb=0:allocator_release_to_os_interval_ms=50:malloc_context_size=2} \
    "$root/.build-fuzz/rules-fuzz" -rss_limit_mb=96 -max_len=16384 -max_total_time="$seconds" \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$seed"
