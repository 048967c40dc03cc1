#!/usr/bin/env bash
# Proves that two versions of cafconv behave the same: every output byte, every report, every
# message, every exit status (issue 29's safety net for reshaping the engine).
#
#   scripts/same-outputs.sh BASE_COMMIT [HEAD_COMMIT_OR_WORKTREE]
#   make same-outputs BASE=fa0d625 [HEAD=...]
#
# BASE_COMMIT is built from a temporary `git worktree add --detach` (removed afterwards); the
# second argument is a commit (built the same way) or a work tree folder (built as it is, with
# uncommitted changes); without it, the work tree this script belongs to. Either may also be a
# cafconv binary, used as it is. The binaries `make release` builds (SAME_OUTPUTS_CONFIG=debug for
# debug ones: quicker to build, but their IMA4 and AAC encoders and verify --against are about ten
# times slower, which dominates the run), each in its own scratch folder under .build-compare/
# (SAME_OUTPUTS_CACHE); a commit's binary is built once and reused by later runs, and by
# bench/compare.sh, which keeps its release binaries in the same place.
#
# Both binaries run the same matrix, one after the other, in the same folder (so absolute paths
# in reports are the same), reached through the same name (so argv[0] is):
# - sources: every file of Samples/, of ../shared/corpus/real (skipped, saying so, when absent),
#   files generated here with sox, ffmpeg and python3 (WAV 8/16/24/32-bit integer, 32/64-bit
#   float, µ-law, A-law, 5.1, 0 frames, loops, cue points and text; RF64, Wave64, AIFF 8/16/24,
#   AIFF-C sowt/fl32/ulaw/alaw/ima4 and markers/instrument; CAF LE/BE, 5.1 float, µ-law, ALAC, IMA4,
#   AAC (made by the base binary) and a 22050.5 Hz rate; FLAC 16/24, MP3, Ogg Vorbis, Ogg Opus,
#   Sun .au) and a set of bad files (text, truncated, empty);
# - convert, each over each source set: the source's format, `-d` LEI16 BEI24 LEF32 I8 ulaw alaw
#   alac ima4 aac, each also with @22050 and with -c 1, ima4@22050 -c 1, aac -b 96000,
#   --strip-metadata, --dither tpdf, a rules file, a dry run on a fresh folder, and a second run
#   (up to date, --json, --check, a dry run with other options); every conversion once with
#   --json and once as text (-v) into another folder (on the shared corpus: --json only, and of
#   the IMA4 and AAC cases only plain -d ima4 and -d aac, whose encoders dominate the time);
# - `info`, `info --json` and `info --brief` of every source and output folder, `verify`,
#   `verify --json` and `verify --against` of every output folder (`verify --json --against` of
#   Samples/'s), `--help` of every subcommand,
#   the bare command, --version, the man page and the completion scripts.
# Compared: the file lists and every output byte for byte (in .cafconv-manifest only the outputs'
# modification times, column 7, and the checksum line over them are masked); stdout, stderr and
# exit status of every command, after removing only what legitimately varies: JSON
# "milliseconds" fields, the text's "in 1.2 ms" timings, and the order of convert's stderr lines
# (printed as each file finishes, so racing with -j 2: compared sorted).
#
# Exit status: 0 identical (one summary line "N outputs, M reports identical"), 1 different (the
# first SAME_OUTPUTS_SHOW differences of each kind are printed, default 10), 2 usage or build error.
# Environment: SAME_OUTPUTS_CACHE (default .build-compare), SAME_OUTPUTS_SHOW, SAME_OUTPUTS_KEEP=1
# (keep the scratch folder with both runs and print its path), SAME_OUTPUTS_CONFIG (debug or
# release), SAME_OUTPUTS_SETS (some of "samples real gen") and SAME_OUTPUTS_CASES (some of the
# convert cases by name: "source LEI16 aac@22050 ima4-c1 rules"...): a quicker, partial comparison.
set -euo pipefail
export LC_ALL=C
# The whole script is one block, read before it runs: editing it during a run changes nothing.
{

here=$(cd "$(dirname "$0")/.." && pwd)
usage() {
    echo "usage: scripts/same-outputs.sh BASE_COMMIT [HEAD_COMMIT_OR_WORKTREE]" >&2
    exit 2
}
[[ $# -ge 1 && $# -le 2 && -n $1 && -n ${2-x} ]] || usage
cache=${SAME_OUTPUTS_CACHE:-$here/.build-compare}
show=${SAME_OUTPUTS_SHOW:-10}
config=${SAME_OUTPUTS_CONFIG:-release}
[[ $config == debug || $config == release ]] || usage
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
for tool in git swift sox ffmpeg python3 cmp diff timeout; do
    command -v "$tool" >/dev/null || {
        echo "same-outputs: $tool is missing (bash scripts/install-deps.sh)" >&2
        exit 2
    }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/same-outputs.XXXXXX")
worktrees=()
# shellcheck disable=SC2317  # called by the trap
cleanup() {
    local tree
    for tree in "${worktrees[@]}"; do
        git -C "$here" worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
    done
    if [[ ${SAME_OUTPUTS_KEEP:-0} == 1 ]]; then
        echo "same-outputs: kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- building ----------------------------------------------------------------------------

# build DIR SOURCE: builds cafconv from SOURCE (a work tree) into the scratch folder DIR, debug or
# as `make release` builds it (SOURCE's own scripts/release-flags.sh); the binary is DIR/cafconv.
build() {
    local dir=$1 source=$2 status=0
    mkdir -p "$dir"
    (
        cd "$source"
        flags="-c debug"
        if [[ $config == release ]]; then flags=$(bash scripts/release-flags.sh); fi
        # shellcheck disable=SC2086
        swift build $flags --scratch-path "$dir" --product cafconv
        # shellcheck disable=SC2086
        cp "$(swift build $flags --scratch-path "$dir" --show-bin-path)/cafconv" "$dir/cafconv"
    ) >"$dir.log" 2>&1 || status=$?
    if [[ $status != 0 ]]; then
        tail -20 "$dir.log" >&2
        echo "same-outputs: the build of $source failed (see $dir.log)" >&2
        exit 2
    fi
}

# build_commit SHA: builds cafconv at SHA in a temporary worktree, once per commit and
# configuration (bench/compare.sh keeps its release binaries in the same place); sets `built`.
build_commit() {
    local sha=$1 dir="$cache/$config-${1:0:12}" src
    built=$dir/cafconv
    if [[ -x $built && -f $dir/.complete ]]; then
        echo "== ${sha:0:12}: built before ($built)" >&2
        return
    fi
    src=$(mktemp -d "${TMPDIR:-/tmp}/same-outputs-src.XXXXXX")
    worktrees+=("$src")
    rmdir "$src"
    git -C "$here" worktree add --quiet --detach "$src" "$sha"
    # The dependency versions the work tree resolved (Package.resolved is not committed).
    if [[ -f $here/Package.resolved ]]; then cp "$here/Package.resolved" "$src/"; fi
    echo "== ${sha:0:12}: building ($config) in $dir, log $dir.log" >&2
    build "$dir" "$src"
    git -C "$here" worktree remove --force "$src"
    touch "$dir/.complete"
}

# build_tree FOLDER: builds cafconv from a work tree as it is (incrementally); sets `built`.
build_tree() {
    local tree dir
    tree=$(cd "$1" && pwd)
    dir="$cache/$config-tree-$(printf '%s' "$tree" | cksum | cut -d' ' -f1)"
    echo "== $tree: building ($config) in $dir, log $dir.log" >&2
    build "$dir" "$tree"
    built=$dir/cafconv
}

# pick ARGUMENT: a cafconv binary (used as it is), a work tree folder or a commit; sets `built`
# and `picked` (what it is, for the report).
pick() {
    local sha
    if [[ -f $1 && -x $1 ]]; then
        built=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
        picked="binary $built"
    elif [[ -d $1 ]]; then
        build_tree "$1"
        picked="work tree $(cd "$1" && pwd) ($(git -C "$1" rev-parse --short=12 HEAD)"
        if [[ -n $(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null) ]]; then
            picked+=" + uncommitted changes"
        fi
        picked+=")"
    else
        sha=$(git -C "$here" rev-parse --verify --quiet "$1^{commit}") || {
            echo "same-outputs: '$1' is neither a commit, a folder nor an executable" >&2
            exit 2
        }
        build_commit "$sha"
        picked="commit ${sha:0:12}"
    fi
}

pick "$1"
base_bin=$built base_name=$picked
pick "${2:-$here}"
head_bin=$built head_name=$picked

# ---- sources -----------------------------------------------------------------------------

src=$work/src
mkdir -p "$src/samples" "$src/gen" "$src/bad" "$work/bin"
cp -R "$here/Samples/." "$src/samples/"
sets=(samples gen)
real=$here/../shared/corpus/real
if [[ -d $real ]]; then
    mkdir -p "$src/real"
    cp -R "$real/." "$src/real/"
    sets=(samples real gen)
else
    echo "note: ../shared/corpus/real is absent: the shared corpus is not compared" >&2
fi

# SAME_OUTPUTS_SETS="samples gen" (say) narrows the matrix to some of the source sets, for a quick look.
if [[ -n ${SAME_OUTPUTS_SETS:-} ]]; then
    wanted=()
    for set in "${sets[@]}"; do
        if [[ " $SAME_OUTPUTS_SETS " == *" $set "* ]]; then wanted+=("$set"); fi
    done
    sets=("${wanted[@]}")
    echo "note: only the source sets ${sets[*]} (SAME_OUTPUTS_SETS)" >&2
fi

echo "== generating sources in $src/gen" >&2
gen=$src/gen
tone=(synth 0.5 sine 220-3520 vol 0.7)
sox_gen() { # sox_gen FILE RATE CHANNELS SOX-FORMAT-OPTIONS...
    local file=$1 rate=$2 channels=$3
    shift 3
    sox -D -n -r "$rate" -c "$channels" "$@" "$gen/$file" "${tone[@]}"
}
sox_gen wav-u8-mono-22050.wav 22050 1 -b 8 -e unsigned-integer
sox_gen wav-i16-stereo.wav 44100 2 -b 16 -e signed-integer
sox_gen wav-i24-mono-48000.wav 48000 1 -b 24 -e signed-integer
sox_gen wav-i32-stereo.wav 44100 2 -b 32 -e signed-integer
sox_gen wav-f32-stereo.wav 48000 2 -b 32 -e floating-point
sox_gen wav-f64-mono.wav 44100 1 -b 64 -e floating-point
sox_gen wav-i16-51.wav 48000 6 -b 16 -e signed-integer
sox_gen wav-f32-51.wav 48000 6 -b 32 -e floating-point
sox_gen wav-ulaw-mono-8000.wav 8000 1 -e u-law
sox_gen wav-alaw-stereo-8000.wav 8000 2 -e a-law
sox -D -n -r 44100 -c 2 -b 16 "$gen/wav-i16-zero-frames.wav" trim 0 0
sox_gen w64-i16-stereo.w64 44100 2 -b 16 -e signed-integer
sox_gen aiff-i8-mono.aiff 22050 1 -b 8 -e signed-integer
sox_gen aiff-i16-stereo.aiff 44100 2 -b 16 -e signed-integer
sox_gen aiff-i24-51.aiff 48000 6 -b 24 -e signed-integer
sox_gen aifc-fl32-stereo.aifc 44100 2 -b 32 -e floating-point
sox_gen au-ulaw-mono.au 8000 1 -e u-law
sox_gen flac16-stereo.flac 44100 2 -b 16
sox_gen flac24-mono.flac 96000 1 -b 24
ffmpeg_gen() { # ffmpeg_gen FILE RATE CHANNELS FFMPEG-OUTPUT-OPTIONS...
    local file=$1 rate=$2 channels=$3
    shift 3
    ffmpeg -nostdin -v error -f lavfi -i "sine=f=440:d=0.5:r=$rate" -ac "$channels" "$@" "$gen/$file"
}
ffmpeg_gen rf64-i16-stereo.wav 44100 2 -c:a pcm_s16le -rf64 always
ffmpeg_gen aifc-sowt-stereo.aifc 44100 2 -c:a pcm_s16le -f aiff
ffmpeg_gen aifc-ulaw-mono.aifc 8000 1 -c:a pcm_mulaw -f aiff
ffmpeg_gen aifc-alaw-stereo.aifc 8000 2 -c:a pcm_alaw -f aiff
ffmpeg_gen aifc-ima4-mono.aifc 44100 1 -c:a adpcm_ima_qt -f aiff
ffmpeg_gen caf-lei16-stereo.caf 44100 2 -c:a pcm_s16le
ffmpeg_gen caf-bei24-mono.caf 48000 1 -c:a pcm_s24be
ffmpeg_gen caf-lef32-51.caf 48000 6 -c:a pcm_f32le
ffmpeg_gen caf-ulaw-mono.caf 8000 1 -c:a pcm_mulaw
ffmpeg_gen caf-alac16-stereo.caf 44100 2 -c:a alac -sample_fmt s16p
ffmpeg_gen caf-alac24-mono.caf 48000 1 -c:a alac -sample_fmt s32p
ffmpeg_gen caf-ima4-stereo.caf 44100 2 -c:a adpcm_ima_qt
ffmpeg_gen mp3-stereo.mp3 44100 2 -c:a libmp3lame -b:a 128k
ffmpeg_gen vorbis-stereo.ogg 44100 2 -c:a libvorbis
ffmpeg_gen opus-stereo.opus 48000 2 -c:a libopus -b:a 96k
ffmpeg_gen opus-mono.ogg 48000 1 -c:a libopus -b:a 48k
# An AAC CAF source, made by the base binary (ffmpeg's CAF muxer writes no AAC); both binaries
# then read the same file.
"$base_bin" convert -q -d aac "$gen/wav-i16-stereo.wav" -o "$gen/caf-aac-stereo.caf"
"$base_bin" convert -q -d aac "$gen/wav-i16-51.wav" -o "$gen/caf-aac-51.caf"
# A 22050.5 Hz CAF (sox rounds rates to integers: desc's rate is patched), a WAV with loops, cue
# points and text, an AIFF with markers, an instrument and a name; and the bad files.
python3 - "$gen" "$src/bad" <<'PY'
import math, os, struct, sys
gen, bad = sys.argv[1], sys.argv[2]

def tone(frames, channels, rate=44100):
    out = bytearray()
    for i in range(frames):
        v = int(12000 * math.sin(2 * math.pi * 440 * i / rate))
        for c in range(channels):
            out += struct.pack('<h', v if c == 0 else -v)
    return bytes(out)

def chunk(cid, body, endian='<'):
    data = cid + struct.pack(endian + 'I', len(body)) + body
    return data + (b'\0' if len(body) % 2 else b'')

path = os.path.join(gen, 'caf-odd-rate.caf')
os.system("sox -D -n -r 22050 -c 1 -b 16 -e signed-integer '%s' synth 0.3 sine 330" % path)
with open(path, 'r+b') as f:
    head = f.read(20)
    assert head[8:12] == b'desc'
    f.seek(20)
    f.write(struct.pack('>d', 22050.5))

frames = 8000
pcm = tone(frames, 1, 8000)
fmt = struct.pack('<HHIIHH', 1, 1, 8000, 16000, 2, 16)
cue = struct.pack('<I', 3) + b''.join(
    struct.pack('<II4sIII', i + 1, pos, b'data', 0, 0, pos) for i, pos in enumerate([100, 2000, 6000]))
adtl = b'adtl' + chunk(b'labl', struct.pack('<I', 1) + b'start\0') + chunk(
    b'labl', struct.pack('<I', 2) + 'middle é\0'.encode()) + chunk(
    b'ltxt', struct.pack('<II4sHHHH', 3, 500, b'rgn ', 0, 0, 0, 0) + b'region\0')
smpl = struct.pack('<9I', 0, 0, 125000, 60, 0x80000000, 0, 0, 2, 0) + struct.pack(
    '<6I', 1, 0, 1000, 3999, 0, 0) + struct.pack('<6I', 2, 1, 4000, 7000, 0, 3)
info = b'INFO' + chunk(b'INAM', 'Loop tést\0'.encode()) + chunk(b'IART', b'cafconv\0') + chunk(
    b'ICMT', b'made by same-outputs.sh\0') + chunk(b'IENG', b'x\0')
body = b'WAVE' + chunk(b'fmt ', fmt) + chunk(b'cue ', cue) + chunk(b'LIST', adtl) + chunk(
    b'smpl', smpl) + chunk(b'LIST', info) + chunk(b'data', pcm)
with open(os.path.join(gen, 'wav-markers-loops.wav'), 'wb') as f:
    f.write(b'RIFF' + struct.pack('<I', len(body)) + body)

def pstring(s):
    b = bytes([len(s)]) + s
    return b + (b'\0' if len(b) % 2 else b'')

frames = 6000
be = bytearray()
for i in range(frames):
    be += struct.pack('>h', int(9000 * math.sin(2 * math.pi * 220 * i / 44100)))
comm = struct.pack('>hIh', 1, frames, 16) + bytes.fromhex('400EAC44000000000000')
mark = struct.pack('>H', 4) + b''.join(
    struct.pack('>hI', mid, pos) + pstring(name) for mid, pos, name in
    [(1, 500, b'sus-begin'), (2, 2500, b'sus-end'), (3, 3000, b'rel-begin'), (4, 5000, b'rel-end')])
inst = struct.pack('>bbbbbbh', 60, -10, 0, 127, 1, 127, -3) + struct.pack(
    '>hhh', 1, 1, 2) + struct.pack('>hhh', 2, 3, 4)
ssnd = struct.pack('>II', 0, 0) + bytes(be)
body = b'AIFF' + chunk(b'COMM', comm, '>') + chunk(b'MARK', mark, '>') + chunk(
    b'INST', inst, '>') + chunk(b'NAME', b'Marked AIFF', '>') + chunk(b'SSND', ssnd, '>')
with open(os.path.join(gen, 'aiff-markers.aiff'), 'wb') as f:
    f.write(b'FORM' + struct.pack('>I', len(body)) + body)

with open(os.path.join(bad, 'text.wav'), 'w') as f:
    f.write('this is not audio\n')
open(os.path.join(bad, 'empty.aiff'), 'wb').close()
with open(os.path.join(gen, 'wav-i16-stereo.wav'), 'rb') as f:
    whole = f.read()
with open(os.path.join(bad, 'truncated.wav'), 'wb') as f:
    f.write(whole[:len(whole) // 2 + 1])
with open(os.path.join(bad, 'header-only.caf'), 'wb') as f:
    f.write(b'caff\0\1\0\0')
PY
cp "$gen/wav-i16-stereo.wav" "$src/bad/good.wav"
cat >"$work/rules.toml" <<'TOML'
[defaults]
format = "LEI16"

[[rule]]
match = ["**/*.aif*", "**/*.caf"]
format = "aac"
bitrate = 96000

[[rule]]
match = "**/*mono*"
format = "ima4@22050"
channels = 1

[[rule]]
match = "**/*.flac"
format = "alac"
strip-metadata = true

[[rule]]
match = "**/*stereo*"
format = "BEI24"
channels = 1
mix = false
TOML
echo "   source files: $(for s in "${sets[@]}" bad; do printf '%s %s, ' "$s" "$(find "$src/$s" -type f | wc -l)"; done)" >&2

# ---- one side ----------------------------------------------------------------------------

# The convert option sets: "name|options" (options split on spaces).
cases=("source|")
for format in LEI16 BEI24 LEF32 I8 ulaw alaw alac ima4 aac; do
    cases+=("$format|-d $format" "$format@22050|-d $format@22050" "$format-c1|-d $format -c 1")
done
cases+=("source@22050|-d 0@22050" "source-c1|-c 1" "ima4@22050-c1|-d ima4@22050 -c 1"
    "aac-b96000|-d aac -b 96000" "strip-metadata|--strip-metadata" "dither|-d I8 --dither tpdf"
    "rules|--rules ../rules.toml")

# call ID ARGS...: runs the binary in the run folder; keeps stdout, stderr and the exit status.
call() {
    local id=$1 status=0
    shift
    local started=$EPOCHREALTIME
    timeout 600 "$work/bin/cafconv" "$@" >"log/$id.out" 2>"log/$id.err" </dev/null || status=$?
    echo "$status" >"log/$id.status"
    # What each command took (not compared): the slowest are named at the end.
    printf '%s\t%s\n' "$id" "$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')" >>times.tsv
}

run_side() {
    local side=$1 bin=$2 set name options started=$SECONDS
    ln -sfn "$bin" "$work/bin/cafconv"
    rm -rf "$work/run"
    mkdir -p "$work/run/log" "$work/run/out"
    cd "$work/run"
    call help-root --help
    call help-convert convert --help
    call help-info info --help
    call help-verify verify --help
    call help-bare
    call help-version --version
    call help-manual --generate-manual
    for shell in bash zsh fish; do call "help-completion-$shell" --generate-completion-script "$shell"; done
    for set in "${sets[@]}" bad; do
        call "info-source-$set" info "../src/$set"
        call "info-source-json-$set" info --json "../src/$set"
        call "info-source-brief-$set" info --brief "../src/$set"
    done
    for set in "${sets[@]}"; do
        for entry in "${cases[@]}"; do
            name=$set-${entry%%|*}
            if [[ -n ${SAME_OUTPUTS_CASES:-} && " $SAME_OUTPUTS_CASES " != *" ${entry%%|*} "* ]]; then continue; fi
            read -r -a options <<<"${entry#*|}"
            # The shared corpus's larger files make the IMA4 and AAC encoders dominate: there,
            # -d ima4 and -d aac once each (their variants run on the other sets), and each case
            # converts once, with --json, rather than also as text.
            if [[ $set == real ]]; then
                case ${entry%%|*} in
                    ima4 | aac) ;;
                    *ima4* | *aac*) continue ;;
                esac
                call "convert-json-$name" convert -j 2 --json "${options[@]}" "../src/$set" -o "out/$name"
            else
                call "convert-json-$name" convert -j 2 --json "${options[@]}" "../src/$set" -o "out/json-$name"
                call "convert-text-$name" convert -j 2 -v "${options[@]}" "../src/$set" -o "out/$name"
            fi
            if [[ $set == samples ]]; then
                call "verify-against-json-$name" verify --json --against "../src/$set" "out/$name"
            fi
            call "info-$name" info "out/$name"
            call "info-json-$name" info --json "out/$name"
            call "info-brief-$name" info --brief "out/$name"
            call "verify-$name" verify "out/$name"
            call "verify-json-$name" verify --json "out/$name"
            call "verify-against-$name" verify --against "../src/$set" "out/$name"
        done
        # Runs over what is there: up to date, a check, dry runs; and a dry run on a fresh folder.
        call "convert-again-text-$set" convert -v "../src/$set" -o "out/$set-source"
        call "convert-again-json-$set" convert --json "../src/$set" -o "out/$set-source"
        call "convert-check-$set" convert --check -v "../src/$set" -o "out/$set-source"
        call "convert-dry-changed-$set" convert --dry-run -v -d LEI16 "../src/$set" -o "out/$set-source"
        call "convert-dry-fresh-$set" convert --dry-run -v "../src/$set" -o "out/dry-$set"
        call "convert-dry-fresh-json-$set" convert --dry-run --json -d alac "../src/$set" -o "out/dry-$set"
    done
    call convert-text-bad convert -v ../src/bad -o out/bad
    call convert-json-bad convert --json -d ima4 ../src/bad -o out/bad-ima4
    call verify-bad verify ../src/bad
    call verify-against-bad verify --against ../src/samples ../src/bad
    cd "$work"
    mv "$work/run/times.tsv" "$work/times-$side.tsv"
    mv "$work/run" "$work/$side"
    echo "   $side: $((SECONDS - started)) s; slowest: $(sort -t$'\t' -k2 -rn "$work/times-$side.tsv" | head -3 | tr '\t\n' '= ' | sed 's/ $//') s" >&2
}

export NO_COLOR=1 TERM=dumb COLUMNS=100 SOURCE_DATE_EPOCH=1700000000
echo "== running $base_name" >&2
run_side base "$base_bin"
echo "== running $head_name" >&2
run_side head "$head_bin"

# ---- comparing ---------------------------------------------------------------------------

echo "== comparing" >&2
cd "$work"
status=0
python3 - "$work/base" "$work/head" "$show" "$base_name" "$head_name" <<'PY' || status=$?
import difflib, json, os, re, sys

base, head, show, base_name, head_name = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
differences = {}  # kind -> [(summary, detail lines)]

def differ(kind, summary, detail=()):
    differences.setdefault(kind, []).append((summary, list(detail)))

def listing(root):
    found = set()
    for folder, dirs, files in os.walk(os.path.join(root, 'out')):
        for name in dirs + files:
            found.add(os.path.relpath(os.path.join(folder, name), root))
    return found

def read(path):
    with open(path, 'rb') as f:
        return f.read()

TIME = re.compile(rb' in [0-9]+(\.[0-9]+)? ?(ns|\xc2\xb5s|us|ms|s|min)\b')

def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k != 'milliseconds'}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value

def normalise(name, data):
    """Removes what legitimately varies: JSON "milliseconds" fields, text timings ("in 1.2 ms"),
    and the order of convert's stderr lines (each file's errors and warnings are printed when
    it finishes, so with -j 2 their order is the race's: compared as a sorted list)."""
    if 'json' in name and name.endswith('.out'):
        try:
            return json.dumps(strip(json.loads(data)), indent=1, ensure_ascii=False).encode()
        except ValueError:
            pass
    data = TIME.sub(b' in <time>', data)
    if name.startswith('convert-') and name.endswith('.err'):
        data = b'\n'.join(sorted(data.split(b'\n')))
    return data

def manifest(data):
    """A manifest with its outputs' modification times (column 7) and its checksum, which covers
    them ('end HASH'), masked."""
    lines = []
    for line in data.split(b'\n'):
        fields = line.split(b'\t')
        if len(fields) >= 7:
            fields[6] = b'<mtime>'
        elif line.startswith(b'end '):
            fields = [b'end <checksum>']
        lines.append(b'\t'.join(fields))
    return b'\n'.join(lines)

def excerpt(a, b):
    lines = difflib.unified_diff(a.decode('utf-8', 'replace').splitlines(),
                                 b.decode('utf-8', 'replace').splitlines(), 'base', 'head', n=1, lineterm='')
    return [line[:240] for line in list(lines)[2:14]]

outputs = 0
in_base, in_head = listing(base), listing(head)
for path in sorted(in_base - in_head):
    differ('files', 'only in base: ' + path)
for path in sorted(in_head - in_base):
    differ('files', 'only in head: ' + path)
for path in sorted(in_base & in_head):
    a, b = os.path.join(base, path), os.path.join(head, path)
    if not (os.path.isfile(a) and os.path.isfile(b)):
        if os.path.isfile(a) != os.path.isfile(b):
            differ('files', path + ': a file on one side only')
        continue
    if os.path.basename(path) == '.cafconv-manifest':
        x, y = manifest(read(a)), manifest(read(b))
        if x != y:
            differ('manifests', path, excerpt(x, y))
        continue
    outputs += 1
    x, y = read(a), read(b)
    if x != y:
        at = next((i for i in range(min(len(x), len(y))) if x[i] != y[i]), min(len(x), len(y)))
        differ('outputs', '%s: %d bytes in base, %d in head, first difference at byte %d' % (path, len(x), len(y), at))

commands = 0
logs_base, logs_head = set(os.listdir(os.path.join(base, 'log'))), set(os.listdir(os.path.join(head, 'log')))
for name in sorted(logs_base ^ logs_head):
    differ('commands', name + ': kept on one side only')
for name in sorted(logs_base & logs_head):
    x, y = read(os.path.join(base, 'log', name)), read(os.path.join(head, 'log', name))
    command, stream = name.rsplit('.', 1)
    if stream == 'status':
        commands += 1
        if x != y:
            differ('exit-status', '%s: exit %s in base, %s in head' % (command, x.decode().strip(), y.decode().strip()))
        continue
    x, y = normalise(name, x), normalise(name, y)
    if x != y:
        kind = command.split('-', 1)[0] + '-' + stream
        differ(kind, name, excerpt(x, y))

print('base: ' + base_name)
print('head: ' + head_name)
if differences:
    for kind in sorted(differences):
        items = differences[kind]
        print('DIFFERENT %s: %d (first %d shown)' % (kind, len(items), min(show, len(items))))
        for summary, detail in items[:show]:
            print('  ' + summary)
            for line in detail:
                print('      ' + line)
    print('same-outputs: outputs or reports differ (%d outputs, %d commands compared)' % (outputs, commands))
    sys.exit(1)
print('same-outputs: %d outputs, %d reports identical (stdout, stderr and exit status of each of %d commands)'
      % (outputs, commands, commands))
PY
exit "$status"
}
