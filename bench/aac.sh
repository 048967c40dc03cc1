#!/usr/bin/env bash
# AAC benchmark: the music corpus to AAC at 128 kb/s stereo.
#   cafconv: one process, `convert -d aac -b 128000 -j 2` (AAC-LC in CAF, proven after writing)
#   ffmpeg:  `ffmpeg -c:a aac -b:a 128k` to .m4a, one process per file, `xargs -P 2`
# Then: peak RSS of each, whether ffmpeg's decoding of each tool's files has the source's
# length, the SNR cafconv's proof measured, and the start-up of a PCM conversion against main's
# binary (built from `git archive main`, same run).
#
#   bash bench/aac.sh            (BENCH_RUNS, default 3; BIN: a cafconv binary to use)
# Writes under bench/work/: corpus/ (shared with run.sh), out/aac/, results/aac/.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
W=bench/work
RUNS=${BENCH_RUNS:-3}
R=$W/results/aac
rm -rf "$R" "$W/out/aac"
mkdir -p "$R" "$W/out/aac"

flags=$(bash scripts/release-flags.sh)
if [[ -z ${BIN:-} ]]; then
    echo "== building cafconv (release)" >&2
    # shellcheck disable=SC2086
    swift build $flags --product cafconv
    # shellcheck disable=SC2086
    BIN="$(swift build $flags --show-bin-path)/cafconv"
fi
if [[ -z ${MAIN_BIN:-} ]]; then
    echo "== building main's cafconv (release) for the start-up comparison" >&2
    rm -rf "$W/main-src"
    mkdir -p "$W/main-src"
    git archive main | tar -x -C "$W/main-src"
    # shellcheck disable=SC2086
    (cd "$W/main-src" && swift build $flags --product cafconv >/dev/null)
    # shellcheck disable=SC2086
    MAIN_BIN="$(cd "$W/main-src" && swift build $flags --show-bin-path)/cafconv"
fi

python3 bench/make-corpus.py "$W/corpus" music tiny
src=$W/corpus/music
out=$W/out/aac
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "nproc: $(nproc), load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "cafconv: $(git rev-parse --short HEAD), libavcodec $(dpkg-query -W -f '${Version}' libavcodec59 2>/dev/null || echo '?')"
    echo "ffmpeg: $(ffmpeg -version | head -1)"
    echo "corpus: $(find "$src" -name '*.wav' | wc -l) files, $(du -sb "$src" | cut -f1) bytes"
} >"$R/machine.txt"

ffmpeg_cmd="bash bench/aac-ffmpeg.sh $src $PWD/$out/ffmpeg"
caf_cmd="$BIN convert $src -o $out/cafconv -d aac -b 128000 -j 2 --force -q"

echo "== timing" >&2
hyperfine --warmup 0 --runs "$RUNS" --export-json "$R/timing.json" \
    -n "cafconv -d aac (1 process, -j 2)" --prepare "rm -rf $out/cafconv" "$caf_cmd" \
    -n "ffmpeg -c:a aac to .m4a (xargs -P 2)" --prepare "rm -rf $out/ffmpeg" "$ffmpeg_cmd"

echo "== peak RSS (largest single process)" >&2
rm -rf "$out/cafconv" "$out/ffmpeg"
/usr/bin/time -f '%M' -o "$R/rss-cafconv" $caf_cmd --json >"$R/cafconv.json"
/usr/bin/time -f '%M' -o "$R/rss-ffmpeg" $ffmpeg_cmd

echo "== lengths: ffmpeg's decoding of each output against the source" >&2
printf 'file\tsource\tcafconv-caf (ffmpeg)\tffmpeg-m4a (ffmpeg)\tcafconv proof\n' >"$R/lengths.tsv"
frames() { ffmpeg -nostdin -v error -i "$1" -f s16le -ac 1 - | wc -c | awk '{ print $1 / 2 }'; }
while IFS= read -r wav; do
    rel=${wav#"$src"/}
    base=${rel%.wav}
    printf '%s\t%s\t%s\t%s\t%s\n' "$rel" "$(frames "$wav")" "$(frames "$out/cafconv/$base.caf")" \
        "$(frames "$out/ffmpeg/$base.m4a")" \
        "$(python3 -c "import json,sys; f=[f for f in json.load(open('$R/cafconv.json'))['files'] if f['input'].endswith('$rel')][0]; print(f['frames'], 'SNR', f['proof']['snr'], 'lag', f['proof']['peakLag'])")" \
        >>"$R/lengths.tsv"
done < <(find "$src" -name '*.wav' | sort)

echo "== start-up of a PCM conversion: this branch against main" >&2
tiny=$W/corpus/tiny/tiny-mono-16bit-44100.wav
mkdir -p "$out/tiny"
hyperfine -N --warmup 5 --runs 100 --export-json "$R/startup.json" \
    -n "cafconv (this branch)" "$BIN convert $tiny -o $out/tiny/branch.caf --force -q" \
    -n "cafconv (main)" "$MAIN_BIN convert $tiny -o $out/tiny/main.caf --force -q"

python3 - "$R" <<'PY'
import json, sys, os
r = sys.argv[1]
t = json.load(open(os.path.join(r, "timing.json")))["results"]
s = json.load(open(os.path.join(r, "startup.json")))["results"]
print(open(os.path.join(r, "machine.txt")).read())
print("| music corpus to AAC 128 kb/s stereo | mean s | ± | ratio to cafconv |")
print("|---|---|---|---|")
for x in t:
    print(f"| {x['command']} | {x['mean']:.2f} | {(x['stddev'] or 0):.2f} | {x['mean'] / t[0]['mean']:.2f} |")
print()
print(f"peak RSS: cafconv {int(open(os.path.join(r,'rss-cafconv')).read().split()[-1]) / 1024:.1f} MiB (one process, all files); "
      f"ffmpeg {int(open(os.path.join(r,'rss-ffmpeg')).read().split()[-1]) / 1024:.1f} MiB (largest single process)")
print()
print("| PCM start-up (tiny file) | mean ms | ± | ratio to main |")
print("|---|---|---|---|")
for x in s:
    print(f"| {x['command']} | {x['mean'] * 1000:.2f} | {(x['stddev'] or 0) * 1000:.2f} | {x['mean'] / s[1]['mean']:.3f} |")
print()
print("lengths (frames; ffmpeg decodes every packet of a CAF, ignoring pakt priming and remainder):")
print(open(os.path.join(r, "lengths.tsv")).read())
PY
