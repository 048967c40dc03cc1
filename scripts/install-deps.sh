#!/usr/bin/env bash
# Installs the system packages cafconv needs when they are missing (Debian/Ubuntu, as root or with sudo).
# libsndfile1-dev and libsoxr-dev: the headers cafconv builds against and the libraries it loads with dlopen (libsoxr resamples). ffmpeg and sndfile-programs: independent decoders the
# tests cross-check against; file: file(1), which the tests run with share/magic/caf; sox: makes
# AIFF sources the way other tools do, for the end-to-end tests of convert's sources (the tests
# skip those checks, saying so, when they are absent). libavcodec-dev: the headers cafconv's AAC
# codec is built with (the library itself is loaded with dlopen at the first AAC job; the AAC tests
# skip, saying so, without it). libavformat-dev: the headers of the second decoder (libavformat +
# libavcodec, loaded with dlopen at the first MP3, Ogg or FLAC source) that checks libsndfile's
# decoding of lossy sources and FLAC, and reads lossless sources libsndfile refuses. libmpg123-dev:
# the header of libmpg123, the first decoder of MP3 sources (loaded with dlopen at the first MP3;
# the library itself comes with libsndfile). libopus-dev: the header of libopus, the Opus encoder and
# decoder (`-d opus`; loaded with dlopen at the first Opus job). libxxhash0: XXH3-128 digests of
# sources and outputs for the manifest (loaded with dlopen; without it, times alone decide what is
# up to date). libebur128-dev: the header of libebur128, the EBU R128 loudness meter of
# `info --loudness`, `convert --loudness` and `verify --loudness` (loaded with dlopen at the first measurement).
set -euo pipefail
need=()
pkg-config --exists sndfile 2>/dev/null || need+=(libsndfile1-dev pkg-config)
pkg-config --exists soxr 2>/dev/null || need+=(libsoxr-dev pkg-config)
pkg-config --exists libavcodec 2>/dev/null || need+=(libavcodec-dev)
pkg-config --exists libavformat 2>/dev/null || need+=(libavformat-dev)
pkg-config --exists libmpg123 2>/dev/null || need+=(libmpg123-dev)
pkg-config --exists libebur128 2>/dev/null || need+=(libebur128-dev)
pkg-config --exists opus 2>/dev/null || need+=(libopus-dev)
{ ldconfig -p 2>/dev/null || /sbin/ldconfig -p; } | grep -q 'libxxhash\.so\.0 ' || need+=(libxxhash0)
command -v ffmpeg >/dev/null || need+=(ffmpeg)
command -v sndfile-info >/dev/null || need+=(sndfile-programs)
command -v file >/dev/null || need+=(file)
command -v sox >/dev/null || need+=(sox)
# make and ninja-build: the build-system recipes of docs/build-systems.md run in the tests (BuildSystemEndToEndTests).
command -v make >/dev/null || need+=(make)
command -v ninja >/dev/null || need+=(ninja-build)
# bazel-bootstrap (Bazel 4.2 with a JDK, about 300 MB) and nginx (an HTTP cache with WebDAV PUT):
# BazelEndToEndTests builds Examples/BazelSounds with them (they skip, saying so, without them).
# CAFCONV_NO_BAZEL=1 leaves them out.
if [ -z "${CAFCONV_NO_BAZEL:-}" ]; then
    command -v bazel >/dev/null || need+=(bazel-bootstrap)
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
fi
# chromium: the report's tests open the page in headless Chromium (ReportBrowserTests; they skip,
# saying so, without it). About 100 MB: CAFCONV_NO_BROWSER=1 leaves it out.
if [ -z "${CAFCONV_NO_BROWSER:-}" ]; then
    command -v chromium >/dev/null || command -v chromium-browser >/dev/null || need+=(chromium)
fi
[ ${#need[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null; then
    echo "install-deps: please install: ${need[*]} (no apt-get here)" >&2
    pkg-config --exists sndfile && pkg-config --exists soxr || exit 1
    exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${need[*]}" >&2
$sudo apt-get update -qq
# No service started by a package's install (nginx would try port 80): the tests start their own.
made_policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null && $sudo chmod +x /usr/sbin/policy-rc.d && made_policy=1
fi
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
[ -z "$made_policy" ] || $sudo rm -f /usr/sbin/policy-rc.d
