#!/usr/bin/env bash
# Opus benchmark (issue 31), on the music corpus resampled once to 48 kHz by sox (so neither tool
# resamples and the SNRs compare the encoders alone):
#   encode:  cafconv `convert -d opus -b 96000 -j 2` (libopus, proof on) against
#            `ffmpeg -c:a libopus -b:a 96k -vbr constrained` to Ogg Opus, one process per file, `xargs -P 2`;
#            (constrained VBR on both sides: cafconv keeps -b honest with libopus's constrained VBR, so
#            ffmpeg is run in the same mode; its default, unconstrained VBR, spends other bits)
#            SNR of each tool's output against the source (ffmpeg's libopus decoding of both,
#            pre-skip dropped, resampled back by the same soxr call), equal within 0.1 dB.
#   remux:   the Ogg Opus files ffmpeg made moved into CAF (`convert -d opus`, packets moved,
#            proof by packets read back), against re-encoding them (`--reencode`) and against
#            `ffmpeg -c copy` into Ogg.
#   lengths: every output's frame count against the source's (exact).
#
#   bash bench/opus.sh            (BENCH_RUNS, default 3; BIN: a cafconv binary to use)
# Writes under bench/work/: corpus/ (shared with run.sh), out/opus/, results/opus/.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
source bench/lib.sh
bench_require "apt-get install hyperfine ffmpeg sox python3-numpy" hyperfine ffmpeg sox python3
W=bench/work
RUNS=${BENCH_RUNS:-3}
R=$W/results/opus
rm -rf "$R" "$W/out/opus"
mkdir -p "$R" "$W/out/opus"

if [[ -z ${BIN:-} ]]; then
    echo "== building cafconv (release)" >&2
    flags=$(bash scripts/release-flags.sh)
    # shellcheck disable=SC2086
    swift build $flags --product cafconv
    # shellcheck disable=SC2086
    BIN="$(swift build $flags --show-bin-path)/cafconv"
fi

python3 bench/make-corpus.py "$W/corpus" music
src=$W/corpus/music48
if [[ ! -d $src ]]; then
    while IFS= read -r wav; do
        rel=${wav#"$W/corpus/music/"}
        mkdir -p "$src/$(dirname "$rel")"
        sox "$wav" -r 48000 "$src/$rel"
    done < <(find "$W/corpus/music" -name '*.wav')
fi
out=$W/out/opus
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "nproc: $(nproc), load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "cafconv: $(git rev-parse --short HEAD), libopus $(dpkg-query -W -f '${Version}' libopus0 2>/dev/null || echo '?')"
    echo "ffmpeg: $(ffmpeg -version | head -1)"
    echo "corpus: $(find "$src" -name '*.wav' | wc -l) files, $(du -sb "$src" | cut -f1) bytes"
} >"$R/machine.txt"

# One ffmpeg per file, two at a time: $1 the file list's root, $2 the output root, $3 the
# extension read, $4... ffmpeg's output options.
peer() {
    local from=$1 to=$2 ext=$3
    shift 3
    (cd "$from" && find . -name "*.$ext" -print0 | TO=$to EXT=$ext xargs -0 -P 2 -n 1 bash -c '
        target="$TO/${1%.$EXT}.opus"
        mkdir -p "$(dirname "$target")"
        ffmpeg -nostdin -v error -y -i "$1" '"$*"' "$target"' _)
}
export -f peer

enc_caf="$BIN convert $src -o $out/cafconv -d opus -b 96000 -j 2 --force -q"
enc_ffmpeg="bash -c 'peer $src $PWD/$out/ffmpeg wav -c:a libopus -b:a 96k -vbr constrained'"

echo "== encoding" >&2
hyperfine --shell bash --warmup 0 --runs "$RUNS" --export-json "$R/encode.json" \
    -n "cafconv -d opus -b 96000 (1 process, -j 2)" --prepare "rm -rf $out/cafconv" "$enc_caf" \
    -n "ffmpeg -c:a libopus -b:a 96k -vbr constrained to Ogg (xargs -P 2)" --prepare "rm -rf $out/ffmpeg" "$enc_ffmpeg"
rm -rf "$out/cafconv" "$out/ffmpeg"
$enc_caf --json >"$R/encode-cafconv.json"
bash -c "peer $src $PWD/$out/ffmpeg wav -c:a libopus -b:a 96k -vbr constrained"

echo "== remux: Ogg Opus to CAF" >&2
ogg=$out/ffmpeg
hyperfine --shell bash --warmup 0 --runs "$RUNS" --export-json "$R/remux.json" \
    -n "cafconv -d opus (packets moved, -j 2)" --prepare "rm -rf $out/moved" \
    "$BIN convert $ogg -o $out/moved -d opus -j 2 --force -q" \
    -n "cafconv -d opus --reencode (-j 2)" --prepare "rm -rf $out/reencoded" \
    "$BIN convert $ogg -o $out/reencoded -d opus --reencode -j 2 --force -q" \
    -n "ffmpeg -c copy to Ogg (xargs -P 2)" --prepare "rm -rf $out/copied" \
    "bash -c 'peer $PWD/$ogg $PWD/$out/copied opus -c copy'"
rm -rf "$out/moved"
$BIN convert "$ogg" -o "$out/moved" -d opus -j 2 --force -q --json >"$R/remux-cafconv.json"

echo "== SNR and lengths" >&2
python3 - "$src" "$out" "$R" <<'PY'
import os, subprocess, sys, math
import numpy as np
src, out, r = sys.argv[1:4]

def pcm(path):
    # libopus through ffmpeg (-c:a libopus), floats; ffmpeg applies an Ogg's pre-skip and end
    # trimming but not a CAF's pakt, which is applied here.
    cmd = ["ffmpeg", "-nostdin", "-v", "error"]
    if not path.endswith(".wav"):
        cmd += ["-c:a", "libopus"]
    cmd += ["-i", path, "-f", "f32le", "-ac", "2", "-"]
    return np.frombuffer(subprocess.run(cmd, check=True, capture_output=True).stdout, dtype=np.float32).reshape(-1, 2)

def pakt(caf):
    with open(caf, "rb") as f:
        b = f.read(1 << 16)
    at = b.index(b"pakt") + 12
    return int.from_bytes(b[at + 8:at + 16], "big"), int.from_bytes(b[at + 16:at + 20], "big")

def snr(ref, decoded):
    n = min(len(ref), len(decoded))
    e = np.sum((ref[:n].astype(np.float64) - decoded[:n]) ** 2)
    return 10 * math.log10(np.sum(ref[:n].astype(np.float64) ** 2) / e) if e > 0 else float("inf")

rows = []
for dirpath, _, names in os.walk(src):
    for name in sorted(names):
        if not name.endswith(".wav"):
            continue
        wav = os.path.join(dirpath, name)
        rel = os.path.relpath(wav, src)[:-4]
        ref = pcm(wav)
        caf = os.path.join(out, "cafconv", rel + ".caf")
        valid, priming = pakt(caf)
        moved_valid, _ = pakt(os.path.join(out, "moved", rel + ".caf"))
        ogg = pcm(os.path.join(out, "ffmpeg", rel + ".opus"))
        rows.append((rel, len(ref), valid, len(ogg), moved_valid, snr(ref, pcm(caf)[priming:priming + valid]), snr(ref, ogg)))
with open(os.path.join(r, "quality.tsv"), "w") as f:
    f.write("file\tsource frames\tcafconv valid\tffmpeg ogg frames\tmoved valid\tcafconv SNR dB\tffmpeg SNR dB\n")
    for row in rows:
        f.write("%s\t%d\t%d\t%d\t%d\t%.2f\t%.2f\n" % row)
PY

python3 - "$R" <<'PY'
import json, sys, os
r = sys.argv[1]
print(open(os.path.join(r, "machine.txt")).read())
for name, title in (("encode.json", "music corpus to Opus 96 kb/s"), ("remux.json", "Ogg Opus to CAF")):
    t = json.load(open(os.path.join(r, name)))["results"]
    print(f"| {title} | mean s | ± | user CPU s | ratio to cafconv (wall) | ratio (CPU) |")
    print("|---|---|---|---|---|---|")
    for x in t:
        cpu = lambda y: y['user'] + y['system']
        print(f"| {x['command']} | {x['mean']:.2f} | {(x['stddev'] or 0):.2f} | {x['user']:.2f} | {x['mean'] / t[0]['mean']:.2f} | {cpu(x) / cpu(t[0]):.2f} |")
    print()
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(r, "quality.tsv"))][1:]
exact = all(int(x[1]) == int(x[2]) == int(x[3]) == int(x[4]) for x in rows)
worst = max(abs(float(x[5]) - float(x[6])) for x in rows) if rows else 0
print(f"frame counts: cafconv's, ffmpeg's Ogg and the moved CAF's valid frames all equal the source's: {exact}")
print(f"largest SNR difference cafconv vs ffmpeg (same libopus, same bit rate): {worst:.2f} dB")
print()
print(open(os.path.join(r, "quality.tsv")).read())
PY
