#!/usr/bin/env bash
# Peak memory of resampling by channel count: 48000 Hz 16-bit sources of 1, 2, 8, 64 and 256
# channels (LENGTH seconds each, default 4; sox makes them) to `-d LEI16@22050`, one file per
# process, peak RSS from /usr/bin/time -v. The README's memory figures come from here.
#
#   bash bench/memory-channels.sh                 # builds the release binary
#   CAFCONV_BIN=.build/debug/cafconv bash bench/memory-channels.sh
#   CHANNELS="1 256" LENGTH=20 bash bench/memory-channels.sh
#
# Prints one line per channel count: channels, seconds, source MB, peak RSS MB.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."

# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_require "apt-get install sox time" sox /usr/bin/time

bench_binary
LENGTH=${LENGTH:-4}
W=bench/work/memory
rm -rf "$W"
mkdir -p "$W"

printf '%-9s %-8s %-10s %s\n' channels seconds source-MB peak-RSS-MB
for channels in ${CHANNELS:-1 2 8 64 256}; do
    src=$W/src-$channels.wav
    sox -n -r 48000 -b 16 -c "$channels" "$src" synth "$LENGTH" sine 440 vol 0.5
    rm -f "$W/out-$channels.caf"
    /usr/bin/time -v "$BIN" convert -q "$src" -o "$W/out-$channels.caf" -d LEI16@22050 2>"$W/time-$channels.txt" || {
        cat "$W/time-$channels.txt" >&2
        exit 1
    }
    kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$W/time-$channels.txt")
    bytes=$(stat -c %s "$src")
    awk -v c="$channels" -v s="$LENGTH" -v b="$bytes" -v k="$kb" \
        'BEGIN { printf "%-9d %-8s %-10.1f %.1f\n", c, s, b / 1e6, k * 1024 / 1e6 }'
done
