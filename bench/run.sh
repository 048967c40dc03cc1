#!/usr/bin/env bash
# Whole-process benchmark: cafconv against sndfile-convert, ffmpeg and the `cp -r` floor.
#
#   bash bench/run.sh                        # sfx, music and huge (about 2.5 GB of corpus)
#   CAFCONV_BENCH_SKIP_HUGE=1 bash bench/run.sh
#
# Environment: BENCH_CORPORA (default "sfx music huge"), BENCH_RUNS (default 5),
# BENCH_STARTUP_RUNS (default 100), CAFCONV_BENCH_SKIP_HUGE=1 (drop the 2 GiB file),
# CAFCONV_BENCH_SKIP_IMA4=1 (drop the IMA4 encoder comparison, bench/ima4-quality.py),
# CAFCONV_BENCH_SKIP_RESAMPLE=1 (drop the rate/channel comparison, bench/resample.sh),
# CAFCONV_BENCH_SKIP_AAC=1 (drop the AAC comparison, bench/aac.sh),
# CAFCONV_BENCH_SKIP_OPUS=1 (drop the Opus encode and remux comparison, bench/opus.sh),
# CAFCONV_BENCH_SKIP_M4A=1 (drop the M4A move comparison, bench/m4a-remux.sh),
# CAFCONV_BENCH_SKIP_BUILD_SCALE=1 (drop issue 34's rows, bench/build-scale.sh),
# CAFCONV_BENCH_SKIP_BAZEL=1 (drop the Bazel worker row, bench/bazel-worker.sh),
# CAFCONV_BENCH_SKIP_LOUDNESS=1 (drop issue 33's rows, bench/loudness.sh).
# Everything it writes goes under bench/work/ (ignored by git): corpus/, out/, results/.
# Ends with the check of the outputs (bench/check.py) and the Markdown table (bench/report.py).
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."

W=bench/work
RUNS=${BENCH_RUNS:-5}
STARTUP_RUNS=${BENCH_STARTUP_RUNS:-100}
CORPORA=${BENCH_CORPORA:-"sfx music huge"}
if [[ ${CAFCONV_BENCH_SKIP_HUGE:-0} == 1 ]]; then
    CORPORA=$(echo "$CORPORA" | tr ' ' '\n' | grep -vx huge | tr '\n' ' ')
fi

for tool in hyperfine sndfile-convert ffmpeg python3 /usr/bin/time; do
    command -v "$tool" >/dev/null || {
        echo "bench: $tool is missing (apt-get install hyperfine sndfile-programs ffmpeg time)" >&2
        exit 1
    }
done

# The binary `make release` and `make install` build: optimised, Swift runtime linked statically.
echo "== building cafconv (release, static Swift runtime)" >&2
flags=$(bash scripts/release-flags.sh)
# shellcheck disable=SC2086
swift build $flags --product cafconv
# shellcheck disable=SC2086
BIN="$(swift build $flags --show-bin-path)/cafconv"

echo "== corpus" >&2
# shellcheck disable=SC2086
python3 bench/make-corpus.py "$W/corpus" $CORPORA tiny

R=$W/results
rm -rf "$R" "$W/out"
mkdir -p "$R" "$W/out"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "nproc: $(nproc)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "ram: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
    echo "load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "cafconv: $("$BIN" --version 2>/dev/null || echo unknown), $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "libsndfile: $(dpkg-query -W -f '${Version}' libsndfile1 2>/dev/null || echo unknown)"
    echo "ffmpeg: $(ffmpeg -version | head -1)"
    echo "hyperfine: $(hyperfine --version)"
} >"$R/machine.txt"

# BENCH_BASELINE_BIN=/path/to/another/cafconv (`make bench-compare BASE=COMMIT` builds one) adds
# a "cafconv (baseline)" row beside every cafconv row, timed in the same hyperfine call, and the
# report ends with the ratios new / base.
BASELINE=${BENCH_BASELINE_BIN:-}
if [[ -n $BASELINE ]]; then
    [[ -x $BASELINE ]] || { echo "bench: BENCH_BASELINE_BIN=$BASELINE is not an executable" >&2; exit 1; }
    echo "baseline: $("$BASELINE" --version 2>/dev/null || echo unknown), ${BENCH_BASELINE_NAME:-$BASELINE}" >>"$R/machine.txt"
fi

# name | output folder | command (SRC, OUT and LIST are substituted)
commands() {
    local corpus=$1
    echo "cafconv -j 2|cafconv|$BIN convert SRC -o OUT --force -q -j 2"
    if [[ -n $BASELINE ]]; then
        echo "cafconv (baseline) -j 2|baseline|$BASELINE convert SRC -o OUT --force -q -j 2"
    fi
    if [[ $corpus != huge ]]; then
        echo "cafconv -j 1|cafconv-j1|$BIN convert SRC -o OUT --force -q -j 1"
        if [[ -n $BASELINE ]]; then
            echo "cafconv (baseline) -j 1|baseline-j1|$BASELINE convert SRC -o OUT --force -q -j 1"
        fi
    fi
    echo "sndfile-convert loop|sndfile-loop|bash bench/peers.sh sndfile loop SRC OUT LIST"
    if [[ $corpus != huge ]]; then
        echo "sndfile-convert xargs -P 2|sndfile-xargs|bash bench/peers.sh sndfile xargs SRC OUT LIST"
    fi
    echo "ffmpeg loop|ffmpeg-loop|bash bench/peers.sh ffmpeg loop SRC OUT LIST"
    if [[ $corpus != huge ]]; then
        echo "ffmpeg xargs -P 2|ffmpeg-xargs|bash bench/peers.sh ffmpeg xargs SRC OUT LIST"
    fi
    echo "cp -r|cp|cp -r SRC OUT"
}

echo "== start-up: one tiny file per process" >&2
tiny=$W/corpus/tiny/tiny-mono-16bit-44100.wav
t=$W/out/tiny
mkdir -p "$t"
# Start-up first, before the corpora write gigabytes: a process this short feels the writeback
# they leave behind. `sync` for what the corpus generation left dirty.
sync
baseline=()
if [[ -n $BASELINE ]]; then
    baseline=(-n "cafconv (baseline)" "$BASELINE convert $tiny -o $t/baseline.caf --force -q")
fi
hyperfine -N --warmup 5 --runs "$STARTUP_RUNS" --export-json "$R/tiny.json" \
    -n "cafconv" "$BIN convert $tiny -o $t/cafconv.caf --force -q" \
    "${baseline[@]}" \
    -n "sndfile-convert" "sndfile-convert -endian=little -pcm16 $tiny $t/sndfile.caf" \
    -n "ffmpeg" "ffmpeg -nostdin -v error -y -i $tiny -c:a pcm_s16le $t/ffmpeg.caf" \
    -n "cp" "cp $tiny $t/cp.wav"
echo "$(stat -c %s "$tiny") 1" >"$R/tiny.size"

# Per-file start-up as a build system pays it: 300 copies of the tiny file, one process each (a
# bash loop, the same for every tool), outputs replaced each run. cafconv keeps a manifest in the
# output folder; --force makes every run convert.
echo "== start-up: 300 files, one process each" >&2
many=$W/corpus/tiny300
rm -rf "$many" && mkdir -p "$many"
for i in $(seq -w 1 300); do cp "$tiny" "$many/t$i.wav"; done
baseline=()
if [[ -n $BASELINE ]]; then
    baseline=(-n "cafconv (baseline)" "bash bench/per-file.sh cafconv $BASELINE $many $t/many-baseline")
fi
hyperfine --warmup 1 --runs "${BENCH_PERFILE_RUNS:-5}" --export-json "$R/perfile.json" \
    -n "cafconv" "bash bench/per-file.sh cafconv $BIN $many $t/many-cafconv" \
    "${baseline[@]}" \
    -n "sndfile-convert" "bash bench/per-file.sh sndfile-convert - $many $t/many-sndfile" \
    -n "cp" "bash bench/per-file.sh cp - $many $t/many-cp"

for corpus in $CORPORA; do
    src=$W/corpus/$corpus
    list=$W/corpus/$corpus.list
    out=$W/out/$corpus
    mkdir -p "$out"
    echo "$(find "$src" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f\n", s }') $(wc -l <"$list")" >"$R/$corpus.size"
    args=()
    while IFS='|' read -r name dir command; do
        command=${command//SRC/$src}
        command=${command//OUT/$out/$dir}
        command=${command//LIST/$list}
        args+=(-n "$name" --prepare "rm -rf $out/$dir" "$command")
    done < <(commands "$corpus")
    echo "== $corpus: timing" >&2
    hyperfine --warmup 1 --runs "$RUNS" --export-json "$R/$corpus.json" "${args[@]}"

    # Peak RSS: one more run of each command under /usr/bin/time. For the shell loops and xargs
    # this is the largest single process (the tool), not the sum of concurrent ones.
    echo "== $corpus: peak RSS" >&2
    while IFS='|' read -r name dir command; do
        command=${command//SRC/$src}
        command=${command//OUT/$out/$dir}
        command=${command//LIST/$list}
        rm -rf "${out:?}/$dir"
        kb=$(/usr/bin/time -f '%M' -o "$R/time.tmp" bash -c "$command" && cat "$R/time.tmp")
        printf '%s\t%s\t%s\n' "$corpus" "$name" "$kb" >>"$R/rss.tsv"
    done < <(commands "$corpus")
    rm -f "$R/time.tmp"
done


# Issue 16: the sfx corpus as AIFF against the same corpus as WAV, in this run.
if [[ " $CORPORA " == *" sfx "* ]]; then
    echo "== sfx as AIFF vs as WAV" >&2
    bash bench/aiff-vs-wav.sh "$BIN" "$RUNS"
fi

echo "load-after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$R/machine.txt"

echo "== checking outputs" >&2
# shellcheck disable=SC2086
python3 bench/check.py "$W/corpus" "$W/out" $CORPORA | tee "$R/check.txt" || echo "bench: some outputs are wrong (see above)" >&2

echo "== report" >&2
python3 bench/report.py "$R" | tee "$R/report.md"

# Rate and channel conversion: the sfx corpus to -d LEI16@22050 -c 1 against sox and ffmpeg.
if [[ ${CAFCONV_BENCH_SKIP_RESAMPLE:-0} != 1 ]]; then
    echo "== rate and channel conversion" >&2
    CAFCONV_BIN=$BIN bash bench/resample.sh | tee "$R/resample.md"
    if [[ -n $BASELINE ]]; then cp bench/work/results-resample/timing.json "$R/resample.json"; fi
fi

# IMA4: cafconv convert -d ima4 (CAFKit's encoder) against ffmpeg's
# adpcm_ima_qt, default and -trellis 8, graded by ffmpeg's decoder. CAFCONV_BENCH_SKIP_IMA4=1 skips it.
if [[ ${CAFCONV_BENCH_SKIP_IMA4:-0} != 1 ]]; then
    echo "== IMA4 quality and speed" >&2
    python3 bench/ima4-quality.py --runs 3 --cafconv "$BIN" --sfx "$W/corpus/sfx" | tee "$R/ima4.md"
fi

# AAC: the music corpus to AAC 128 kb/s against ffmpeg to .m4a, and PCM start-up against main
# (bench/aac.sh). CAFCONV_BENCH_SKIP_AAC=1 skips it.
if [[ ${CAFCONV_BENCH_SKIP_AAC:-0} != 1 ]]; then
    echo "== AAC" >&2
    BIN=$BIN MAIN_BIN=${BASELINE:-${MAIN_BIN:-}} bash bench/aac.sh | tee "$R/aac.md"
fi

# Opus: the music corpus to Opus against ffmpeg's libopus to Ogg, and Ogg Opus moved into CAF
# against re-encoding and ffmpeg -c copy (bench/opus.sh). CAFCONV_BENCH_SKIP_OPUS=1 skips it.
if [[ ${CAFCONV_BENCH_SKIP_OPUS:-0} != 1 ]]; then
    echo "== Opus" >&2
    BIN=$BIN bash bench/opus.sh | tee "$R/opus.md"
fi

# M4A to CAF: packets moved against re-encoding and ffmpeg -c copy (bench/m4a-remux.sh).
# CAFCONV_BENCH_SKIP_M4A=1 skips it.
if [[ ${CAFCONV_BENCH_SKIP_M4A:-0} != 1 ]]; then
    echo "== M4A moved into CAF" >&2
    BIN=$BIN bash bench/m4a-remux.sh | tee "$R/m4a.md"
fi

# Issue 34: no-op after a fresh checkout, a cp -r shard gather, the persistent worker against
# one process per file, and the -j sweep (bench/build-scale.sh). CAFCONV_BENCH_SKIP_BUILD_SCALE=1 skips it.
if [[ ${CAFCONV_BENCH_SKIP_BUILD_SCALE:-0} != 1 ]]; then
    echo "== builds at scale" >&2
    BENCH_RUNS=$RUNS bash bench/build-scale.sh "$BIN" | tee "$R/build-scale.md"
fi

# Issue 34's Bazel row: one-file actions through the persistent worker against one sandboxed
# process each, under the same Bazel (bench/bazel-worker.sh; skipped when bazel is not installed).
# CAFCONV_BENCH_SKIP_BAZEL=1 skips it.
if [[ ${CAFCONV_BENCH_SKIP_BAZEL:-0} != 1 ]]; then
    echo "== Bazel: persistent worker against sandboxed processes" >&2
    BENCH_RUNS=$RUNS bash bench/bazel-worker.sh "$BIN" | tee "$R/bazel-worker.md"
fi

# Issue 33: info --loudness against ffmpeg -af ebur128, and convert --loudness against a plain
# conversion (bench/loudness.sh). CAFCONV_BENCH_SKIP_LOUDNESS=1 skips it.
if [[ ${CAFCONV_BENCH_SKIP_LOUDNESS:-0} != 1 ]]; then
    echo "== loudness" >&2
    CAFCONV_BIN=$BIN BENCH_RUNS=$RUNS bash bench/loudness.sh | tee "$R/loudness.md"
fi

# Issue 34: the -j sweep into one output folder, the default -j against the best, and the
# system calls per output (bench/jobs-sweep.sh). CAFCONV_BENCH_SKIP_JOBS=1 skips it.
if [[ ${CAFCONV_BENCH_SKIP_JOBS:-0} != 1 ]]; then
    echo "== -j sweep" >&2
    BENCH_RUNS=$RUNS bash bench/jobs-sweep.sh "$BIN" | tee "$R/jobs-sweep.md"
fi

# One table of new / base for every row timed against the baseline in this run.
if [[ -n $BASELINE ]]; then
    echo "== against the baseline" >&2
    python3 bench/report.py --baseline "$R" | tee "$R/baseline.md"
fi
