#ifndef CAFCONV_CSNDFILE_SHIM_H
#define CAFCONV_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
