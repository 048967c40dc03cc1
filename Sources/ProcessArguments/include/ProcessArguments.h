// Nothing to call: ProcessArguments.c defines, on glibc, the two runtime functions behind the
// Swift standard library's `CommandLine` (see there). SwiftPM wants a header folder per C target.
