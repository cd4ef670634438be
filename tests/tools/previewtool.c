/*
 * previewtool.c: runs draft_preview() (draft.h) for a draft to the given
 * recipients and prints what it says, for tests/integration/
 * draft-preview.sh and for measuring it.
 *
 *   previewtool [-F CONFIG] [-A ACCOUNT] [--no-dns] [--encrypt] [--never]
 *       [--nosign] [--smime] [--reply-encrypted] [--repeat N]
 *       [--cc ADDR] [--bcc ADDR] ADDR...
 *
 * Prints "action: encrypt|clear|ask|refuse", "line: ...", "sign: yes|no",
 * "smime: yes|no", "must: yes|no", "keys: K/N", "changed: C",
 * "revoked: R", then for each recipient "rcpt ADDR: key yes|no, origin
 * ORIGIN|-, state STATE" and, without a key, "why ADDR: WHY". With
 * --repeat N the preview runs N times more and "first: MS ms" and
 * "again: MS ms" (the mean of the others) follow. Failure prints
 * "previewtool: CAUSE" on standard error and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "crypto.h"
#include "draft.h"
#include "trust-store.h"
#include "xmalloc.h"

static void __attribute__((noreturn))
pt_fail(char *cause)
{
	fprintf(stderr, "previewtool: %s\n", cause);
	free(cause);
	exit(1);
}

static void __attribute__((noreturn))
pt_usage(void)
{
	fprintf(stderr, "usage: previewtool [-F CONFIG] [-A ACCOUNT] "
	    "[--no-dns] [--encrypt] [--never] [--nosign] [--smime] "
	    "[--reply-encrypted] [--repeat N] [--cc ADDR] [--bcc ADDR] "
	    "ADDR...\n");
	exit(2);
}

static double
pt_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *
pt_action(enum policy_action a)
{
	switch (a) {
	case POLICY_ENCRYPT:
		return "encrypt";
	case POLICY_CLEAR:
		return "clear";
	case POLICY_ASK_USER:
		return "ask";
	case POLICY_REFUSE_SEND:
		return "refuse";
	case POLICY_HOLD:
		return "hold";
	case POLICY_WAIT:
		return "wait";
	}
	return "?";
}

static void
pt_print(const struct draft_preview *pv)
{
	const struct draft_preview_rcpt	*r;
	size_t				 i;

	printf("action: %s\n", pt_action(pv->action));
	printf("line: %s\n", pv->line != NULL ? pv->line : "");
	printf("sign: %s\n", pv->sign ? "yes" : "no");
	printf("smime: %s\n", pv->smime ? "yes" : "no");
	printf("must: %s\n", pv->must ? "yes" : "no");
	printf("keys: %zu/%zu\n", pv->nkeys, pv->n);
	printf("changed: %zu\n", pv->nchanged);
	printf("revoked: %zu\n", pv->nrevoked);
	for (i = 0; i < pv->n; i++) {
		r = &pv->rcpts[i];
		printf("rcpt %s: key %s, origin %s, state %s\n", r->addr,
		    r->has_key ? "yes" : "no", r->origin != NULL ? r->origin :
		    "-", trust_state_name(r->state));
		if (r->why != NULL)
			printf("why %s: %s\n", r->addr, r->why);
	}
}

int
main(int argc, char **argv)
{
	struct config		*cf;
	struct account		*a;
	struct draft		*d;
	struct draft_opts	 o;
	struct draft_preview	 pv;
	const char		*conf = NULL, *acct = NULL;
	char			*cause = NULL;
	double			 t0, first, rest = 0;
	int			 i, use_dns = 1, repeat = 0, k, nrcpt = 0;

	memset(&o, 0, sizeof o);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-F") == 0 && i + 1 < argc)
			conf = argv[++i];
		else if (strcmp(argv[i], "-A") == 0 && i + 1 < argc)
			acct = argv[++i];
		else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else if ((strcmp(argv[i], "--cc") == 0 ||
		    strcmp(argv[i], "--bcc") == 0) && i + 1 < argc)
			i++;	/* taken below, once the draft exists */
		else if (strcmp(argv[i], "--no-dns") == 0)
			use_dns = 0;
		else if (strcmp(argv[i], "--encrypt") == 0)
			o.encrypt = 1;
		else if (strcmp(argv[i], "--never") == 0)
			o.never = 1;
		else if (strcmp(argv[i], "--nosign") == 0)
			o.nosign = 1;
		else if (strcmp(argv[i], "--smime") == 0)
			o.smime = 1;
		else if (strcmp(argv[i], "--reply-encrypted") == 0)
			;
		else
			pt_usage();
	}
	if ((cf = config_load(conf, &cause)) == NULL)
		pt_fail(cause);
	if ((a = config_account(cf, acct, &cause)) == NULL)
		pt_fail(cause);
	if (crypto_init(cf->gnupg_home, &cause) == -1)
		pt_fail(cause);
	d = draft_new(a);
	for (k = 1; k < argc; k++) {
		if (k >= i) {
			draft_add(d, DRAFT_TO, argv[k]);
			nrcpt++;
		} else if (strcmp(argv[k], "--cc") == 0) {
			draft_add(d, DRAFT_CC, argv[++k]);
			nrcpt++;
		} else if (strcmp(argv[k], "--bcc") == 0) {
			draft_add(d, DRAFT_BCC, argv[++k]);
			nrcpt++;
		} else if (strcmp(argv[k], "--reply-encrypted") == 0)
			d->from_encrypted = 1;
		else if (strcmp(argv[k], "-F") == 0 ||
		    strcmp(argv[k], "-A") == 0 ||
		    strcmp(argv[k], "--repeat") == 0)
			k++;
	}
	if (nrcpt == 0)
		pt_usage();

	t0 = pt_ms();
	if (draft_preview(d, cf, &o, use_dns, &pv, &cause) == -1)
		pt_fail(cause);
	first = pt_ms() - t0;
	pt_print(&pv);
	draft_preview_free(&pv);
	for (k = 0; k < repeat; k++) {
		t0 = pt_ms();
		if (draft_preview(d, cf, &o, use_dns, &pv, &cause) == -1)
			pt_fail(cause);
		rest += pt_ms() - t0;
		draft_preview_free(&pv);
	}
	if (repeat > 0) {
		printf("first: %.1f ms\n", first);
		printf("again: %.1f ms\n", rest / repeat);
	}
	draft_free(d);
	config_free(cf);
	return 0;
}
