/*
 * file-save.c: the opening of file-save.h. It opens and looks; it writes
 * nothing but the truncation it was asked for.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "file-save.h"
#include "xmalloc.h"

/* What a file of this mode is, in words; NULL for a regular file. */
static const char *
file_save_mode(mode_t mode)
{
	if (S_ISREG(mode))
		return NULL;
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	return "a special file";
}

const char *
file_save_kind(int dfd, const char *name)
{
	struct stat	sb;

	if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1)
		return NULL;
	return file_save_mode(sb.st_mode);
}

int
file_save_open(int dfd, const char *name, const char *shown, int flags,
    mode_t mode, char **cause)
{
	struct stat	 sb;
	const char	*kind;
	int		 fd, fl, saved, trunc = flags & O_TRUNC;

	flags &= ~(O_TRUNC | O_ACCMODE);
	fd = openat(dfd, name, flags | O_WRONLY | O_NONBLOCK | O_CLOEXEC, mode);
	if (fd == -1) {
		saved = errno;
		/*
		 * ENXIO (a FIFO nobody reads), ELOOP (a link, with
		 * O_NOFOLLOW), EISDIR: say what the name is, when it is
		 * something other than a regular file
		 */
		if (saved != EEXIST && fstatat(dfd, name, &sb,
		    (flags & O_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0) == 0 &&
		    (kind = file_save_mode(sb.st_mode)) != NULL)
			*cause = xasprintf("%s is not a regular file (%s)",
			    shown, kind);
		else
			*cause = xasprintf("%s: %s", shown, strerror(saved));
		errno = saved;
		return -1;
	}
	if (fstat(fd, &sb) == -1) {
		saved = errno;
		*cause = xasprintf("%s: %s", shown, strerror(saved));
		goto fail;
	}
	if ((kind = file_save_mode(sb.st_mode)) != NULL) {
		saved = EINVAL;
		*cause = xasprintf("%s is not a regular file (%s)", shown,
		    kind);
		goto fail;
	}
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1 ||
	    (trunc && ftruncate(fd, 0) == -1)) {
		saved = errno;
		*cause = xasprintf("%s: %s", shown, strerror(saved));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	errno = saved;
	return -1;
}
