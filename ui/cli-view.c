/*
 * cli-view.c: "steedmail --view FILE|-": a message file opened as the
 * pager opens it (message.h) and printed as plain text, with every byte
 * from the message made safe. Its security is drawn by the view's own
 * lines: a verdict after the headers, and each part's status above the
 * part; decrypted content is shown in place of its ciphertext, between
 * view lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "crypto.h"
#include "message.h"

#define CMD_VIEW_MAX	(256u * 1024 * 1024)

int
cmd_view_read(const char *path, struct buf *raw)
{
	int	fd, rc;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		cmd_error("cannot open %s: %s", path, strerror(errno));
		return EX_NOINPUT;
	}
	rc = buf_read_fd(raw, fd, CMD_VIEW_MAX);
	if (rc == -1 && errno == EFBIG) {
		cmd_error("%s is larger than %u MB", path,
		    CMD_VIEW_MAX / (1024 * 1024));
		rc = EX_DATAERR;
	} else if (rc == -1) {
		cmd_error("cannot read %s: %s", path, strerror(errno));
		rc = EX_IOERR;
	} else
		rc = EX_OK;
	if (fd != STDIN_FILENO)
		close(fd);
	return rc;
}

/* Set the GnuPG home up; a failure is a warning, verdicts say the rest. */
void
cmd_crypto_init(struct cmd_ctx *ctx)
{
	char	*cause = NULL;

	if (crypto_init(ctx->cf != NULL ? ctx->cf->gnupg_home : NULL,
	    &cause) == -1) {
		cmd_error("warning: %s", cause);
		free(cause);
	}
}

int
cmd_view(struct cmd_ctx *ctx)
{
	struct buf	 raw, out;
	struct message	*m;
	char		*cause = NULL;
	size_t		 len;
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
	cmd_crypto_init(ctx);
	len = raw.len;
	if ((m = message_open(buf_take(&raw), len, NULL, 0, &cause)) ==
	    NULL) {
		cmd_error("%s: %s", ctx->argv[0], cause);
		free(cause);
		return EX_DATAERR;
	}
	buf_init(&out);
	message_render(m, &out);
	if (fwrite(out.data, 1, out.len, stdout) != out.len ||
	    fflush(stdout) != 0) {
		cmd_error("cannot write to standard output");
		rc = EX_IOERR;
	}
	explicit_bzero(out.data, out.cap);
	buf_free(&out);
	message_free(m);
	return rc;
}
