/*
 * atomic.c: a file replaced whole or not at all (atomic.h): the outbox,
 * the password file, the key memo, the configuration and the DNS records
 * file all write this way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic.h"
#include "xmalloc.h"

int
atomic_sync_dir(const char *dir)
{
	int	fd, rc;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

int
atomic_write(const char *path, const void *data, size_t len, char **cause)
{
	const char	*p = data, *slash;
	char		*tmp, *dir;
	size_t		 off = 0;
	ssize_t		 n;
	int		 fd, e;

	/* hidden, so that nobody reading the directory takes it for one
	 * of its files while it is being written */
	slash = strrchr(path, '/');
	dir = slash == NULL ? xstrdup(".") : slash == path ? xstrdup("/") :
	    xstrndup(path, slash - path);
	tmp = xasprintf("%s/.%s.tmp-XXXXXX", dir, slash == NULL ? path :
	    slash + 1);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		*cause = xasprintf("cannot write %s: %s", path,
		    strerror(errno));
		free(tmp);
		free(dir);
		return -1;
	}
	while (off < len) {
		n = write(fd, p + off, len - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			goto fail;
		}
		off += n;
	}
	if (fsync(fd) == -1)
		goto fail;
	if (close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) == -1)
		goto fail;
	free(tmp);
	/* the file is in place; a directory that cannot be flushed (a
	 * file system that does not allow it) is not a failure */
	(void)atomic_sync_dir(dir);
	free(dir);
	return 0;

fail:
	e = errno;
	*cause = xasprintf("cannot write %s: %s", path, strerror(e));
	if (fd != -1)
		close(fd);
	unlink(tmp);
	free(tmp);
	free(dir);
	errno = e;
	return -1;
}
