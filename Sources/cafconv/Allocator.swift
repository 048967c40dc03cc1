import SystemLayer

/// glibc's allocator, tuned once at start-up for a process that converts many files one after
/// another on several threads.
///
/// By default glibc hands every block over 128 KiB to `mmap` and gives freed memory at the top of
/// a heap back with `brk`/`madvise` as soon as 128 KiB are free. A conversion allocates and frees
/// its block buffers (hundreds of KiB) once per file, so each file paid fresh pages again: about
/// 117 page faults per file over the sfx corpus, and every `mmap`/`munmap`/`brk` takes the
/// process's address-space lock for writing, which all the job threads' page faults wait on
/// (docs/performance.md, "Jobs and cores"). Keeping blocks of up to 32 MiB in the heap and
/// trimming only above 64 MiB free makes a file reuse the previous file's pages (about 4 faults
/// per file) without raising the peak: what is kept is what the jobs had in use.
/// `CAFCONV_MALLOC=glibc` keeps glibc's defaults, for comparing (bench/jobs-sweep.sh).
enum Allocator {
    static func keepFreedBlocks() {
        if let choice = getenv("CAFCONV_MALLOC"), String(cString: choice) == "glibc" { return }
        _ = cafconv_malloc_thresholds(32 << 20, 64 << 20)
    }
}
