#!/bin/sh
# Builds the libFuzzer binary for the WAVE and AIFF readers into .build-fuzz/wave-fuzz:
# BinaryIO and WAVEKit are compiled from Sources/ as static modules with the fuzzer and address
# sanitizers, then linked with Fuzz/WAVEFuzz/main.swift.
# Run it, for example, on a seed corpus copied at run time (never committed):
#   mkdir -p .build-fuzz/wave-corpus
#   cp ../shared/corpus/real/*.wav ../shared/corpus/real/*.aif* .build-fuzz/wave-corpus/
#   .build-fuzz/wave-fuzz -max_total_time=60 -rss_limit_mb=64 -max_len=65536 .build-fuzz/wave-corpus
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.build-fuzz"
mkdir -p "$out/modules"
flags="-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6"

# shellcheck disable=SC2086
swiftc $flags -emit-library -static -emit-module -module-name BinaryIO \
    -emit-module-path "$out/modules/BinaryIO.swiftmodule" \
    "$root"/Sources/BinaryIO/*.swift -o "$out/modules/libBinaryIO.a"
# shellcheck disable=SC2086
swiftc $flags -emit-library -static -emit-module -module-name WAVEKit -I "$out/modules" \
    -emit-module-path "$out/modules/WAVEKit.swiftmodule" \
    $(find "$root/Sources/WAVEKit" -name '*.swift' | sort) -o "$out/modules/libWAVEKit.a"
# shellcheck disable=SC2086
swiftc $flags -use-ld=lld -module-name WAVEFuzz -I "$out/modules" -L "$out/modules" -lWAVEKit -lBinaryIO \
    "$root/Fuzz/WAVEFuzz/main.swift" -o "$out/wave-fuzz"
echo "built $out/wave-fuzz"
