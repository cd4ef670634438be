/*
 * cli-trust.c: "steedmail --trust list | show ADDR | verify ADDR FPR |
 * accept ADDR [FPR] | reject ADDR FPR | forget ADDR | export FILE |
 * import FILE": the trust store
 * (trust-store.h) for the user, and the trust state of a message for
 * --inspect and --view. Everything shown goes
 * through strsafe(): addresses and evidence may come from messages.
 *
 * An address has a pin per protocol. list shows one line per address,
 * with the state and pin of its main protocol (OpenPGP, or S/MIME when
 * it has nothing for OpenPGP); show adds a "pin:" line per protocol when
 * both have one.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "crypto-in.h"
#include "file-save.h"
#include "strsafe.h"
#include "trust-move.h"
#include "trust-msg.h"
#include "trust-store.h"
#include "verdict.h"
#include "xmalloc.h"

/* A fingerprint operand: 40 or 64 hex digits, spaces allowed. */
static char *
cmd_trust_fpr(const char *arg)
{
	char	*f;
	size_t	 n = 0;

	f = xmalloc(strlen(arg) + 1);
	for (; *arg != '\0'; arg++) {
		if (*arg == ' ')
			continue;
		if (!isxdigit((unsigned char)*arg)) {
			free(f);
			return NULL;
		}
		f[n++] = (char)toupper((unsigned char)*arg);
	}
	f[n] = '\0';
	if (n != 40 && n != 64) {
		free(f);
		return NULL;
	}
	return f;
}

static int
cmd_trust_list(struct trust_store *ts)
{
	struct trust_peer	  p;
	char			**addrs, *cause = NULL;
	size_t			  n, i;

	if (trust_store_list(ts, &addrs, &n, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_SOFTWARE;
	}
	for (i = 0; i < n; i++) {
		if (trust_store_peer(ts, addrs[i], &p, &cause) == 0) {
			char *safe = strsafe(addrs[i], 0);
			/* Tabs between fields: strsafe() would show them. */
			printf("%s\t%s\t%s\n", safe,
			    trust_state_name(p.v.state), p.pinned != NULL ?
			    p.pinned : "none");
			free(safe);
			trust_peer_free(&p);
		} else {
			free(cause);
			cause = NULL;
		}
		free(addrs[i]);
	}
	free(addrs);
	return EX_OK;
}

static int
cmd_trust_show(struct trust_store *ts, const char *addr)
{
	struct trust_peer	 p;
	struct trust_dns	 d;
	struct trust_key	*k;
	char			*cause = NULL, *src, first[16], last[16];
	size_t			 i;

	if (trust_store_peer(ts, addr, &p, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_SOFTWARE;
	}
	cmd_print(stdout, "", "address: %s", p.addr);
	cmd_print(stdout, "", "state: %s", trust_state_name(p.v.state));
	/* what every screen calls it (a new key waiting shows as a change) */
	cmd_print(stdout, "", "shown as: %s", verdict_trust(p.shown)->word);
	cmd_print(stdout, "", "pinned: %s%s", p.pinned != NULL ? p.pinned : "none",
	    p.pinned != NULL && !p.usable ? " (not usable)" : "");
	if (p.v.other != NULL)
		cmd_print(stdout, "", "other: %s", p.v.other);
	cmd_print(stdout, "", "evidence: %s", p.v.evidence);
	if (p.pins[TRUST_OPENPGP].present && p.pins[TRUST_SMIME].present) {
		for (i = 0; i < TRUST_NPROTO; i++) {
			const struct trust_peer_pin *pp = &p.pins[i];
			cmd_print(stdout, "", "pin: %s %s %s%s%s%s", pp->proto,
			    pp->pinned != NULL ? pp->pinned : "none",
			    trust_state_name(pp->v.state),
			    pp->v.other != NULL ? "; other " : "",
			    pp->v.other != NULL ? pp->v.other : "",
			    pp->pinned != NULL && !pp->usable ?
			    " (not usable)" : "");
		}
	}
	if (trust_store_dns(ts, p.addr, &d, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		cause = NULL;
	} else if (d.bogus != 0)
		cmd_print(stdout, "", "dns: DNS answer bogus (%s, %s)",
		    trust_date(d.bogus), d.owner != NULL ? d.owner : "?");
	trust_dns_free(&d);
	for (i = 0; i < p.nkeys; i++) {
		k = &p.keys[i];
		src = trust_sources_text(k->sources);
		snprintf(first, sizeof first, "%s", trust_date(k->first_seen));
		snprintf(last, sizeof last, "%s", trust_date(k->last_seen));
		cmd_print(stdout, "", "key: %s %s %s; from %s; first seen %s, last "
		    "seen %s; %ld signed message%s, last %s%s%s%s", k->fpr,
		    k->proto, k->decision, src, first, last, k->messages,
		    k->messages == 1 ? "" : "s", trust_date(k->last_sig),
		    k->pinned ? "; pinned" : "", k->revoked ? "; revoked" : "",
		    k->expired ? "; expired" : "");
		free(src);
	}
	for (i = 0; i < p.nhistory; i++)
		cmd_print(stdout, "", "history: %s %s", trust_date(p.history[i].when),
		    p.history[i].what);
	trust_peer_free(&p);
	return EX_OK;
}

static int
cmd_trust_usage(void)
{
	cmd_error("usage: steedmail --trust list | show ADDR | verify ADDR "
	    "FPR | accept ADDR [FPR] | reject ADDR FPR | forget ADDR | "
	    "export FILE | import FILE");
	return EX_USAGE;
}

/* --trust export FILE (- standard output): the file is mode 0600. */
static int
cmd_trust_export(struct trust_store *ts, const char *path)
{
	struct trust_move	 m;
	struct buf		 b;
	char			*cause = NULL;
	size_t			 i, keys = 0;
	int			 fd, rc = EX_OK;

	if (trust_move_export(ts, &m, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		return EX_UNAVAILABLE;
	}
	buf_init(&b);
	trust_move_write(&m, time(NULL), &b);
	for (i = 0; i < m.npeers; i++)
		keys += m.peers[i].nkeys;
	if (strcmp(path, "-") == 0)
		fd = STDOUT_FILENO;
	else if ((fd = file_save_open(AT_FDCWD, path, path, O_CREAT | O_TRUNC,
	    0600, &cause)) == -1) {
		/* a FIFO or a device: refused, not waited on */
		cmd_error("%s: not written", cause);
		free(cause);
		rc = EX_CANTCREAT;
	} else if (fchmod(fd, 0600) == -1) {
		cmd_error("cannot write %s: %s", path, strerror(errno));
		close(fd);
		fd = -1;
		rc = EX_CANTCREAT;
	}
	if (fd != -1 && (write(fd, b.data, b.len) != (ssize_t)b.len ||
	    (fd != STDOUT_FILENO && close(fd) != 0))) {
		cmd_error("cannot write %s: %s", path, strerror(errno));
		rc = EX_IOERR;
	}
	if (rc == EX_OK && fd != STDOUT_FILENO)
		printf("%zu address%s, %zu key%s written to %s\n", m.npeers,
		    m.npeers == 1 ? "" : "es", keys, keys == 1 ? "" : "s",
		    path);
	buf_free(&b);
	trust_move_free(&m);
	return rc;
}

/* --trust import FILE (- standard input): merged, or nothing at all. */
static int
cmd_trust_import(struct trust_store *ts, const char *path)
{
	struct trust_move		 m;
	struct trust_move_result	 r;
	struct buf			 b;
	char				*cause = NULL;
	size_t				 i;
	int				 rc;

	buf_init(&b);
	if ((rc = cmd_view_read(path, &b)) != EX_OK) {
		buf_free(&b);
		return rc;
	}
	rc = trust_move_parse(b.data, b.len, path, &m, &cause);
	buf_free(&b);
	if (rc == -1) {
		cmd_error("%s; nothing imported", cause);
		free(cause);
		return EX_DATAERR;
	}
	if (trust_move_import(ts, &m, time(NULL), &r, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		trust_move_free(&m);
		return EX_TEMPFAIL;
	}
	cmd_print(stdout, "", "%s: %zu address%s; %zu key%s added, %zu "
	    "already known, %zu verified, %zu history line%s added", path,
	    r.peers, r.peers == 1 ? "" : "es", r.added, r.added == 1 ? "" :
	    "s", r.known, r.verified, r.events, r.events == 1 ? "" : "s");
	for (i = 0; i < r.nkept; i++)
		cmd_print(stdout, "", "kept: %s", r.kept[i]);
	trust_move_result_free(&r);
	trust_move_free(&m);
	return EX_OK;
}

int
cmd_trust(struct cmd_ctx *ctx)
{
	struct trust_store	*ts;
	const char		*verb, *addr;
	char			*cause = NULL, *fpr = NULL;
	int			 rc = EX_OK, argc = ctx->argc, r;
	time_t			 now = time(NULL);

	if (argc < 1)
		return cmd_trust_usage();
	verb = ctx->argv[0];
	addr = argc > 1 ? ctx->argv[1] : NULL;
	if (strcmp(verb, "list") == 0 ? argc != 1 :
	    (strcmp(verb, "export") == 0 || strcmp(verb, "import") == 0) ?
	    argc != 2 :
	    (strcmp(verb, "show") == 0 || strcmp(verb, "forget") == 0) ?
	    argc != 2 : strcmp(verb, "accept") == 0 ? argc < 2 || argc > 3 :
	    (strcmp(verb, "verify") == 0 || strcmp(verb, "reject") == 0) ?
	    argc != 3 : 1)
		return cmd_trust_usage();
	if (argc == 3 && (fpr = cmd_trust_fpr(ctx->argv[2])) == NULL) {
		cmd_error("\"%s\" is not a fingerprint (40 or 64 hex digits)",
		    ctx->argv[2]);
		return EX_USAGE;
	}
	if ((ts = trust_store_open(NULL, &cause)) == NULL) {
		cmd_error("%s", cause);
		free(cause);
		free(fpr);
		return EX_CANTCREAT;
	}
	if (strcmp(verb, "export") == 0 || strcmp(verb, "import") == 0) {
		rc = strcmp(verb, "export") == 0 ? cmd_trust_export(ts, addr) :
		    cmd_trust_import(ts, addr);
		trust_store_close(ts);
		return fflush(stdout) != 0 ? EX_IOERR : rc;
	}
	if (strcmp(verb, "list") == 0)
		rc = cmd_trust_list(ts);
	else if (strcmp(verb, "show") == 0)
		rc = cmd_trust_show(ts, addr);
	else {
		if (strcmp(verb, "verify") == 0)
			r = trust_store_verify(ts, addr, fpr, now, &cause);
		else if (strcmp(verb, "accept") == 0)
			r = trust_store_accept(ts, addr, fpr, now, &cause);
		else if (strcmp(verb, "reject") == 0)
			r = trust_store_reject(ts, addr, fpr, now, &cause);
		else
			r = trust_store_forget(ts, addr, now, &cause);
		if (r == -1) {
			cmd_error("%s", cause);
			free(cause);
			rc = EX_DATAERR;
		} else {
			char *pin = trust_store_pinned(ts, addr, "openpgp");
			char *spin = trust_store_pinned(ts, addr, "smime");
			cmd_print(stdout, "", "%s: %s; key used for encryption: "
			    "%s%s%s", addr, strcmp(verb, "forget") == 0 ? "forgotten" :
			    strcmp(verb, "verify") == 0 ? "verified" :
			    strcmp(verb, "accept") == 0 ? "accepted" :
			    "rejected", pin != NULL ? pin : "none",
			    spin != NULL ? "; for S/MIME: " : "",
			    spin != NULL ? spin : "");
			free(pin);
			free(spin);
		}
	}
	free(fpr);
	trust_store_close(ts);
	if (fflush(stdout) != 0)
		rc = EX_IOERR;
	return rc;
}
