/*
 * cli-view.c: "steedmail --view FILE|-": a message file shown as the pager
 * shows it, as plain text, with every byte from the message made safe.
 * Its security (crypto-in.c) is drawn by the view's own lines: a verdict
 * after the headers, and each part's status above the part; decrypted
 * content is shown in place of its ciphertext, between view lines.
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
#include "crypto-in.h"
#include "mime-parse.h"
#include "trust-store.h"
#include "view.h"
#include "xmalloc.h"

#define CMD_VIEW_MAX	(256u * 1024 * 1024)

int
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

static void
cmd_view_note(struct view_hooks *h, char *s)
{
	struct view_note	*n = (struct view_note *)h->notes;

	n = xreallocarray(n, h->nnotes + 1, sizeof *n);
	n[h->nnotes].role = VIEW_NOTE;
	n[h->nnotes++].text = s;
	h->notes = n;
}

int
cmd_view(struct cmd_ctx *ctx)
{
	struct buf		 raw, out;
	struct mime_msg		*m;
	struct crypto_in	*ci;
	struct view_hooks	 h;
	struct trust_verdict	 tv;
	char			*cause = NULL;
	size_t			 i, len;
	int			 rc;

	if (ctx->argc != 1) {
		cmd_error("usage: steedmail --view FILE|-");
		return EX_USAGE;
	}
	buf_init(&raw);
	if ((rc = cmd_view_read(ctx->argv[0], &raw)) != EX_OK) {
		buf_free(&raw);
		return rc;
	}
	len = raw.len;
	if ((m = mime_parse(buf_take(&raw), len, &cause)) == NULL) {
		cmd_error("%s: %s", ctx->argv[0], cause);
		free(cause);
		return EX_DATAERR;
	}
	cmd_crypto_init(ctx);
	ci = crypto_in_analyse(m, 0);
	memset(&h, 0, sizeof h);
	h.status = crypto_in_view_status;
	h.inner = crypto_in_view_inner;
	h.headers = ci->protected;
	h.arg = ci;
	cmd_view_note(&h, ci->encryption == CRYPTO_IN_NONE &&
	    ci->nsigs == 0 && ci->nparts == 0 ?
	    xstrdup("security: not signed, not encrypted") :
	    xasprintf("security: %s", ci->summary));
	/* The sender's trust state, as the trust store has it. */
	if (cmd_trust_message(ci, &tv) == 0)
		cmd_view_note(&h, xasprintf("trust: %s%s%s%s",
		    trust_state_name(tv.state), tv.fpr != NULL ? ", key " : "",
		    tv.fpr != NULL ? tv.fpr : "", tv.state == TRUST_KEY_CHANGED ||
		    tv.state == TRUST_CONFLICT ? " -- WARNING: not the key "
		    "known for this sender" : ""));
	trust_verdict_free(&tv);
	if (ci->protected != NULL)
		cmd_view_note(&h, xstrdup("protected headers used: the "
		    "headers above come from inside the message"));
	for (i = 0; i < ci->nwarnings; i++)
		cmd_view_note(&h, xasprintf("warning: %s", ci->warnings[i]));
	buf_init(&out);
	view_render_hooks(m, &out, &h);
	if (fwrite(out.data, 1, out.len, stdout) != out.len ||
	    fflush(stdout) != 0) {
		cmd_error("cannot write to standard output");
		rc = EX_IOERR;
	}
	for (i = 0; i < h.nnotes; i++)
		free((char *)h.notes[i].text);
	free((void *)h.notes);
	explicit_bzero(out.data, out.cap);
	buf_free(&out);
	crypto_in_free(ci);
	mime_msg_free(m);
	return rc;
}
