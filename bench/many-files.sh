#!/usr/bin/env bash
# Time and peak memory of `cafconv convert -j 1` against the number of files (issue 13, item 7):
# N tiny WAV files (100 frames, 16-bit mono) in folders of 100, for each N a first run (converts
# everything) and a second run (everything up to date). Prints user seconds, wall seconds and
# peak RSS (KiB) from /usr/bin/time.
#
#   bash bench/many-files.sh [cafconv binary] [counts...]
#   bash bench/many-files.sh .build/release/cafconv 2000 5000 10000 20000
set -euo pipefail
binary=${1:-.build/release/cafconv}
shift || true
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(2000 5000 10000 20000)
work=$(mktemp -d "${TMPDIR:-/tmp}/cafconv-many.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf '%6s  %-6s %8s %8s %10s\n' files run user_s wall_s peak_kib
for count in "${counts[@]}"; do
    rm -rf "$work/in" "$work/out"
    python3 - "$work/in" "$count" <<'PY'
import os, struct, sys
root, count = sys.argv[1], int(sys.argv[2])
data = b"".join(struct.pack("<h", (i * 997) % 20000 - 10000) for i in range(100))
fmt = struct.pack("<HHIIHH", 1, 1, 44100, 88200, 2, 16)
wave = b"RIFF" + struct.pack("<I", 4 + 24 + 8 + len(data)) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt \
    + b"data" + struct.pack("<I", len(data)) + data
for index in range(count):
    folder = os.path.join(root, "d%03d" % (index // 100))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "f%05d.wav" % index), "wb") as handle:
        handle.write(wave)
PY
    for run in first second; do
        /usr/bin/time -f "%U %e %M" -o "$work/time" "$binary" convert -q -j 1 "$work/in" -o "$work/out"
        read -r user wall peak < "$work/time"
        printf '%6s  %-6s %8s %8s %10s\n' "$count" "$run" "$user" "$wall" "$peak"
    done
done
