/*
 * test-outgoing.c: the outbox and the drafts as the front ends see them
 * (src/outgoing.c, draft_list() and the others of src/draft-store.c):
 * listed with what the screens show, counted, deleted, taken back into a
 * draft, and a plain draft sent through outgoing_send(). No gpg and no
 * server here: tests/integration/draft.sh, tui-compose.sh and
 * faults-smtp.sh cover sending for real.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "draft.h"
#include "outbox.h"
#include "outgoing.h"
#include "tap.h"

static char	top[] = "/tmp/steed-outgoing-XXXXXX";
static char	*dir;

static const char plain[] =
    "From: alice@steed.test\r\n"
    "To: =?utf-8?q?Bob_B=C3=A9?= <bob@steed.test>\r\n"
    "Subject: =?utf-8?q?caf=C3=A9?= plans\r\n"
    "\r\n"
    "body\r\n";

static const char hidden[] =
    "From: alice@steed.test\r\n"
    "To: bob@steed.test\r\n"
    "Subject: ...\r\n"
    "Content-Type: multipart/encrypted; boundary=b;\r\n"
    " protocol=\"application/pgp-encrypted\"\r\n"
    "\r\n"
    "--b--\r\n";

/* A draft as draft_postpone() keeps one in clear. */
static const char kept[] =
    "From: alice@steed.test\r\n"
    "To: bob@steed.test, carol@steed.test\r\n"
    "Bcc: dave@steed.test\r\n"
    "Subject: back again\r\n"
    "Message-ID: <d1@steed.test>\r\n"
    "X-Steedmail-Draft: yes\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    "\r\n"
    "the text\r\n";

static int
exists(const char *path)
{
	struct stat	sb;

	return stat(path, &sb) == 0;
}

static char *
queue(const char *msg, char **rcpts, size_t n)
{
	char	*id = NULL, *cause = NULL;

	if (outbox_queue(dir, "alice", "alice@steed.test", rcpts, n, msg,
	    strlen(msg), &id, &cause) == -1) {
		printf("# queue: %s\n", cause);
		free(cause);
		return NULL;
	}
	return id;
}

/* The entry id in v, or NULL. */
static struct outgoing_entry *
find(struct outgoing_entry *v, size_t n, const char *id)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].id, id) == 0)
			return &v[i];
	return NULL;
}

static void
test_list(struct config *cf)
{
	struct outgoing_entry	*v = NULL, *e;
	char			*rcpts[] = { "bob@steed.test", "carol@x.example" };
	char			*id1, *id2, *where, *cause = NULL;
	size_t			 n = 0, q, f;

	outgoing_count(&q, &f);
	TAP_OK(q == 0 && f == 0, "an empty outbox counts nothing");
	TAP_OK(outgoing_list(cf, &v, &n, &cause) == 0 && n == 0,
	    "an empty outbox lists nothing");
	outgoing_list_free(v, n);

	id1 = queue(plain, rcpts, 2);
	sleep(1);
	id2 = queue(hidden, rcpts, 1);
	TAP_OK(id1 != NULL && id2 != NULL, "two queued");
	outgoing_count(&q, &f);
	TAP_OK(q == 2 && f == 0, "two counted");
	TAP_OK(outgoing_list(cf, &v, &n, &cause) == 0 && n == 2,
	    "two listed");
	TAP_OK(n == 2 && strcmp(v[0].id, id1) == 0, "oldest first");
	e = find(v, n, id1);
	TAP_STR(e != NULL ? e->to : NULL, "bob@steed.test, carol@x.example",
	    "every recipient of the envelope");
	TAP_STR(e != NULL ? e->subject : NULL, "caf\xc3\xa9 plans",
	    "the Subject decoded");
	TAP_OK(e != NULL && !e->encrypted && !e->failed && !e->held &&
	    !e->accepted && e->why == NULL, "a queued message's flags");
	TAP_OK(e != NULL && e->queued != (time_t)-1 &&
	    time(NULL) - e->queued < 600, "when it was queued, from its id");
	TAP_OK(e != NULL && exists(e->path) &&
	    strstr(e->path, ".msg") != NULL, "its file is its message");
	e = find(v, n, id2);
	TAP_OK(e != NULL && e->encrypted && e->subject == NULL,
	    "an encrypted message's \"...\" is no subject");
	outgoing_list_free(v, n);

	/* refused for good: the reason and the message's own To */
	TAP_OK(outgoing_list(cf, &v, &n, &cause) == 0 && n == 2, "listed");
	e = find(v, n, id1);
	{
		struct outbox_entry	**ov;
		size_t			  on, i;

		outbox_list(dir, &ov, &on, &cause);
		where = NULL;
		for (i = 0; i < on; i++)
			if (strcmp(ov[i]->id, id1) == 0)
				where = outbox_fail(dir, ov[i],
				    "550 5.1.1 no such user", &cause);
		outbox_free_entries(ov, on);
	}
	outgoing_list_free(v, n);
	TAP_OK(where != NULL, "one refused");
	free(where);
	outgoing_count(&q, &f);
	TAP_OK(q == 1 && f == 1, "one queued, one failed counted");
	TAP_OK(outgoing_list(cf, &v, &n, &cause) == 0 && n == 2 &&
	    strcmp(v[0].id, id2) == 0 && v[1].failed,
	    "the queued first, then the failed");
	e = find(v, n, id1);
	TAP_STR(e != NULL ? e->why : NULL, "550 5.1.1 no such user",
	    "a failed message says the server's words");
	TAP_STR(e != NULL ? e->to : NULL, "Bob B\xc3\xa9 <bob@steed.test>",
	    "a failed message's To, decoded");
	TAP_STR(e != NULL ? e->subject : NULL, "caf\xc3\xa9 plans",
	    "a failed message's Subject");
	outgoing_list_free(v, n);

	TAP_OK(outgoing_delete(id1, 1, &cause) == 0, "the failed deleted");
	TAP_OK(outgoing_delete("20000101T000000Z-000000000000", 0,
	    &cause) == 1, "an entry that left already says so");
	TAP_OK(outgoing_delete(id2, 0, &cause) == 0, "the queued deleted");
	outgoing_count(&q, &f);
	TAP_OK(q == 0 && f == 0, "nothing left");
	free(id1);
	free(id2);
}

static void
test_take_back(const struct account *a)
{
	struct draft_file	*v = NULL;
	struct outgoing_entry	*ov = NULL;
	struct draft		*d;
	struct buf		 b;
	char			*rcpts[] = { "bob@steed.test" };
	char			*id, *path = NULL, *cause = NULL, *to, *subject;
	size_t			 n = 0, on = 0, q, f;

	/* a message queued without its draft (the batch command's) */
	id = queue(plain, rcpts, 1);
	TAP_OK(outgoing_take_back(id, 0, &path, &cause) == OUTGOING_NO_DRAFT &&
	    path == NULL, "without a draft it cannot be taken back");
	outgoing_count(&q, &f);
	TAP_OK(q == 1, "and it stays queued");
	outgoing_delete(id, 0, &cause);
	free(id);

	/* the compose screen's: its draft beside it */
	id = queue(plain, rcpts, 1);
	TAP_OK(outbox_keep_draft(dir, id, kept, sizeof kept - 1, &cause) == 0,
	    "a draft kept beside a queued message");
	TAP_OK(outgoing_take_back("../x", 0, &path, &cause) ==
	    OUTGOING_NOT_TAKEN, "a name that is not an entry is refused");
	free(cause);
	cause = NULL;
	TAP_OK(outgoing_take_back(id, 0, &path, &cause) == OUTGOING_TAKEN &&
	    path != NULL, "taken back");
	outgoing_count(&q, &f);
	TAP_OK(q == 0 && f == 0, "it left the outbox");
	TAP_OK(path != NULL && draft_exists(path) &&
	    strstr(path, "/drafts/outbox-") != NULL, "its draft is a draft now");
	d = path != NULL ? draft_resume(a, path, &cause) : NULL;
	TAP_OK(d != NULL && d->nto == 2 && d->nbcc == 1 && d->subject != NULL &&
	    strcmp(d->subject, "back again") == 0, "and reads back whole");
	if (d != NULL)
		draft_free(d);
	{
		char	*again = NULL;

		TAP_OK(outgoing_take_back(id, 0, &again, &cause) ==
		    OUTGOING_GONE && again == NULL, "taken back once only");
	}

	/* the drafts list */
	TAP_OK(draft_count() == 1, "one draft counted");
	TAP_OK(draft_list(&v, &n, &cause) == 0 && n == 1, "one draft listed");
	TAP_OK(n == 1 && strcmp(v[0].to, "bob@steed.test +1") == 0 &&
	    strcmp(v[0].subject, "back again") == 0 && v[0].known &&
	    !v[0].encrypted && strcmp(v[0].msgid, "<d1@steed.test>") == 0 &&
	    strcmp(v[0].from, "alice@steed.test") == 0,
	    "with what the list shows");
	TAP_OK(draft_peek(a, path, &to, &subject, &cause) == 0 &&
	    strcmp(to, "bob@steed.test +1") == 0 &&
	    strcmp(subject, "back again") == 0, "draft_peek reads it");
	free(to);
	free(subject);
	buf_init(&b);
	TAP_OK(draft_file_read(path, &b, &cause) == 0 &&
	    b.len == sizeof kept - 1 && memcmp(b.data, kept, b.len) == 0,
	    "draft_file_read gives it as it is");
	buf_free(&b);
	TAP_OK(draft_discard(path, &cause) == 0 && !draft_exists(path) &&
	    draft_count() == 0, "discarded");
	draft_list_free(v, n);
	free(path);
	path = NULL;
	free(id);

	/* sent already: only its copy to Sent waits */
	id = queue(plain, rcpts, 1);
	outbox_keep_draft(dir, id, kept, sizeof kept - 1, &cause);
	{
		struct outbox_entry	**ev;
		size_t			  en;

		outbox_list(dir, &ev, &en, &cause);
		if (en == 1)
			outbox_mark_accepted(dir, ev[0], "250 ok", &cause);
		outbox_free_entries(ev, en);
	}
	TAP_OK(outgoing_take_back(id, 0, &path, &cause) == OUTGOING_ACCEPTED,
	    "a message the server took cannot be taken back");
	TAP_OK(outgoing_list(NULL, &ov, &on, &cause) == 0 && on == 1 &&
	    ov[0].accepted, "it stays, accepted");
	outgoing_list_free(ov, on);
	outgoing_delete(id, 0, &cause);
	free(id);

	/* refused for good: its draft went along into failed/ */
	id = queue(plain, rcpts, 1);
	outbox_keep_draft(dir, id, kept, sizeof kept - 1, &cause);
	{
		struct outbox_entry	**ev;
		size_t			  en;
		char			 *where = NULL;

		outbox_list(dir, &ev, &en, &cause);
		if (en == 1)
			where = outbox_fail(dir, ev[0], "550 no", &cause);
		outbox_free_entries(ev, en);
		free(where);
	}
	TAP_OK(outgoing_take_back(id, 1, &path, &cause) == OUTGOING_TAKEN,
	    "a failed message taken back");
	outgoing_count(&q, &f);
	TAP_OK(q == 0 && f == 0 && path != NULL && draft_exists(path),
	    "it left failed/, its draft is a draft");
	if (path != NULL)
		draft_discard(path, &cause);
	free(path);
	free(id);
}

static void
test_held(struct config *cf)
{
	struct outgoing_entry	*v = NULL;
	char			*rcpts[] = { "bob@steed.test" };
	char			*id = NULL, *cause = NULL;
	size_t			 n = 0;

	TAP_OK(outbox_hold(dir, "alice", "alice@steed.test", rcpts, 1, kept,
	    sizeof kept - 1, "encrypt", "no answer for steed.test", &id,
	    &cause) == 0, "a draft held for DNS");
	TAP_OK(outgoing_list(cf, &v, &n, &cause) == 0 && n == 1 && v[0].held,
	    "listed as held");
	TAP_OK(n == 1 && v[0].why != NULL &&
	    strncmp(v[0].why, "no answer for steed.test; held since ", 37) == 0,
	    "saying why and since when");
	TAP_OK(n == 1 && strstr(v[0].path, ".draft") != NULL &&
	    strcmp(v[0].subject, "back again") == 0,
	    "its draft stands for the message");
	outgoing_list_free(v, n);
	TAP_OK(outgoing_delete(id, 0, &cause) == 0, "deleted");
	free(id);
}

static void
test_send(struct config *cf, const struct account *a)
{
	struct outgoing_send	 s;
	struct outgoing_entry	*v = NULL;
	struct draft_opts	 o;
	struct draft		*d;
	size_t			 n = 0;
	char			*cause = NULL;

	memset(&o, 0, sizeof o);
	o.never = 1;
	d = draft_new(a);
	draft_add(d, DRAFT_TO, "bob@steed.test");
	draft_set_subject(d, "bad\r\nBcc: eve@x.example");
	draft_set_body(d, strdup("hello\n"));
	outgoing_send(d, cf, &o, 0, &s);
	TAP_OK(s.result == OUTGOING_UNBUILT && s.bad_input && s.id == NULL,
	    "a header with a line break is refused, nothing queued");
	outgoing_send_free(&s);

	draft_set_subject(d, "plain");
	outgoing_send(d, cf, &o, OUTGOING_KEEP_DRAFT, &s);
	TAP_OK(s.result == OUTGOING_QUEUED && s.id != NULL,
	    "a draft sent in clear is queued");
	if (s.result != OUTGOING_QUEUED && s.cause != NULL)
		printf("# %s\n", s.cause);
	TAP_OK(outgoing_list(cf, &v, &n, &cause) == 0 && n == 1 &&
	    strcmp(v[0].id, s.id) == 0 && strcmp(v[0].subject, "plain") == 0 &&
	    strcmp(v[0].to, "bob@steed.test") == 0, "and listed");
	outgoing_list_free(v, n);
	free(cause);
	cause = NULL;
	{
		char	*path = NULL;

		TAP_OK(s.id != NULL && outgoing_take_back(s.id, 0, &path,
		    &cause) == OUTGOING_TAKEN, "its kept draft takes it back");
		if (path != NULL) {
			struct draft	*r = draft_resume(a, path, &cause);

			TAP_OK(r != NULL && r->subject != NULL &&
			    strcmp(r->subject, "plain") == 0 && r->nto == 1,
			    "the draft it was made from");
			if (r != NULL)
				draft_free(r);
			draft_discard(path, &cause);
		}
		free(path);
	}
	outgoing_send_free(&s);
	draft_free(d);
}

int
main(void)
{
	struct config	 cf;
	struct account	 a;
	char		*cause = NULL;

	if (mkdtemp(top) == NULL)
		return 1;
	/* nothing of the user's: a data directory of our own */
	setenv("XDG_DATA_HOME", top, 1);
	setenv("GNUPGHOME", top, 1);
	memset(&cf, 0, sizeof cf);
	memset(&a, 0, sizeof a);
	a.id = "alice";
	a.name = "Alice";
	a.address = "alice@steed.test";
	if ((dir = outbox_dir(&cause)) == NULL) {
		printf("# %s\n", cause);
		return 1;
	}

	test_list(&cf);
	test_take_back(&a);
	test_held(&cf);
	test_send(&cf, &a);

	free(dir);
	{
		char	cmd[256];

		snprintf(cmd, sizeof cmd, "rm -rf %s", top);
		if (system(cmd) != 0)
			return 1;
	}
	return TAP_DONE();
}
