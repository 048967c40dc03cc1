#!/usr/bin/env bash
# Prints the `swift build` flags of the release binary that `make release`, `make install` and
# `make bench` build: optimised, the Swift runtime linked statically, and libstdc++ (which the
# static Swift runtime needs) linked statically too when its archive is installed.
#
# Why libstdc++: loading libstdc++.so and resolving its symbols costs about 0.5 ms at every start,
# an eighth of a tiny-file conversion. SwiftPM has no switch for it, and the toolchain asks for
# `-lstdc++`, so this puts a folder holding only `libstdc++.a` (a link to the compiler's archive)
# ahead of the compiler's own folder on the library path: the linker looks for the .so and then the
# .a in each folder in turn, and takes the archive. Without the archive the flags are left out and
# the binary needs libstdc++.so.6 as before.
set -euo pipefail
cd "$(dirname "$0")/.."

flags="-c release --static-swift-stdlib"
# Linux only:
# - no run path (`--disable-local-rpath`): SwiftPM's `$ORIGIN` made the dynamic linker look for
#   libc, libm and libgcc_s in 11 folders under the binary's own before the system's at every
#   start; cafconv ships no shared library of its own;
# - no exported symbols (`scripts/exports.map`): the static Swift runtime's link flags export
#   every public symbol of cafconv's modules, which nothing uses and which the runtime's start-up
#   `dladdr` walks.
# The binary stays position-independent (ASLR: it parses untrusted files), and no frontend flag
# the compiler does not document is passed.
if [[ $(uname -s) == Linux ]]; then
    if [[ $PWD != *[[:space:]]* ]]; then
        flags="$flags --disable-local-rpath -Xlinker --version-script=$PWD/scripts/exports.map"
    fi
fi
archive=""
# The toolchain's clang first: it drives the link, so its choice of GCC installation is the one
# whose archive matches.
for compiler in clang g++ gcc c++ cc; do
    if command -v "$compiler" >/dev/null; then
        candidate=$("$compiler" -print-file-name=libstdc++.a 2>/dev/null || true)
        if [[ $candidate == /* && -f $candidate ]]; then
            archive=$candidate
            break
        fi
    fi
done
if [[ -z $archive ]]; then
    archive=$(find /usr/lib/gcc -name libstdc++.a 2>/dev/null | sort -V | tail -1 || true)
fi
# The flags are split on spaces by the callers, so a checkout path with spaces keeps the .so.
if [[ -n $archive && $PWD != *[[:space:]]* ]]; then
    folder="$PWD/.build/static-libstdc++"
    mkdir -p "$folder"
    ln -sfn "$archive" "$folder/libstdc++.a"
    flags="$flags -Xlinker -L$folder"
fi
echo "$flags"
