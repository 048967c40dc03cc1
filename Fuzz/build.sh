#!/bin/sh
# Builds one libFuzzer binary into .build-fuzz/NAME-fuzz, for NAME in caf, wave, ima4, manifest:
# the modules it needs are compiled from Sources/ as static libraries instrumented with the
# fuzzer and address sanitizers (CSystemCalls with clang, then SystemLayer and BinaryIO, then the
# parser), and linked with Fuzz/<Name>Fuzz/main.swift.
#
#   caf       CAFKit (the CAF parser)             wave      WAVEKit (the WAVE and AIFF readers)
#   ima4      CAFKit (the IMA4 codec)             manifest  Sources/Conversion/ManifestFormat.swift
#
# Run with Fuzz/run-caf.sh [SECONDS] caf|ima4, Fuzz/run-wave.sh, Fuzz/run-manifest.sh, or by hand:
#   .build-fuzz/NAME-fuzz -rss_limit_mb=64 -max_len=65536 -max_total_time=60 SEED_DIR
set -eu
name=${1:?usage: Fuzz/build.sh caf|wave|ima4|manifest}
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.build-fuzz/modules"
mkdir -p "$out/CSystemCalls"
flags="-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -I $out -L $out"

# The C wrappers, as a static library and a Clang module.
clang -fsanitize=fuzzer-no-link,address -O1 -g -c "$root/Sources/CSystemCalls/CSystemCalls.c" \
    -I "$root/Sources/CSystemCalls/include" -o "$out/CSystemCalls.o"
ar rcs "$out/libCSystemCalls.a" "$out/CSystemCalls.o"
printf 'module CSystemCalls {\n    header "%s"\n    export *\n}\n' \
    "$root/Sources/CSystemCalls/include/CSystemCalls.h" > "$out/CSystemCalls/module.modulemap"
flags="$flags -I $out/CSystemCalls"

# module NAME SOURCES...: an instrumented static module in $out.
module() {
    module=$1
    shift
    # shellcheck disable=SC2086
    swiftc $flags -emit-library -static -emit-module -module-name "$module" \
        -emit-module-path "$out/$module.swiftmodule" "$@" -o "$out/lib$module.a"
}
module SystemLayer "$root"/Sources/SystemLayer/*.swift
module BinaryIO "$root"/Sources/BinaryIO/*.swift
libs="-lBinaryIO -lSystemLayer -lCSystemCalls"
case $name in
    caf | ima4)
        # shellcheck disable=SC2046
        module CAFKit $(find "$root/Sources/CAFKit" -name '*.swift' | sort)
        extra="" libs="-lCAFKit $libs" ;;
    wave)
        # shellcheck disable=SC2046
        module WAVEKit $(find "$root/Sources/WAVEKit" -name '*.swift' | sort)
        extra="" libs="-lWAVEKit $libs" ;;
    manifest)
        # Standard library, SystemLayer and BinaryIO only, so it is compiled into the fuzzer itself.
        extra="$root/Sources/Conversion/ManifestFormat.swift" ;;
    *) echo "Fuzz/build.sh: unknown target '$name' (caf, wave, ima4 or manifest)" >&2; exit 64 ;;
esac
main=$(find "$root/Fuzz" -maxdepth 2 -ipath "*/${name}fuzz/main.swift" | head -n 1)
# shellcheck disable=SC2086
swiftc $flags -module-name "$(basename "$(dirname "$main")")" "$main" $extra $libs \
    -o "$root/.build-fuzz/$name-fuzz"
echo "built $root/.build-fuzz/$name-fuzz"
