/*
 * test-imap-ops.c: what of the IMAP operations works without a server:
 * parsing flag changes such as "+FS-T", applying them, the letters to
 * IMAP flags and back, sorting libetpan's errors into classes, and the
 * cache calls imap-conn.c relies on (flags of one message, the pending
 * table across a UIDVALIDITY change).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "imap-idle.h"
#include "imap-ops.h"
#include "session.h"
#include "imap-session.h"
#include "tap.h"

static char	dir[] = "/tmp/steed-ops-XXXXXX";

/* Parse arg; "add/remove" on success, "error: cause" on failure. */
static const char *
parse(const char *arg)
{
	static char	 out[300];
	char		 a[MSG_FLAGS_SIZE], r[MSG_FLAGS_SIZE];
	msg_flags	 add = 0, remove = 0;
	char		*cause = NULL;

	if (msg_flags_parse(arg, &add, &remove, &cause) == -1) {
		snprintf(out, sizeof out, "error: %s", cause);
		free(cause);
	} else {
		msg_flags_letters(add, a);
		msg_flags_letters(remove, r);
		snprintf(out, sizeof out, "%s/%s", a, r);
	}
	return out;
}

/* The flags have + add - remove, in the cache's letters. */
static const char *
apply(const char *have, const char *add, const char *remove)
{
	static char	out[MSG_FLAGS_SIZE];

	msg_flags_letters((msg_flags_of(have) | msg_flags_of(add)) &
	    ~msg_flags_of(remove), out);
	return out;
}

/* Letters to an IMAP flag list and back. */
static const char *
round_trip(const char *letters, int *n)
{
	static char			 out[MSG_FLAGS_SIZE];
	struct mailimap_flag_list	*fl;

	fl = imap_ops_flag_list(msg_flags_of(letters));
	*n = clist_count(fl->fl_list);
	msg_flags_letters(imap_ops_flag_set(fl), out);
	mailimap_flag_list_free(fl);
	return out;
}

static void
test_parse(void)
{
	TAP_STR(parse("+S"), "S/", "+S adds seen");
	TAP_STR(parse("-S"), "/S", "-S removes seen");
	TAP_STR(parse("+FS-T"), "FS/T", "+FS-T: two groups");
	TAP_STR(parse("+TSRFD"), "DFRST/", "letters come out in order");
	TAP_STR(parse("-T+S+F"), "FS/T", "groups may repeat and come in "
	    "any order");
	TAP_STR(parse("+SS"), "S/", "a letter twice is once");
	TAP_OK(strncmp(parse(""), "error:", 6) == 0, "empty is refused");
	TAP_OK(strncmp(parse("S"), "error: flags \"S\" must start", 27) == 0,
	    "a letter without + or - is refused");
	TAP_OK(strncmp(parse("+"), "error:", 6) == 0, "a lone + is refused");
	TAP_OK(strncmp(parse("+S-"), "error:", 6) == 0,
	    "a trailing - with no letters is refused");
	TAP_OK(strncmp(parse("+-S"), "error:", 6) == 0,
	    "an empty group in the middle is refused");
	TAP_OK(strstr(parse("+s"), "'s'") != NULL,
	    "lower case is refused, naming the letter");
	TAP_OK(strstr(parse("+X"), "not a flag letter") != NULL,
	    "an unknown letter is refused");
	TAP_OK(strstr(parse("+S-FS"), "both add and remove S") != NULL,
	    "adding and removing the same letter is refused, naming it");
	TAP_OK(strncmp(parse("+S\\Seen"), "error:", 6) == 0,
	    "IMAP flag names are not letters");
}

static void
test_apply(void)
{
	TAP_STR(apply("", "S", ""), "S", "add to nothing");
	TAP_STR(apply("RS", "F", "S"), "FR", "add and remove");
	TAP_STR(apply("T", "", "T"), "", "remove the last");
	TAP_STR(apply("ST", "S", ""), "ST", "adding what is there changes "
	    "nothing");
	TAP_STR(apply("SxD", "", ""), "DS", "unknown letters are dropped, "
	    "the rest sorted");
	TAP_STR(apply("", "", "S"), "", "removing what is not there");
}

static void
test_flag_list(void)
{
	struct mailimap_flag_list	*fl;
	struct mailimap_flag		*f;
	char				 out[MSG_FLAGS_SIZE];
	int				 n;

	TAP_STR(round_trip("DFRST", &n), "DFRST", "all five letters survive "
	    "the trip to IMAP flags and back");
	TAP_OK(n == 5, "as five IMAP flags");
	TAP_STR(round_trip("", &n), "", "no letters: an empty list");
	TAP_OK(n == 0, "with nothing in it");

	fl = imap_ops_flag_list(MSG_DELETED);
	f = clist_content(clist_begin(fl->fl_list));
	TAP_OK(clist_count(fl->fl_list) == 1 &&
	    f->fl_type == MAILIMAP_FLAG_DELETED, "T is \\Deleted");
	mailimap_flag_list_free(fl);
	fl = imap_ops_flag_list(MSG_ANSWERED);
	f = clist_content(clist_begin(fl->fl_list));
	TAP_OK(f->fl_type == MAILIMAP_FLAG_ANSWERED, "R is \\Answered");
	mailimap_flag_list_free(fl);

	/* Keywords and \Recent have no letter. */
	fl = mailimap_flag_list_new_empty();
	mailimap_flag_list_add(fl, mailimap_flag_new_flag_keyword(
	    strdup("$Junk")));
	mailimap_flag_list_add(fl, mailimap_flag_new_seen());
	msg_flags_letters(imap_ops_flag_set(fl), out);
	TAP_STR(out, "S", "a keyword is left out");
	mailimap_flag_list_free(fl);
}

/* A session with a stream that goes nowhere: the errors below are read
 * from what its buffer holds, and a lost connection closes it. */
static void
attach(mailimap *imap)
{
	int	fd;

	if (imap->imap_stream != NULL)
		return;
	if ((fd = open("/dev/null", O_RDWR)) == -1 ||
	    (imap->imap_stream = mailstream_socket_open(fd)) == NULL)
		abort();
	imap->imap_state = MAILIMAP_STATE_SELECTED;
}

static void
test_errors(void)
{
	mailimap	*imap;
	char		*cause = NULL;

	imap = mailimap_new(0, NULL);
	attach(imap);
	TAP_OK(imap_ops_error(imap, MAILIMAP_ERROR_STREAM, "UID STORE",
	    &cause) == IMAP_OPS_LOST && strstr(cause, "UID STORE") != NULL,
	    "a stream error is a lost connection, naming the command");
	free(cause);
	TAP_OK(imap->imap_stream == NULL, "and the connection is closed");
	TAP_OK(imap_ops_error(imap, MAILIMAP_ERROR_NOOP, "NOOP", &cause) ==
	    IMAP_OPS_LOST && strstr(cause, "is closed") != NULL,
	    "a command after that: lost, saying the connection is closed");
	free(cause);
	attach(imap);
	TAP_OK(imap_ops_error(imap, MAILIMAP_ERROR_PARSE, "UID MOVE",
	    &cause) == IMAP_OPS_LOST, "a reply not understood: lost too");
	free(cause);

	attach(imap);
	mmap_string_assign(imap->imap_stream_buffer,
	    "5 NO [TRYCREATE] Mailbox doesn't exist: Arch\033[2Jive\r\n");
	TAP_OK(imap_ops_error(imap, MAILIMAP_ERROR_UID_COPY, "UID COPY",
	    &cause) == IMAP_OPS_REFUSED, "NO is a refusal");
	TAP_OK(strstr(cause, "[TRYCREATE] Mailbox doesn't exist") != NULL,
	    "with the server's words");
	TAP_OK(strchr(cause, '\033') == NULL && strstr(cause, "^[") != NULL,
	    "made terminal-safe");
	free(cause);

	attach(imap);
	mmap_string_assign(imap->imap_stream_buffer,
	    "* BYE Disconnected by an administrator\r\n");
	TAP_OK(imap_ops_error(imap, MAILIMAP_ERROR_FATAL, "NOOP", &cause) ==
	    IMAP_OPS_LOST && strstr(cause, "Disconnected by an "
	    "administrator") != NULL, "BYE is a lost connection, with the "
	    "server's words");
	free(cause);
	TAP_OK(imap_ops_error(imap, MAILIMAP_NO_ERROR, "NOOP", &cause) ==
	    IMAP_OPS_OK, "no error is no error");

	{
		char	*big = malloc(5000);

		memset(big, 'x', 4990);
		memcpy(big, "7 BAD ", 6);
		attach(imap);
		strcpy(big + 4990, "\r\n");
		mmap_string_assign(imap->imap_stream_buffer, big);
		free(big);
		imap_ops_error(imap, MAILIMAP_ERROR_UID_STORE, "UID STORE",
		    &cause);
		TAP_OK(strlen(cause) < 400, "a long reply is cut short");
		free(cause);
	}

	imap_session_lose(imap);
	TAP_OK(imap_ops_noop(imap, &cause) == IMAP_OPS_LOST,
	    "NOOP without a connection: lost, without trying");
	free(cause);
	{
		struct imap_idle_how	how = { 1, 0, 0, 0 };
		unsigned		ev = 99;

		TAP_OK(imap_idle_wait(imap, &how, &ev, &cause) ==
		    IMAP_OPS_LOST && ev == 0, "idle without a connection: "
		    "lost at once");
		free(cause);
	}
	mailimap_free(imap);
}

static int
count_pending(const struct cache_pending *p, void *arg)
{
	(void)p;
	(*(int *)arg)++;
	return 0;
}

static void
test_cache(void)
{
	struct cache		*c;
	struct cache_mailbox	 mb, found;
	struct cache_msg	 m;
	char			 path[256], flags[8], *cause = NULL;
	int			 n;

	if (mkdtemp(dir) == NULL) {
		TAP_OK(0, "a temporary directory");
		return;
	}
	snprintf(path, sizeof path, "%s/ops.hcache", dir);
	c = cache_open_path(path, &cause);
	TAP_OK(c != NULL, "a cache");
	if (c == NULL)
		return;
	TAP_OK(cache_mailbox_find(c, "INBOX", &found, &cause) == 0,
	    "a mailbox never synced is not found (and not made)");
	TAP_OK(cache_mailbox_find(c, "INBOX", &found, &cause) == 0,
	    "still not");
	cache_mailbox(c, "INBOX", 42, &mb, &cause);
	memset(&m, 0, sizeof m);
	m.uid = 7;
	strcpy(m.flags, "RS");
	cache_put(c, &mb, &m, &cause);
	TAP_OK(cache_mailbox_find(c, "INBOX", &found, &cause) == 1 &&
	    found.uidvalidity == 42 && found.count == 1 && found.maxuid == 7,
	    "once synced it is found, with its UIDVALIDITY and count");
	TAP_OK(cache_get_flags(c, &mb, 7, flags, &cause) == 1 &&
	    strcmp(flags, "RS") == 0, "the flags of a cached message");
	TAP_OK(cache_get_flags(c, &mb, 8, flags, &cause) == 0 &&
	    flags[0] == '\0', "a UID not cached");

	cache_pending_add(c, "INBOX", 42, 7, "F", "", &cause);
	cache_pending_add(c, "INBOX", 41, 3, "S", "", &cause);
	cache_pending_add(c, "Archive", 5, 3, "", "S", &cause);
	TAP_OK(cache_pending_drop(c, "INBOX", 42, &cause) == 1,
	    "a UIDVALIDITY change drops the mailbox's older changes");
	n = 0;
	cache_pending_each(c, count_pending, &n, &cause);
	TAP_OK(n == 2, "and only those");
	TAP_OK(cache_pending_drop(c, "INBOX", 42, &cause) == 0,
	    "nothing more to drop");
	cache_close(c);
	unlink(path);
	snprintf(path, sizeof path, "%s/ops.hcache-wal", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/ops.hcache-shm", dir);
	unlink(path);
	rmdir(dir);
}

/* Each flag is its own bit, with its own letter: \\Deleted is never D. */
static void
test_bits(void)
{
	char	out[MSG_FLAGS_SIZE];

	TAP_OK(msg_flags_of("T") == MSG_DELETED, "T is the deleted bit");
	TAP_OK(msg_flags_of("D") == MSG_DRAFT, "D is the draft bit");
	TAP_OK(msg_flags_of("R") == MSG_ANSWERED, "R is the answered bit");
	TAP_OK(msg_flags_of("\\Deleted") == MSG_DRAFT,
	    "an IMAP name read as letters is not the flag it names: the "
	    "reason the operations take bits");
	msg_flags_letters(MSG_DELETED | MSG_SEEN, out);
	TAP_STR(out, "ST", "deleted and seen are stored as ST");
	msg_flags_letters(MSG_ALL, out);
	TAP_STR(out, "DFRST", "all five in order");
}

/* What session_op_said() tells a person. */
static void
test_said(void)
{
	struct session_op		op;
	struct session_op_result	res;
	char				*t;

	memset(&op, 0, sizeof op);
	memset(&res, 0, sizeof res);
	op.kind = SESSION_OP_MOVE;
	op.to = "Archive";
	res.done = res.gone = 3;
	t = session_op_said(&op, "INBOX", &res);
	TAP_STR(t, "3 messages moved to Archive", "a move of three");
	free(t);
	res.done = res.gone = 1;
	res.refused = 1;
	res.rc = IMAP_OPS_REFUSED;
	res.cause = "the IMAP server refused UID MOVE: NO [TRYCREATE]";
	t = session_op_said(&op, "INBOX", &res);
	TAP_STR(t, "1 message moved to Archive; 1 message refused: the IMAP "
	    "server refused UID MOVE: NO [TRYCREATE]", "a refusal says why");
	free(t);
	memset(&res, 0, sizeof res);
	op.kind = SESSION_OP_FLAG;
	op.add = MSG_DELETED;
	res.done = 2;
	t = session_op_said(&op, "INBOX", &res);
	TAP_STR(t, "2 messages marked deleted", "d on two tagged messages");
	free(t);
	memset(&res, 0, sizeof res);
	op.kind = SESSION_OP_DELETE;
	res.done = res.gone = 1;
	res.trash = "INBOX.Trash";
	t = session_op_said(&op, "INBOX", &res);
	TAP_STR(t, "1 message moved to INBOX.Trash", "delete names the trash");
	free(t);
	t = session_op_said(&op, "INBOX.Trash", &res);
	TAP_STR(t, "1 message deleted for good", "in the trash: for good");
	free(t);
}

int
main(void)
{
	test_bits();
	test_said();
	test_parse();
	test_apply();
	test_flag_list();
	test_errors();
	test_cache();
	return TAP_DONE();
}
