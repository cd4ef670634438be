/*
 * test-outbox.c: the outbox's files and states.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outbox.h"
#include "tap.h"

static char	dir[] = "/tmp/steed-outbox-XXXXXX";

static int
exists(const char *id, const char *ext)
{
	char		p[512];
	struct stat	sb;

	snprintf(p, sizeof p, "%s/%s%s", dir, id, ext);
	return stat(p, &sb) == 0;
}

int
main(void)
{
	struct outbox_entry	**v;
	struct buf		  b;
	char			 *rcpts[] = { "bob@steed.test", "carol@x.example" };
	char			 *bad[] = { "bob@steed.test\r\nRCPT TO:<e@x>" };
	char			 *id = NULL, *id2 = NULL, *cause = NULL, *where;
	size_t			  n;
	char			  msg[] = "Subject: hi\r\n\r\nbody\r\n";

	if (mkdtemp(dir) == NULL)
		return 1;
	TAP_OK(outbox_queue(dir, "alice", "alice@steed.test", rcpts, 2, msg,
	    sizeof msg - 1, &id, &cause) == 0, "queue a message");
	TAP_OK(exists(id, ".msg") && exists(id, ".env"), "files are there");
	TAP_OK(outbox_queue(dir, "alice", "alice@steed.test", bad, 1, msg,
	    sizeof msg - 1, &id2, &cause) == -1, "CR/LF in a recipient refused");
	free(cause);
	cause = NULL;
	sleep(1);
	TAP_OK(outbox_queue(dir, "alice", "alice@steed.test", rcpts, 1, msg,
	    sizeof msg - 1, &id2, &cause) == 0, "queue a second");

	TAP_OK(outbox_list(dir, &v, &n, &cause) == 0 && n == 2, "two listed");
	TAP_OK(n == 2 && strcmp(v[0]->id, id) == 0, "oldest first");
	TAP_OK(n == 2 && v[0]->nrcpts == 2 &&
	    strcmp(v[0]->rcpts[1], "carol@x.example") == 0 &&
	    strcmp(v[0]->account, "alice") == 0, "envelope read back");
	buf_init(&b);
	TAP_OK(outbox_read(dir, v[0], &b, &cause) == 0 && b.len == sizeof msg - 1
	    && memcmp(b.data, msg, b.len) == 0, "message read back intact");
	buf_free(&b);
	TAP_OK(outbox_mark_accepted(dir, v[0], "250 2.0.0 Ok", &cause) == 0 &&
	    v[0]->accepted && exists(id, ".accepted"), "acceptance recorded");
	outbox_free_entries(v, n);

	outbox_list(dir, &v, &n, &cause);
	TAP_OK(v[0]->accepted && !v[0]->saved, "acceptance survives a re-read");
	outbox_mark_saved(dir, v[0], &cause);
	TAP_OK(outbox_remove(dir, v[0], &cause) == 0 && !exists(id, ".msg") &&
	    !exists(id, ".env") && !exists(id, ".accepted") &&
	    !exists(id, ".saved"), "remove leaves nothing");
	where = outbox_fail(dir, v[1], "550 no such user", &cause);
	TAP_OK(where != NULL && access(where, R_OK) == 0 &&
	    !exists(id2, ".env"), "a refused message moves to failed/");
	free(where);
	outbox_free_entries(v, n);

	outbox_list(dir, &v, &n, &cause);
	TAP_OK(n == 0, "the outbox is empty");
	outbox_free_entries(v, n);
	free(id);
	free(id2);
	id = id2 = NULL;

	/* held: a draft that waits for DNS, no message yet */
	TAP_OK(outbox_hold(dir, "alice", "alice@steed.test", rcpts, 1, msg,
	    sizeof msg - 1, "encrypt smime", "waits for DNS: no answer for\n"
	    "bob@steed.test (timeout)", &id, &cause) == 0 &&
	    exists(id, ".draft") && exists(id, ".held") && exists(id, ".env") &&
	    !exists(id, ".msg"), "a held entry: draft, reason, envelope");
	outbox_list(dir, &v, &n, &cause);
	TAP_OK(n == 1 && v[0]->held && v[0]->held_since > 0 &&
	    strcmp(v[0]->held_opts, "encrypt smime") == 0 &&
	    strcmp(v[0]->held_why, "waits for DNS: no answer for "
	    "bob@steed.test (timeout)") == 0, "listed as held, with why "
	    "(a line break made a space) and its options");
	TAP_OK(n == 1 && outbox_hold_note(dir, v[0], "held: forged", &cause)
	    == 0 && strcmp(v[0]->held_why, "held: forged") == 0,
	    "a new reason noted");
	outbox_free_entries(v, n);
	outbox_list(dir, &v, &n, &cause);
	TAP_OK(n == 1 && v[0]->held && strcmp(v[0]->held_why, "held: forged")
	    == 0 && v[0]->held_since > 0, "... kept on disk, since unchanged");
	TAP_OK(n == 1 && outbox_release(dir, v[0], msg, sizeof msg - 1,
	    &cause) == 0 && !v[0]->held && exists(id, ".msg") &&
	    !exists(id, ".held") && exists(id, ".draft"),
	    "released: the message written, the draft stays");
	outbox_free_entries(v, n);
	outbox_list(dir, &v, &n, &cause);
	TAP_OK(n == 1 && !v[0]->held, "a released entry is queued as any");
	TAP_OK(n == 1 && outbox_remove(dir, v[0], &cause) == 0 &&
	    !exists(id, ".draft") && !exists(id, ".env"), "removed whole");
	outbox_free_entries(v, n);
	free(id);
	id = NULL;

	/* a held entry given up: its draft is what failed/ keeps */
	outbox_hold(dir, "alice", "alice@steed.test", rcpts, 1, msg,
	    sizeof msg - 1, "", "waits", &id, &cause);
	outbox_list(dir, &v, &n, &cause);
	where = n == 1 ? outbox_fail(dir, v[0], "given up", &cause) : NULL;
	{
		char	p[512];

		snprintf(p, sizeof p, "%s/failed/%s.draft", dir, id);
		TAP_OK(where != NULL && access(where, R_OK) == 0 &&
		    access(p, R_OK) == 0 && !exists(id, ".env") &&
		    !exists(id, ".draft") && !exists(id, ".held"),
		    "a held entry fails with its draft as the message");
	}
	free(where);
	outbox_free_entries(v, n);
	free(id);
	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			return 1;
	}
	return TAP_DONE();
}
