#!/usr/bin/env bash
# Checks the release binary (`make release`: static Swift runtime, scripts/release-flags.sh), which
# the tests do not run: it must write the same bytes as the debug binary the tests check, read its
# command line, and start without libsndfile and libsoxr, which it loads on first use.
#
#   scripts/release-check.sh DEBUG_CAFCONV RELEASE_CAFCONV
set -euo pipefail
debug=$1 release=$2
here=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "release-check: $*" >&2; exit 1; }

# The command line: arguments reach the parser (a usage error is exit 64), and --version works.
"$release" --version >/dev/null || fail "--version failed"
status=0; "$release" convert --no-such-option >/dev/null 2>&1 || status=$?
[ "$status" = 64 ] || fail "an unknown option gave exit status $status, not 64"
# Linking: no libsndfile, libsoxr or libstdc++ at start, no run path.
if command -v readelf >/dev/null; then
    needed=$(readelf -d "$release" | grep NEEDED || true)
    if grep -qE "libsndfile|libsoxr|libstdc\+\+|libavcodec" <<<"$needed"; then fail "links $(grep -oE 'lib(sndfile|soxr|stdc\+\+|avcodec)[^]]*' <<<"$needed" | tr '\n' ' ')"; fi
    if readelf -d "$release" | grep -qE "RPATH|RUNPATH"; then fail "has a run path"; fi
    # Position-independent (ASLR for a program that parses untrusted files): type DYN, not EXEC.
    readelf -h "$release" | grep -qE "Type:[[:space:]]+DYN" || fail "is not position-independent"
fi
# Without libsndfile and libsoxr on the library path, it still starts and inspects files.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/lib"
echo "not a library" > "$work/lib/libsndfile.so.1"
echo "not a library" > "$work/lib/libsoxr.so.0"
LD_LIBRARY_PATH="$work/lib" "$release" info --brief "$here/Samples" >/dev/null || fail "info failed without libsndfile"
# The same bytes as the debug binary, for every road (scripts/compare-outputs.sh).
bash "$here/scripts/compare-outputs.sh" "$debug" "$release"
echo "release-check: the release binary is good"
