#ifndef CAFCONV_CSYSTEMCALLS_H
#define CAFCONV_CSYSTEMCALLS_H
#include <stdint.h>
#include <sys/types.h>

/// Copies up to `length` bytes from `input` at `*input_offset` to `output` at `*output_offset`
/// inside the kernel (copy_file_range(2)), advancing both offsets by the bytes copied.
/// Returns the bytes copied, 0 at the end of the input, or -1 with errno set (ENOSYS where the
/// system has no such call).
ssize_t cafconv_copy_file_range(int input, int64_t *input_offset, int output, int64_t *output_offset, size_t length);

/// Swaps the files named `first` and `second` in the open folder `folder` in one step
/// (renameat2(2) with RENAME_EXCHANGE; neither name is followed if it is a symlink).
/// Returns 0, or -1 with errno set (EINVAL or ENOSYS where the file system or system cannot).
int cafconv_exchange_at(int folder, const char *first, const char *second);

/// Gives the file `from` in the open folder `folder` the name `to`, failing with EEXIST when
/// anything is at `to` (renameat2(2) with RENAME_NOREPLACE; where the system or file system
/// cannot, linkat(2) then unlinkat(2)). Returns 0, or -1 with errno set.
int cafconv_rename_noreplace_at(int folder, const char *from, const char *to);

/// A new anonymous file in memory, close-on-exec (memfd_create(2); where there is none, an
/// O_TMPFILE file in /tmp). Returns the descriptor, or -1 with errno set.
int cafconv_anonymous_file(const char *name);

/// Creates the new file `name` in the open folder `folder` (never through a symlink, never an
/// existing file: EEXIST) and returns it open for reading and writing, holding its flock(2).
/// Where the system can (O_TMPFILE, then linkat(2) through /proc/self/fd), the file only gets
/// its name once locked, so no other process ever sees it unlocked; elsewhere it is created
/// with O_CREAT | O_EXCL | O_NOFOLLOW and locked at once. Returns -1 with errno set on failure.
int cafconv_create_locked(int folder, const char *name, int mode);

/// An unnamed regular file in `folder` (O_TMPFILE), locked (flock LOCK_EX) and open for reading
/// and writing; nobody else can open it until cafconv_link_at gives it a name, and it vanishes
/// when closed unnamed. -1 with errno set where the system or file system has no O_TMPFILE.
int cafconv_create_anonymous(int folder, int mode);

/// Gives the open file `fd` the new name `name` in `folder` (linkat(2) through /proc/self/fd):
/// never replaces anything (EEXIST) and never follows a symlink at `name`. -1 with errno set.
int cafconv_link_at(int fd, int folder, const char *name);

/// Creates a file in the open folder `folder` that has no name (O_TMPFILE; where the system
/// cannot, the new file `fallback_name` is created with O_CREAT | O_EXCL | O_NOFOLLOW and unlinked
/// at once) and returns it open for reading and writing: it vanishes when closed, even if the
/// process dies. Returns -1 with errno set on failure.
int cafconv_create_unnamed(int folder, const char *fallback_name);

/// Reserves disk blocks for the first `length` bytes of `fd` (fallocate(2) with
/// FALLOC_FL_KEEP_SIZE: the size and content stay as they are). Returns 0, or -1 with errno set
/// (ENOSPC when the disk is full; EOPNOTSUPP or ENOSYS where the file system or system cannot).
int cafconv_reserve(int fd, int64_t length);

/// Replaces the actions of SIGINT and SIGTERM with a handler that only records the signal (with
/// SA_RESTART, so no system call fails with EINTR), and unblocks them on the calling thread. A
/// second signal while one is recorded ends the process by that signal's default action. A
/// signal the process inherited as ignored stays ignored. No thread is started. Not reentrant:
/// one watch at a time.
void cafconv_watch_interrupts(void);

/// Puts back the actions and the signal mask `cafconv_watch_interrupts` replaced.
void cafconv_unwatch_interrupts(void);

/// The number of the last SIGINT or SIGTERM received while watching, or 0.
int cafconv_interrupt_received(void);

/// Tells glibc's allocator to keep freed blocks of a conversion's size for the next file instead
/// of giving their pages back to the kernel (mallopt(3): blocks under 4 MiB come from the heap,
/// whose free top is trimmed only past 16 MiB). Without it every file's block buffers, a few
/// hundred KiB per job, were mapped, faulted in and zero-filled by the kernel again, and given
/// back when the file ended: most of a short file's CPU time. Memory stays bounded by the largest
/// buffers in use at once plus 16 MiB an arena. Does nothing outside glibc.
void cafconv_keep_freed_memory(void);

#endif
