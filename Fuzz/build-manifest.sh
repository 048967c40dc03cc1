#!/bin/sh
# Builds the libFuzzer binary for the manifest parser into .build-fuzz/manifest-fuzz: BinaryIO is
# compiled as an instrumented static module, and Sources/Conversion/ManifestFormat.swift (standard
# library and BinaryIO only) is compiled together with Fuzz/ManifestFuzz/main.swift.
#
# Run: .build-fuzz/manifest-fuzz -rss_limit_mb=64 -max_len=65536 -max_total_time=60 SEED_DIR
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.build-fuzz"
mkdir -p "$out"
flags="-sanitize=fuzzer,address -parse-as-library -O -g -I $out -L $out"

swiftc $flags -emit-library -static -module-name BinaryIO \
    -emit-module -emit-module-path "$out/BinaryIO.swiftmodule" \
    "$root"/Sources/BinaryIO/*.swift -o "$out/libBinaryIO.a"
swiftc $flags -module-name ManifestFuzz "$root/Fuzz/ManifestFuzz/main.swift" \
    "$root/Sources/Conversion/ManifestFormat.swift" -lBinaryIO -o "$out/manifest-fuzz"
echo "built $out/manifest-fuzz"
