#!/usr/bin/env bash
# Loudness measurement: `cafconv info --loudness` (one process, -j 2) against `ffmpeg -af ebur128`
# once per file, on the 300-file sfx corpus, Samples/ and a generated 10-minute stereo file; then
# the agreement of the integrated loudness (LUFS) and true peak of the two, file by file; and the
# cost of convert --loudness against a plain conversion of the sfx corpus.
#
#   bash bench/loudness.sh            # CAFCONV_BIN=path skips the release build; BENCH_RUNS (3)
#
# Writes under bench/work/ (ignored by git): corpus/, loudness/.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
source bench/lib.sh
bench_require "apt-get install hyperfine ffmpeg" hyperfine ffmpeg python3
bench_binary
RUNS=${BENCH_RUNS:-3}
W=bench/work
L=$W/loudness
mkdir -p "$L"
python3 bench/make-corpus.py "$W/corpus" sfx >&2
long=$L/long/long-stereo-48000.wav
if [[ ! -f $long ]]; then
    mkdir -p "$L/long"
    # Ten minutes of pink noise whose level changes every 20 s (a wide loudness range).
    ffmpeg -v error -f lavfi -i "anoisesrc=color=pink:r=48000:a=0.3:d=600:s=7" \
        -af "volume='if(lt(mod(t,40),20),1,0.1)':eval=frame" -ac 2 -c:a pcm_s16le "$long"
fi

{
    echo "| corpus | files | cafconv info --loudness -j 2 | ffmpeg -af ebur128, one process per file | ratio |"
    echo "| --- | --- | --- | --- | --- |"
} >"$L/speed.md"
for corpus in "$W/corpus/sfx" Samples "$L/long"; do
    list=$L/$(basename "$corpus").files
    find "$corpus" -type f \( -name '*.wav' -o -name '*.aif*' -o -name '*.flac' -o -name '*.mp3' -o -name '*.caf' \) | sort >"$list"
    count=$(wc -l <"$list")
    hyperfine --runs "$RUNS" --warmup 1 --export-json "$L/$(basename "$corpus").json" \
        -n cafconv "$BIN info --loudness --json -j 2 $corpus > $L/cafconv-$(basename "$corpus").json" \
        -n ffmpeg "xargs -a $list -d '\n' -I{} ffmpeg -nostats -hide_banner -i {} -af ebur128=peak=true -f null - 2> /dev/null" \
        >&2
    python3 - "$L/$(basename "$corpus").json" "$(basename "$corpus")" "$count" >>"$L/speed.md" <<'PY'
import json, sys
runs = {r["command"]: r["mean"] for r in json.load(open(sys.argv[1]))["results"]}
print(f"| {sys.argv[2]} | {sys.argv[3]} | {runs['cafconv']:.3f} s | {runs['ffmpeg']:.3f} s | {runs['ffmpeg'] / runs['cafconv']:.1f}x |")
PY
    # Agreement: ffmpeg's summary per file against cafconv's JSON.
    python3 - "$L/cafconv-$(basename "$corpus").json" "$list" >"$L/agreement-$(basename "$corpus").txt" <<'PY'
import json, re, subprocess, sys
ours = {e["path"]: e.get("loudness") for e in json.load(open(sys.argv[1]))}
worst_i = worst_tp = 0.0
rows = 0
for path in open(sys.argv[2]).read().split("\n"):
    if not path:
        continue
    text = subprocess.run(["ffmpeg", "-nostats", "-hide_banner", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-"],
                          capture_output=True, text=True).stderr
    summary = text[text.rfind("Summary:"):]
    i = float(re.search(r"I:\s+(-?[\d.]+) LUFS", summary).group(1))
    tp = float(re.search(r"Peak:\s+(-?[\d.]+|-inf) dBFS", summary).group(1))
    m = ours.get(path) or {}
    mine_i, mine_tp = m.get("integratedLUFS"), m.get("truePeakDBTP")
    short = m.get("shortClip")
    rows += 1
    # ffmpeg prints one decimal; a clip shorter than 400 ms has no gated loudness there (-70.0).
    di = None if short or mine_i is None else abs(mine_i - i)
    dtp = None if mine_tp is None else abs(mine_tp - tp)
    if di is not None: worst_i = max(worst_i, di)
    if dtp is not None: worst_tp = max(worst_tp, dtp)
    print(f"{path}\tffmpeg I {i} TP {tp}\tcafconv I {mine_i} TP {mine_tp} short {short}")
print(f"# {rows} files: largest |I difference| {worst_i:.3f} LU (clips >= 400 ms), largest |true peak difference| {worst_tp:.3f} dB")
PY
    tail -1 "$L/agreement-$(basename "$corpus").txt" >&2
done
# Normalising during conversion: the sfx corpus converted plainly (the direct payload copy, and
# through the transform stage with -d LEF32) and with --loudness -18 (each file, and one gain per
# folder). CPU time beside the wall time: on a shared machine the wall time is mostly waiting.
# (hyperfine takes a name that starts with a dash for an option: none does.)
hyperfine --runs "$RUNS" --warmup 1 --export-json "$L/normalise.json" \
    -n plain "$BIN convert $W/corpus/sfx -o $L/out/plain --force -q -j 2" \
    -n "LEF32" "$BIN convert $W/corpus/sfx -o $L/out/f32 --force -q -j 2 -d LEF32" \
    -n "loudness -18" "$BIN convert $W/corpus/sfx -o $L/out/loud --force -q -j 2 --loudness -18" \
    -n "LEF32 loudness -18" "$BIN convert $W/corpus/sfx -o $L/out/f32loud --force -q -j 2 -d LEF32 --loudness -18" \
    -n "loudness -18 group folder" "$BIN convert $W/corpus/sfx -o $L/out/group --force -q -j 2 --loudness -18 --loudness-group folder" >&2
python3 - "$L/normalise.json" >>"$L/speed.md" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
runs = {r["command"]: (r["mean"], r["user"] + r["system"]) for r in results}
print()
print("| convert sfx (-j 2) | mean | vs plain | vs LEF32 | CPU (user + system) | CPU vs plain | CPU vs LEF32 |")
print("| --- | --- | --- | --- | --- | --- | --- |")
plain, f32 = runs["plain"], runs["LEF32"]
for name, (mean, cpu) in runs.items():
    print(f"| {name} | {mean:.3f} s | {mean / plain[0]:.1f}x | {mean / f32[0]:.1f}x | {cpu:.3f} s | {cpu / plain[1]:.1f}x | {cpu / f32[1]:.1f}x |")
PY
cat "$L/speed.md"
for f in "$L"/agreement-*.txt; do echo "$(basename "$f"): $(tail -1 "$f")"; done
