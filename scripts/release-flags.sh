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
# Start-up (issue 21; see ARCHITECTURE.md, "Command line and start-up"), Linux only:
# - a position-dependent executable (`-no-pie`): the dynamic linker then applies none of the
#   ~28,000 relative relocations of the static Swift runtime and standard library at every start,
#   and their pages are not copied on write (about 80 fewer page faults per process);
# - `-prespecialize-generic-metadata`: generic types' metadata the compiler can build ahead of
#   time is not instantiated at run time (the runtime's mangled-name lookups were a third of a
#   one-file conversion's instructions);
# - `-disable-concrete-type-metadata-mangled-name-accessors`: the metadata of a concrete generic
#   type (`Set<String>`, `[PathKey: Manifest.Entry]`) is made by calling its accessor with the
#   conformances the compiler knows, instead of from its mangled name, which made the runtime
#   check each requirement by searching every conformance record of the executable (about
#   130,000 instructions at the first use of each key type; 0.56 M of a one-file conversion's
#   3.14 M). The executable grows by about 17 KB;
# - no run path (`--disable-local-rpath`): SwiftPM's `$ORIGIN` made the dynamic linker look for
#   libc, libm and libgcc_s in 11 folders under the binary's own before the system's (33 failed
#   `openat`/`stat` calls at every start); cafconv ships no shared library of its own;
# - no exported symbols (`scripts/exports.map`): the static Swift runtime's link flags export
#   every public symbol of cafconv's modules (4,700), which nothing uses, and which made the
#   runtime's start-up `dladdr` walk them all (0.17 M instructions).
if [[ $(uname -s) == Linux ]]; then
    flags="$flags -Xswiftc -Xclang-linker -Xswiftc -no-pie -Xswiftc -Xfrontend -Xswiftc -prespecialize-generic-metadata"
    flags="$flags -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors"
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
