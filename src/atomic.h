/*
 * atomic.h: a file replaced whole or not at all. The bytes go to a
 * temporary file beside it (mode 0600, unique name), which is flushed to
 * disk, then renamed over the file, and the directory is flushed too: a
 * crash or a full disk leaves the old file or the new one, never a part.
 */
#ifndef STEED_ATOMIC_H
#define STEED_ATOMIC_H

#include <stddef.h>

/* Replace path with the len bytes at data. 0, or -1 with *cause. */
int	atomic_write(const char *path, const void *data, size_t len,
	    char **cause);
/* Flush a directory's entries to disk; 0, or -1 with errno. */
int	atomic_sync_dir(const char *dir);

#endif
