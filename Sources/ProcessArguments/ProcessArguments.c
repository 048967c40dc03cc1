// Start-up cost, not function: the Swift standard library reads `CommandLine.arguments` through
// `_swift_stdlib_getUnsafeArgvArgc`. On Linux its own definition (CommandLine.cpp in the runtime)
// finds argv with a static initialiser that opens /proc/self/maps and scans it with sscanf to
// locate the stack, at every start of every process: about 0.24 M instructions and a kernel
// rendering of the whole memory map, a tenth of `cafconv --version`. glibc already hands argc
// and argv to every `.init_array` function (a documented glibc extension), so this file takes
// them there and defines the two functions of that runtime file. Linked statically (the release
// build, `--static-swift-stdlib`), the linker then never pulls CommandLine.cpp's object out of
// libswiftCore.a, since nothing is left undefined for it; with the shared runtime (debug builds)
// these definitions agree with the runtime's. Elsewhere (musl, which passes no arguments to
// `.init_array` functions; other systems), nothing is defined and the runtime's code runs.
// Any C library header defines __GLIBC__ on glibc.
#include <stdlib.h>

#if defined(__linux__) && defined(__GLIBC__)

static char **captured_argv;
static int captured_argc;
static char **override_argv;
static int override_argc;

static void capture(int argc, char **argv, char **envp) {
    (void)envp;
    captured_argc = argc;
    captured_argv = argv;
}

__attribute__((section(".init_array"), used)) static void (*const capture_at_start)(int, char **, char **) = capture;

// The runtime's entry points, with its signatures (swift/stdlib/public/CommandLineSupport).
char **_swift_stdlib_getUnsafeArgvArgc(int *count) {
    if (override_argv) {
        *count = override_argc;
        return override_argv;
    }
    *count = captured_argc;
    return captured_argv;
}

void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
    override_argv = argv;
    override_argc = argc;
}

#endif
