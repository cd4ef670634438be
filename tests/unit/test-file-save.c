/*
 * test-file-save.c: file-save.h never opens anything but a regular file
 * for writing, and never waits: a FIFO with no reader and one with a
 * reader, a directory, a link (with O_NOFOLLOW), each refused in a
 * sentence; a regular file opened, truncated only when asked, and left
 * blocking.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file-save.h"
#include "tap.h"

static char	dir[] = "/tmp/test-file-save.XXXXXX";
static int	dfd = -1;

/* Open dir/name with flags; the cause, or "fd" when it opened. */
static char *
try(const char *name, int flags, int *fdp)
{
	char	 shown[256], *cause = NULL;
	int	 fd;

	snprintf(shown, sizeof shown, "%s", name);
	fd = file_save_open(dfd, name, shown, flags, 0600, &cause);
	if (fdp != NULL)
		*fdp = fd;
	else if (fd != -1)
		close(fd);
	return fd != -1 ? strdup("fd") : cause;
}

int
main(void)
{
	char	 path[512], *got;
	int	 fd, rd, fl;

	if (mkdtemp(dir) == NULL || chdir(dir) == -1 ||
	    (dfd = open(dir, O_RDONLY | O_DIRECTORY)) == -1)
		return 1;

	if (mkfifo("fifo", 0600) == -1)
		return 1;
	got = try("fifo", O_NOFOLLOW | O_TRUNC, NULL);
	TAP_STR(got, "fifo is not a regular file (a FIFO)",
	    "a FIFO nobody reads: refused at once");
	free(got);
	/* a reader there: open() would succeed, fstat() refuses */
	rd = open("fifo", O_RDONLY | O_NONBLOCK);
	got = try("fifo", 0, NULL);
	TAP_STR(got, "fifo is not a regular file (a FIFO)",
	    "a FIFO someone reads: refused too");
	free(got);
	if (rd != -1)
		close(rd);

	mkdir("sub", 0700);
	got = try("sub", 0, NULL);
	TAP_STR(got, "sub is not a regular file (a directory)",
	    "a directory");
	free(got);

	snprintf(path, sizeof path, "%s/target", dir);
	if (symlink(path, "link") == -1)
		return 1;
	got = try("link", O_CREAT | O_NOFOLLOW, NULL);
	TAP_STR(got, "link is not a regular file (a symbolic link)",
	    "a link with O_NOFOLLOW");
	free(got);
	TAP_OK(access("target", F_OK) == -1, "... its target not made");

	got = try("new", O_CREAT | O_EXCL, &fd);
	TAP_STR(got, "fd", "a new file is made");
	free(got);
	TAP_OK(fd != -1 && write(fd, "hello", 5) == 5, "... and written");
	fl = fd != -1 ? fcntl(fd, F_GETFL) : -1;
	TAP_OK(fl != -1 && (fl & O_NONBLOCK) == 0 &&
	    (fl & O_ACCMODE) == O_WRONLY, "... write-only, not non-blocking");
	if (fd != -1)
		close(fd);
	got = try("new", O_CREAT | O_EXCL, NULL);
	TAP_OK(got != NULL && errno == EEXIST && strstr(got, "new: ") == got,
	    "O_EXCL on a file that is there: the system's reason (%s)",
	    got != NULL ? got : "");
	free(got);
	got = try("new", 0, &fd);
	if (fd != -1)
		close(fd);
	TAP_OK(got != NULL && strcmp(got, "fd") == 0 &&
	    access("new", F_OK) == 0, "a regular file opens");
	free(got);
	{
		struct stat	sb;

		TAP_OK(stat("new", &sb) == 0 && sb.st_size == 5,
		    "... without O_TRUNC it keeps its bytes");
		free(try("new", O_TRUNC, NULL));
		TAP_OK(stat("new", &sb) == 0 && sb.st_size == 0,
		    "... with O_TRUNC, emptied once known to be regular");
	}

	unlink("fifo");
	unlink("link");
	unlink("new");
	rmdir("sub");
	close(dfd);
	if (chdir("/") == 0)
		rmdir(dir);
	return TAP_DONE();
}
