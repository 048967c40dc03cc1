#!/bin/sh
# Builds one libFuzzer binary into .build-fuzz/NAME-fuzz, for NAME in caf, wave, ima4, manifest,
# inspection, rules:
# the modules it needs are compiled from Sources/ as static libraries instrumented with the
# fuzzer and address sanitizers (CSystemCalls with clang, then SystemLayer and BinaryIO, then the
# parser), and linked with Fuzz/<Name>Fuzz/main.swift.
#
#   caf       CAFKit (the CAF parser)             wave      WAVEKit (the WAVE and AIFF readers)
#   ima4      CAFKit (the IMA4 codec)             manifest  Sources/IncrementalState/ManifestFormat.swift
#   inspection  Inspection (info's text and JSON over CAF, WAV, RIFX, RF64, AIFF bytes)
#   rules     Rules (the rules-file reader, its globs and settings), with ConversionModel and
#             OutputFiles, which it imports
#
# Every module is compiled with the same -package-name, as SwiftPM does, so declarations with
# `package` access are visible across them.
#
# Run with Fuzz/run-caf.sh [SECONDS] caf|ima4, Fuzz/run-wave.sh, Fuzz/run-manifest.sh,
# Fuzz/run-inspection.sh, Fuzz/run-rules.sh, or by hand:
#   .build-fuzz/NAME-fuzz -rss_limit_mb=64 -max_len=65536 -max_total_time=60 SEED_DIR
set -eu
name=${1:?usage: Fuzz/build.sh caf|wave|ima4|manifest|inspection|rules}
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.build-fuzz/modules"
mkdir -p "$out/CSystemCalls"
flags="-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -package-name cafconv -I $out -L $out"

# cmodule NAME: the C target Sources/NAME as a static library and a Clang module.
cmodule() {
    mkdir -p "$out/$1"
    clang -fsanitize=fuzzer-no-link,address -O1 -g -c "$root/Sources/$1/$1.c" \
        -I "$root/Sources/$1/include" -I "$root/Sources/LazyLibrary/include" -o "$out/$1.o"
    ar rcs "$out/lib$1.a" "$out/$1.o"
    printf 'module %s {\n    header "%s"\n    export *\n}\n' "$1" \
        "$root/Sources/$1/include/$1.h" > "$out/$1/module.modulemap"
    flags="$flags -I $out/$1"
}
cmodule CSystemCalls

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
        extra="$root/Sources/IncrementalState/ManifestFormat.swift" ;;
    inspection)
        # shellcheck disable=SC2046
        module CAFKit $(find "$root/Sources/CAFKit" -name '*.swift' | sort)
        # shellcheck disable=SC2046
        module WAVEKit $(find "$root/Sources/WAVEKit" -name '*.swift' | sort)
        module Inspection "$root"/Sources/Inspection/*.swift
        module JSONKit "$root"/Sources/JSONKit/*.swift
        extra="" libs="-lInspection -lJSONKit -lWAVEKit -lCAFKit $libs" ;;
    rules)
        # Rules and what it imports (ConversionModel, OutputFiles and the libraries under them);
        # the C wrappers dlopen their libraries only when used, which the rules reader never does.
        for c in LazyLibrary CSndFile CAVCodec; do cmodule $c; done
        # shellcheck disable=SC2046
        module CAFKit $(find "$root/Sources/CAFKit" -name '*.swift' | sort)
        # shellcheck disable=SC2046
        module WAVEKit $(find "$root/Sources/WAVEKit" -name '*.swift' | sort)
        module SndFile "$root"/Sources/SndFile/*.swift
        module AACCodec "$root"/Sources/AACCodec/*.swift
        # shellcheck disable=SC2046
        module ConversionModel $(find "$root/Sources/ConversionModel" -name '*.swift' | sort)
        # shellcheck disable=SC2046
        module OutputFiles $(find "$root/Sources/OutputFiles" -name '*.swift' | sort)
        # shellcheck disable=SC2046
        module Rules $(find "$root/Sources/Rules" -name '*.swift' | sort)
        extra="" libs="-lRules -lOutputFiles -lConversionModel -lAACCodec -lSndFile -lWAVEKit -lCAFKit $libs"
        libs="$libs -lCAVCodec -lCSndFile -lLazyLibrary -ldl -lpthread" ;;
    *) echo "Fuzz/build.sh: unknown target '$name' (caf, wave, ima4, manifest, inspection or rules)" >&2; exit 64 ;;
esac
main=$(find "$root/Fuzz" -maxdepth 2 -ipath "*/${name}fuzz/main.swift" | head -n 1)
# shellcheck disable=SC2086
swiftc $flags -module-name "$(basename "$(dirname "$main")")" "$main" $extra $libs \
    -o "$root/.build-fuzz/$name-fuzz"
echo "built $root/.build-fuzz/$name-fuzz"
