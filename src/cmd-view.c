/*
 * cmd-view.c: "steedmail --view FILE|-": a message file shown as the pager
 * shows it, as plain text, with every byte from the message made safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "buf.h"
#include "cmd.h"
#include "view.h"
#include "xmalloc.h"

#define CMD_VIEW_MAX	(256u * 1024 * 1024)

static int
cmd_view_read(const char *path, struct buf *raw)
{
	char	chunk[65536];
	ssize_t	n;
	int	fd;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		cmd_error("cannot open %s: %s", path, strerror(errno));
		return EX_NOINPUT;
	}
	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			cmd_error("cannot read %s: %s", path, strerror(errno));
			if (fd != STDIN_FILENO)
				close(fd);
			return EX_IOERR;
		}
		if (raw->len + n > CMD_VIEW_MAX) {
			cmd_error("%s is larger than %u MB", path,
			    CMD_VIEW_MAX / (1024 * 1024));
			if (fd != STDIN_FILENO)
				close(fd);
			return EX_DATAERR;
		}
		buf_add(raw, chunk, n);
	}
	if (fd != STDIN_FILENO)
		close(fd);
	return EX_OK;
}

int
cmd_view(struct cmd_ctx *ctx)
{
	struct buf	 raw, out;
	char		*cause = NULL;
	int		 rc;

	if (ctx->argc != 1) {
		cmd_error("usage: steedmail --view FILE|-");
		return EX_USAGE;
	}
	buf_init(&raw);
	if ((rc = cmd_view_read(ctx->argv[0], &raw)) != EX_OK) {
		buf_free(&raw);
		return rc;
	}
	buf_init(&out);
	if (view_render(raw.data != NULL ? raw.data : "", raw.len, &out,
	    &cause) == -1) {
		cmd_error("%s: %s", ctx->argv[0], cause);
		free(cause);
		rc = EX_DATAERR;
	} else if (fwrite(out.data, 1, out.len, stdout) != out.len ||
	    fflush(stdout) != 0) {
		cmd_error("cannot write to standard output");
		rc = EX_IOERR;
	}
	buf_free(&raw);
	buf_free(&out);
	return rc;
}
