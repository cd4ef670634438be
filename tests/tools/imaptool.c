/*
 * imaptool.c: drives imap-conn (and through it imap-ops and imap-idle)
 * without the main program, for tests/integration/imap-ops.sh: what the
 * steedmail binary cannot show, such as a connection dropped between
 * opening and acting, or a server without MOVE, UIDPLUS or IDLE.
 *
 *   imaptool [-w] [-x CAPS] [-r RENEW] [-p POLL] CONFIG COMMAND ARGS...
 *     flag FOLDER UID FLAGS     prints "ok" or "saved"
 *     move FOLDER UID TOFOLDER  prints how: moved, copied-kept
 *     delete FOLDER UID         prints how: moved, copied-kept, expunged,
 *                               marked
 *     idle FOLDER SECONDS       prints the events, or "timeout"
 *
 *   -w        after connecting and selecting FOLDER, print "ready" and
 *             wait for a line on standard input before the command
 *   -x CAPS   forget these capabilities (comma-separated) after login
 *   -r, -p    IDLE renewal and NOOP interval, seconds
 *
 * Then "reconnects N" and any warnings ("warning: ..."). Failure prints
 * "imaptool: CLASS: CAUSE" on standard error and exits 1. The header
 * cache is the account's, under $XDG_CACHE_HOME, as steedmail's is.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cache.h"
#include "config.h"
#include "frontend.h"
#include "imap-conn.h"
#include "log.h"
#include "password.h"
#include "xmalloc.h"

static void __attribute__((noreturn))
imaptool_usage(void)
{
	fprintf(stderr, "usage: imaptool [-w] [-x CAPS] [-r RENEW] [-p POLL] "
	    "CONFIG flag|move|delete|idle FOLDER ARGS...\n");
	exit(2);
}

static const char *
imaptool_class(int rc)
{
	switch (rc) {
	case IMAP_OPS_REFUSED:		return "refused";
	case IMAP_OPS_LOST:		return "lost";
	case IMAP_OPS_UNSUPPORTED:	return "unsupported";
	case IMAP_CONN_LOCAL:		return "local";
	default:			return "other";
	}
}

static void __attribute__((noreturn))
imaptool_fail(int rc, char *cause)
{
	fprintf(stderr, "imaptool: %s: %s\n", imaptool_class(rc), cause);
	free(cause);
	exit(1);
}

/* The engine's warnings (fe_notice), kept to be printed at the end. */
static char	**imaptool_warnings;
static size_t	  imaptool_nwarnings;

static void
imaptool_notice(void *arg, enum fe_level level, const char *text)
{
	(void)arg;
	(void)level;
	imaptool_warnings = xreallocarray(imaptool_warnings,
	    imaptool_nwarnings + 1, sizeof *imaptool_warnings);
	imaptool_warnings[imaptool_nwarnings++] = xstrdup(text);
}

static const struct fe_hooks imaptool_hooks = {
	.notice = imaptool_notice
};

/* Pretend the server never offered the capabilities in list. */
static void
imaptool_forget(mailimap *imap, const char *list)
{
	struct mailimap_capability	*c;
	clistiter			*it, *next;
	clist				*caps;
	char				*copy, *name, *save = NULL;

	if (imap == NULL || imap->imap_connection_info == NULL ||
	    imap->imap_connection_info->imap_capability == NULL)
		return;
	caps = imap->imap_connection_info->imap_capability->cap_list;
	copy = xstrdup(list);
	for (name = strtok_r(copy, ",", &save); name != NULL;
	    name = strtok_r(NULL, ",", &save)) {
		for (it = clist_begin(caps); it != NULL; it = next) {
			next = clist_next(it);
			c = clist_content(it);
			if (c->cap_type == MAILIMAP_CAPABILITY_NAME &&
			    strcasecmp(c->cap_data.cap_name, name) == 0) {
				mailimap_capability_free(c);
				clist_delete(caps, it);
			}
		}
	}
	free(copy);
}

static const char *
imaptool_how(enum imap_ops_how how)
{
	switch (how) {
	case IMAP_OPS_MOVED:		return "moved";
	case IMAP_OPS_COPIED_KEPT:	return "copied-kept";
	case IMAP_OPS_EXPUNGED:		return "expunged";
	case IMAP_OPS_MARKED:		return "marked";
	}
	return "?";
}

static uint32_t
imaptool_uid(const char *s)
{
	unsigned long	 n;
	char		*end;

	n = strtoul(s, &end, 10);
	if (*s == '\0' || *end != '\0' || n == 0 || n > 0xffffffffUL)
		imaptool_usage();
	return (uint32_t)n;
}

int
main(int argc, char **argv)
{
	struct config		*cf;
	struct account		*a;
	struct cache		*cache;
	struct imap_conn	*conn;
	struct imap_idle_how	 how;
	enum imap_ops_how	 moved;
	const char		*forget = NULL, *cmd, *folder;
	msg_flags		 add, remove;
	char			*cause = NULL, *pw, *w, *trash = NULL, line[64];
	unsigned		 events;
	size_t			 i;
	int			 ch, hold = 0, rc;

	signal(SIGPIPE, SIG_IGN);
	fe_set(&imaptool_hooks);
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&how, 0, sizeof how);
	while ((ch = getopt(argc, argv, "p:r:wx:")) != -1) {
		switch (ch) {
		case 'p':
			how.poll = atoi(optarg);
			break;
		case 'r':
			how.renew = atoi(optarg);
			break;
		case 'w':
			hold = 1;
			break;
		case 'x':
			forget = optarg;
			break;
		default:
			imaptool_usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 3)
		imaptool_usage();
	cmd = argv[1];
	folder = argv[2];
	if ((w = getenv("IMAPTOOL_LOG")) != NULL &&
	    log_open(w, LOG_PROTO, &cause) == -1)
		imaptool_fail(0, cause);

	if ((cf = config_load(argv[0], &cause)) == NULL ||
	    (a = config_account(cf, NULL, &cause)) == NULL ||
	    (pw = password_get(cf, a, &cause)) == NULL)
		imaptool_fail(0, cause);
	if ((cache = cache_open(a->id, &cause)) == NULL)
		imaptool_fail(IMAP_CONN_LOCAL, cause);
	conn = imap_conn_new(a, cf->ca_file, pw, cache);
	freezero_str(pw);
	if ((rc = imap_conn_open(conn, &cause)) != IMAP_OPS_OK) {
		printf("down: %s\n", cause);
		free(cause);
		cause = NULL;
	} else if (forget != NULL)
		imaptool_forget(imap_conn_session(conn), forget);
	if (hold) {
		if (imap_conn_session(conn) != NULL &&
		    (rc = imap_conn_select(conn, folder, &cause)) !=
		    IMAP_OPS_OK)
			imaptool_fail(rc, cause);
		printf("ready\n");
		if (fgets(line, sizeof line, stdin) == NULL)
			imaptool_usage();
	}

	if (strcmp(cmd, "flag") == 0 && argc == 5) {
		if (msg_flags_parse(argv[4], &add, &remove, &cause) == -1)
			imaptool_fail(0, cause);
		rc = imap_conn_flag(conn, folder, imaptool_uid(argv[3]), add,
		    remove, &cause);
		if (rc == IMAP_CONN_SAVED) {
			printf("saved: %s\n", cause);
			free(cause);
		} else if (rc != IMAP_OPS_OK)
			imaptool_fail(rc, cause);
		else
			printf("ok\n");
	} else if (strcmp(cmd, "move") == 0 && argc == 5) {
		if ((rc = imap_conn_move(conn, folder, imaptool_uid(argv[3]),
		    argv[4], &moved, &cause)) != IMAP_OPS_OK)
			imaptool_fail(rc, cause);
		printf("%s\n", imaptool_how(moved));
	} else if (strcmp(cmd, "delete") == 0 && argc == 4) {
		if ((rc = imap_conn_delete(conn, folder, imaptool_uid(argv[3]),
		    &moved, &trash, &cause)) != IMAP_OPS_OK)
			imaptool_fail(rc, cause);
		printf("%s %s\n", imaptool_how(moved), trash);
		free(trash);
	} else if (strcmp(cmd, "idle") == 0 && argc == 4) {
		how.timeout = atoi(argv[3]);
		if ((rc = imap_conn_idle(conn, folder, &how, &events,
		    &cause)) != IMAP_OPS_OK)
			imaptool_fail(rc, cause);
		if (events == 0)
			printf("timeout\n");
		else
			printf("%s%s%s\n",
			    events & IMAP_IDLE_EXISTS ? "exists " : "",
			    events & IMAP_IDLE_EXPUNGE ? "expunge " : "",
			    events & IMAP_IDLE_FETCH ? "fetch" : "");
	} else
		imaptool_usage();

	printf("reconnects %u\n", imap_conn_reconnects(conn));
	for (i = 0; i < imaptool_nwarnings; i++) {
		printf("warning: %s\n", imaptool_warnings[i]);
		free(imaptool_warnings[i]);
	}
	free(imaptool_warnings);
	imap_conn_close(conn);
	cache_close(cache);
	config_free(cf);
	log_close();
	return 0;
}
