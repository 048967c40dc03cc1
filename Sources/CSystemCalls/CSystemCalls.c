#define _GNU_SOURCE
#include "CSystemCalls.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <unistd.h>

ssize_t cafconv_copy_file_range(int input, int64_t *input_offset, int output, int64_t *output_offset, size_t length) {
#if defined(__linux__)
    off_t in = (off_t)*input_offset;
    off_t out = (off_t)*output_offset;
    ssize_t copied = copy_file_range(input, &in, output, &out, length, 0);
    if (copied > 0) {
        *input_offset = (int64_t)in;
        *output_offset = (int64_t)out;
    }
    return copied;
#else
    (void)input; (void)input_offset; (void)output; (void)output_offset; (void)length;
    errno = ENOSYS;
    return -1;
#endif
}

int cafconv_rename_noreplace_at(int folder, const char *from, const char *to) {
#if defined(__linux__) && defined(RENAME_NOREPLACE)
    int renamed = renameat2(folder, from, folder, to, RENAME_NOREPLACE);
    if (renamed == 0 || (errno != EINVAL && errno != ENOSYS)) return renamed;
#endif
    // No renameat2 here: a hard link never replaces, then the old name goes.
    if (linkat(folder, from, folder, to, 0) != 0) return -1;
    unlinkat(folder, from, 0);
    return 0;
}

int cafconv_exchange_at(int folder, const char *first, const char *second) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    return renameat2(folder, first, folder, second, RENAME_EXCHANGE);
#else
    (void)folder; (void)first; (void)second;
    errno = ENOSYS;
    return -1;
#endif
}

int cafconv_create_anonymous(int folder, int mode) {
#if defined(__linux__) && defined(O_TMPFILE)
    int fd = openat(folder, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
    if (fd >= 0) flock(fd, LOCK_EX | LOCK_NB);
    return fd;
#else
    (void)folder; (void)mode;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

int cafconv_link_at(int fd, int folder, const char *name) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, path, folder, name, AT_SYMLINK_FOLLOW);
}

int cafconv_create_locked(int folder, const char *name, int mode) {
#if defined(__linux__) && defined(O_TMPFILE)
    // An unnamed file, locked, then given its name: no other process can see it unlocked.
    int fd = cafconv_create_anonymous(folder, mode);
    if (fd >= 0) {
        if (cafconv_link_at(fd, folder, name) == 0) return fd;
        int code = errno;
        close(fd);
        // The name is taken (never followed: linkat does not follow the new name), or the
        // folder cannot hold more names: a real answer. Otherwise (no /proc), fall back.
        if (code == EEXIST || code == ENOSPC || code == EDQUOT || code == EACCES || code == EPERM ||
            code == EROFS || code == EMLINK || code == ENAMETOOLONG) {
            errno = code;
            return -1;
        }
    }
#endif
    int created = openat(folder, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (created >= 0) flock(created, LOCK_EX | LOCK_NB);
    return created;
}

int cafconv_create_unnamed(int folder, const char *fallback_name) {
#if defined(__linux__) && defined(O_TMPFILE)
    int fd = openat(folder, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
#endif
    int created = openat(folder, fallback_name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (created >= 0) unlinkat(folder, fallback_name, 0);
    return created;
}

int cafconv_reserve(int fd, int64_t length) {
#if defined(__linux__)
    return fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)length);
#else
    (void)fd; (void)length;
    errno = ENOSYS;
    return -1;
#endif
}

static atomic_int received_signal;
static const int watched_signals[] = {SIGINT, SIGTERM};
static struct sigaction previous_actions[2];
static int watching[2];
static sigset_t previous_mask;
static int mask_changed;

static void record_signal(int number) {
    if (atomic_exchange(&received_signal, number) == 0) return;
    // A second signal: stop at once, by the signal's default action (the next run deletes the
    // temporary files left behind). Both calls are async-signal-safe; the signal is blocked
    // until this handler returns, then delivered.
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(number, &fallback, NULL);
    raise(number);
}

void cafconv_watch_interrupts(void) {
    atomic_store(&received_signal, 0);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = record_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int i = 0; i < 2; i++) {
        watching[i] = 0;
        if (sigaction(watched_signals[i], NULL, &previous_actions[i]) != 0) continue;
        // A signal the parent ignores (SIGINT in a shell's background job) stays ignored.
        if (previous_actions[i].sa_handler == SIG_IGN) continue;
        watching[i] = sigaction(watched_signals[i], &action, NULL) == 0;
    }
    // A parent may start us with these signals blocked (a thread that spawns with its own mask):
    // they would then never arrive.
    sigset_t unblock;
    sigemptyset(&unblock);
    for (int i = 0; i < 2; i++) {
        if (watching[i]) sigaddset(&unblock, watched_signals[i]);
    }
    mask_changed = pthread_sigmask(SIG_UNBLOCK, &unblock, &previous_mask) == 0;
}

void cafconv_unwatch_interrupts(void) {
    // The mask first: a signal the parent had blocked stays pending instead of meeting the
    // restored default action in between.
    if (mask_changed) pthread_sigmask(SIG_SETMASK, &previous_mask, NULL);
    mask_changed = 0;
    for (int i = 0; i < 2; i++) {
        if (watching[i]) sigaction(watched_signals[i], &previous_actions[i], NULL);
        watching[i] = 0;
    }
}

int cafconv_interrupt_received(void) {
    return atomic_load(&received_signal);
}

int cafconv_anonymous_file(const char *name) {
#if defined(__linux__) && defined(MFD_CLOEXEC)
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd >= 0 || errno != ENOSYS) return fd;
#endif
#if defined(O_TMPFILE)
    (void)name;
    return open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#else
    (void)name;
    errno = ENOSYS;
    return -1;
#endif
}

void cafconv_keep_freed_memory(void) {
#if defined(__GLIBC__)
    // Setting either value also stops glibc from moving them as blocks come and go.
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, 16 << 20);
#endif
}
