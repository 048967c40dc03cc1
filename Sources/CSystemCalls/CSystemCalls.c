#define _GNU_SOURCE
#include "CSystemCalls.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

int cafconv_exchange(const char *first, const char *second) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    return renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE);
#else
    (void)first; (void)second;
    errno = ENOSYS;
    return -1;
#endif
}
