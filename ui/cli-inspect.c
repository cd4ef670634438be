/*
 * cli-inspect.c: "steedmail --inspect FILE|- ...": a message's security
 * verdicts (opened by message.h, as --view and the pager open it) as
 * "key: value" lines, one fact a line, for
 * scripts and tests. doc/inspect.md defines the format and promises to
 * keep it; every value goes through strsafe(), so no line can be forged
 * or broken by what a message holds.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "buf.h"
#include "cli.h"
#include "crypto-in.h"
#include "message.h"
#include "strsafe.h"
#include "trust-store.h"
#include "verdict.h"
#include "xmalloc.h"

/* "key: value", the value made terminal-safe and kept on one line. */
static void
cmd_inspect_kv(const char *key, const char *fmt, ...)
{
	va_list	 ap;
	char	*v, *prefix;

	va_start(ap, fmt);
	v = xvasprintf(fmt, ap);
	va_end(ap);
	prefix = xasprintf("%s: ", key);
	cmd_print(stdout, prefix, "%s", v);
	free(prefix);
	free(v);
}

static void
cmd_inspect_sigs(const struct crypto_in *ci)
{
	const struct crypto_in_sig	*s;
	char				 key[64], date[16];
	size_t				 i;

	cmd_inspect_kv("signatures", "%zu", ci->nsigs);
	for (i = 0; i < ci->nsigs; i++) {
		s = &ci->sigs[i];
#define SIGKEY(name) (snprintf(key, sizeof key, "signature.%zu.%s", i + 1, \
	name), key)
		cmd_inspect_kv(SIGKEY("part"), "%s", s->name);
		cmd_inspect_kv(SIGKEY("protocol"), "%s",
		    crypto_in_proto_name(s->proto));
		cmd_inspect_kv(SIGKEY("status"), "%s",
		    crypto_in_status_name(s->status));
		cmd_inspect_kv(SIGKEY("fpr"), "%s", s->fpr != NULL ? s->fpr :
		    "none");
		cmd_inspect_kv(SIGKEY("signer"), "%s", s->signer != NULL ?
		    s->signer : "none");
		cmd_inspect_kv(SIGKEY("validity"), "%s", s->validity);
		cmd_inspect_kv(SIGKEY("from"), "%s", s->from != NULL ?
		    s->from : "none");
		cmd_inspect_kv(SIGKEY("matches-from"), "%s",
		    s->matches_from ? "yes" : "no");
		if (s->created != 0)
			cmd_inspect_kv(SIGKEY("created"), "%s",
			    crypto_in_date(s->created, date, sizeof date));
		if (s->reason != NULL)
			cmd_inspect_kv(SIGKEY("reason"), "%s", s->reason);
#undef SIGKEY
	}
}

static void
cmd_inspect_autocrypt(const struct crypto_in *ci)
{
	const struct autocrypt_result	*r = &ci->autocrypt;
	const struct autocrypt_key	*k;
	char				 key[64];
	size_t				 i, g = 0;

	switch (r->state) {
	case AUTOCRYPT_VALID:
		cmd_inspect_kv("autocrypt", "valid");
		break;
	case AUTOCRYPT_INVALID:
		cmd_inspect_kv("autocrypt", "invalid (%s)", r->reason);
		break;
	default:
		cmd_inspect_kv("autocrypt", "none");
		break;
	}
	for (i = 0; i < r->nkeys; i++) {
		k = &r->keys[i];
		if (k->source == AUTOCRYPT_HEADER) {
			cmd_inspect_kv("autocrypt.addr", "%s", k->addr);
			cmd_inspect_kv("autocrypt.fpr", "%s", k->fpr);
			cmd_inspect_kv("autocrypt.prefer-encrypt", "%s",
			    k->mutual ? "mutual" : "nopreference");
			continue;
		}
		g++;
		snprintf(key, sizeof key, "gossip.%zu.addr", g);
		cmd_inspect_kv(key, "%s", k->addr);
		snprintf(key, sizeof key, "gossip.%zu.fpr", g);
		cmd_inspect_kv(key, "%s", k->fpr);
	}
}

/* The message's verdict and its one security line, as the pager has them. */
static void
cmd_inspect_verdict(const struct message *m)
{
	const struct verdict_word	*w = verdict_protection(
					    message_verdict(m));
	enum verdict_tone		 tone;
	char				*line, *warning;

	line = message_security(m, &tone, &warning);
	cmd_inspect_kv("verdict", "%s", w->token);
	cmd_inspect_kv("verdict.word", "%s", w->word);
	cmd_inspect_kv("verdict.line", "%s", line);
	cmd_inspect_kv("verdict.tone", "%s", verdict_tone_name(tone));
	if (warning != NULL)
		cmd_inspect_kv("verdict.warning", "%s", warning);
	free(line);
	free(warning);
}

/* The sender's trust state (doc/trust.md), recorded in the trust store. */
static void
cmd_inspect_trust(const struct message *m)
{
	const struct trust_verdict	*v = &m->trust;

	if (!m->have_trust) {
		cmd_inspect_kv("trust.state", "none");
		cmd_inspect_kv("trust.evidence", "%s", v->evidence != NULL ?
		    v->evidence : "unknown");
		return;
	}
	cmd_inspect_kv("trust.state", "%s", trust_state_name(v->state));
	cmd_inspect_kv("trust.word", "%s", verdict_trust(v->state)->word);
	cmd_inspect_kv("trust.fpr", "%s", v->fpr != NULL ? v->fpr : "none");
	if (v->other != NULL)
		cmd_inspect_kv("trust.other-fpr", "%s", v->other);
	cmd_inspect_kv("trust.since", "%s", v->since != 0 ?
	    trust_date(v->since) : "none");
	cmd_inspect_kv("trust.messages", "%ld", v->messages);
	cmd_inspect_kv("trust.evidence", "%s", v->evidence);
}

/*
 * Part statuses in the order the view shows the parts (message.h's part
 * tree); content shown for a part has its root named as that part, so
 * their sentences are joined.
 */
static void
cmd_inspect_parts(const struct message *m)
{
	const struct message_part	*mp;
	struct buf			 line;
	const char			*last = NULL;
	size_t				 i;

	buf_init(&line);
	for (i = 0; i < m->nparts; i++) {
		mp = &m->parts[i];
		if (mp->status == NULL)
			continue;
		if (last != NULL && strcmp(last, mp->name) == 0) {
			buf_adds(&line, "; ");
			buf_adds(&line, mp->status);
			continue;
		}
		if (last != NULL)
			cmd_inspect_kv(line.data, "%s", line.data +
			    strlen(line.data) + 1);
		last = mp->name;
		buf_reset(&line);
		buf_addf(&line, "part.%s", mp->name);
		buf_addc(&line, '\0');
		buf_adds(&line, mp->status);
	}
	if (last != NULL)
		cmd_inspect_kv(line.data, "%s", line.data + strlen(line.data) +
		    1);
	buf_free(&line);
}

/* One message's summary; EX_OK or why not. */
static int
cmd_inspect_one(struct cmd_ctx *ctx, const char *path)
{
	struct buf		 raw;
	struct message		*m;
	const struct crypto_in	*ci;
	char			*cause = NULL;
	size_t			 i, len;

	buf_init(&raw);
	if (cmd_view_read(path, &raw) != EX_OK) {
		buf_free(&raw);
		return EX_DATAERR;
	}
	cmd_crypto_init(ctx);
	len = raw.len;
	if ((m = message_open(buf_take(&raw), len, NULL, 0, &cause)) ==
	    NULL) {
		cmd_error("%s: %s", path, cause);
		free(cause);
		return EX_DATAERR;
	}
	ci = m->ci;
	cmd_inspect_kv("encryption", "%s", crypto_in_proto_name(ci->encryption));
	if (ci->encryption != CRYPTO_IN_NONE) {
		cmd_inspect_kv("integrity", "%s",
		    crypto_in_integrity_name(ci->integrity));
		if (ci->decrypted)
			cmd_inspect_kv("decrypted", "yes");
		else
			cmd_inspect_kv("decrypted", "no (%s)",
			    ci->not_decrypted != NULL ? ci->not_decrypted :
			    "unknown");
	}
	cmd_inspect_kv("signed", "%s", ci->signed_state);
	cmd_inspect_kv("summary", "%s", ci->summary);
	cmd_inspect_sigs(ci);
	cmd_inspect_kv("protected-headers", "%s", ci->protected != NULL ?
	    "yes" : "no");
	cmd_inspect_autocrypt(ci);
	cmd_inspect_verdict(m);
	cmd_inspect_trust(m);
	cmd_inspect_parts(m);
	for (i = 0; i < m->nnotes; i++) {
		if (m->notes[i].kind == MESSAGE_NOTE_WARNING)
			cmd_inspect_kv("warning", "%s", m->notes[i].text);
	}
	message_free(m);
	return EX_OK;
}

/*
 * One file: its summary. Several (one process for many messages, as the
 * pager will be): each summary starts with "file: NAME" and ends with an
 * empty line; a file that cannot be read or parsed is said on stderr and
 * the others are still done.
 */
int
cmd_inspect(struct cmd_ctx *ctx)
{
	int	i, rc, worst = EX_OK, stdin_seen = 0;

	if (ctx->argc < 1) {
		cmd_error("usage: steedmail --inspect FILE|- [FILE...]");
		return EX_USAGE;
	}
	for (i = 0; i < ctx->argc; i++) {
		if (strcmp(ctx->argv[i], "-") == 0 && stdin_seen++) {
			cmd_error("--inspect: - (standard input) given twice");
			return EX_USAGE;
		}
	}
	for (i = 0; i < ctx->argc; i++) {
		if (ctx->argc > 1)
			cmd_inspect_kv("file", "%s", ctx->argv[i]);
		if ((rc = cmd_inspect_one(ctx, ctx->argv[i])) != EX_OK) {
			if (ctx->argc > 1)
				cmd_inspect_kv("error", "cannot be read or "
				    "parsed (see standard error)");
			worst = rc;
		}
		if (ctx->argc > 1)
			putchar('\n');
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cmd_error("cannot write to standard output");
		return EX_IOERR;
	}
	return worst;
}
