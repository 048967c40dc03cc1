#ifndef CAFCONV_CSOXR_SHIM_H
#define CAFCONV_CSOXR_SHIM_H
#include <soxr.h>
#endif
