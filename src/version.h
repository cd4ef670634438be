/* version.h: the release number, shown by --version. */
#ifndef STEED_VERSION
#define STEED_VERSION "0.1.0"
#endif
