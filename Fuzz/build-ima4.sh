#!/bin/sh
# Builds the libFuzzer binary for the IMA4 codec into .build-fuzz/ima4-fuzz: BinaryIO and CAFKit
# are compiled from their sources as instrumented static modules, then linked with
# Fuzz/IMA4Fuzz/main.swift.
#
# Run: .build-fuzz/ima4-fuzz -rss_limit_mb=64 -max_len=65536 -max_total_time=60 SEED_DIR
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.build-fuzz"
mkdir -p "$out"
flags="-sanitize=fuzzer,address -parse-as-library -O -g -I $out -L $out"

swiftc $flags -emit-library -static -module-name BinaryIO \
    -emit-module -emit-module-path "$out/BinaryIO.swiftmodule" \
    "$root"/Sources/BinaryIO/*.swift -o "$out/libBinaryIO.a"
swiftc $flags -emit-library -static -module-name CAFKit \
    -emit-module -emit-module-path "$out/CAFKit.swiftmodule" \
    $(find "$root/Sources/CAFKit" -name '*.swift' | sort) -o "$out/libCAFKit.a"
swiftc $flags -module-name IMA4Fuzz "$root/Fuzz/IMA4Fuzz/main.swift" \
    -lCAFKit -lBinaryIO -o "$out/ima4-fuzz"
echo "built $out/ima4-fuzz"
