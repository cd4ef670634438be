/*
 * fuzz-imap-session.c: everything but FETCH headers that an IMAP server
 * answers, as a lying or broken server would: the input is all the server
 * says, read in chunks whose size the first byte chooses. First what comes
 * before login, read by steedmail's own code (imap-pre.c): the greeting,
 * CAPABILITY, the answer to STARTTLS (TLS itself left out) and the login,
 * AUTHENTICATE PLAIN or LOGIN with a literal or a quoted password, or
 * AUTHENTICATE OAUTHBEARER or XOAUTH2 with the server's error challenge
 * (base64 JSON, read with jansson) and the dummy answer; then,
 * on the session handed to libetpan, the commands steedmail's engine
 * sends: LIST and STATUS (imap_mailbox_list), the
 * roles' lookup (LIST, then NAMESPACE: imap-role.c), EXAMINE and SEARCH by Message-ID, a message fetched
 * whole and by part, the flags of one UID, STORE, MOVE (or COPY, STORE
 * and UID EXPUNGE), NOOP. These answers are read by libetpan's parser,
 * then by the engine; the sequence stops where the engine would drop the
 * connection. Every byte passes the guard below libetpan first
 * (src/imap-frame.h), as on a real session. Checked: nothing crashes,
 * leaks or hangs, folder names are strings, the flags are maildir letters,
 * and what the guard let through stayed within its bounds. Its first
 * finds: a CAPABILITY
 * answered OK with no capability killed libetpan's mailimap_capability(),
 * and a literal of 4 GB announced was an out-of-memory exit.
 */
#include "fuzz.h"
#include "fuzz-stream.h"

#include "buf.h"
#include "imap-mailbox.h"
#include "imap-ops.h"
#include "imap-pre.h"
#include "imap-role.h"
#include "imap-session.h"

/*
 * libetpan makes room for a literal as large as the server says before
 * any of it comes; the guard refuses one over 256 MB before libetpan sees
 * it. Should one pass anyway, here, as on a machine without that much
 * memory, an allocation past 1 GB fails (and the engine must say so and
 * go on) rather than counting as the fuzzer's out-of-memory.
 */
const char	*__asan_default_options(void);

const char *
__asan_default_options(void)
{
	return "allocator_may_return_null=1:max_allocation_size_mb=1024";
}

/*
 * libetpan's parser loses a few bytes of what it had built when a reply
 * breaks off in the middle (a section of BODY[2.1], say): its leaks, not
 * steedmail's, and bounded by the reply; steedmail's own are still found.
 */
const char	*__lsan_default_suppressions(void);

const char *
__lsan_default_suppressions(void)
{
	return "leak:libetpan.so\n";
}

/* Go on with the next command? Not once the engine would have dropped
 * the connection, nor when the input is used up. */
static int
more(mailimap *imap, const struct fuzz_feed *f, int rc, char **cause)
{
	free(*cause);
	*cause = NULL;
	return rc != IMAP_OPS_LOST && imap->imap_stream != NULL &&
	    f->pos < f->len;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fuzz_feed	 f;
	struct imap_frame	 frame;
	mailstream		*st;
	struct imap_pre		*pre;
	mailimap		*imap = NULL;
	struct imap_folder	*folders = NULL;
	struct account		 acct;
	struct buf		 b;
	enum imap_ops_how	 how;
	msg_flags		 flags;
	char			*cause = NULL, *name;
	size_t			 n = 0, i;
	uint32_t		 uid = 7;
	int			 rc;

	if (len < 1 || len > 65536)
		return 0;
	if ((st = fuzz_stream(&f, data, len)) == NULL)
		return 0;
	imap_frame_init(&frame);
	pre = imap_pre_new(st, "example.org");
	if ((rc = imap_pre_greeting(pre, &cause)) == -1)
		goto out;
	if (rc == 0) {
		/* as on a STARTTLS account: TLS itself is left out */
		if (imap_pre_capability(pre, &cause) == -1)
			goto out;
		if (imap_pre_offers(pre, "STARTTLS")) {
			if (imap_pre_starttls(pre, &cause) != IMAP_PRE_OK)
				goto out;
			imap_pre_forget(pre);
		}
		/* a password that goes as a literal, or quoted; or an
		 * OAuth2 token, whose refusal comes as a challenge */
		if (len % 3 == 2) {
			if (imap_pre_auth_oauth(pre, len % 2 ? "OAUTHBEARER" :
			    "XOAUTH2", "fuzz", "example.org", 993, "tok",
			    &cause) != IMAP_PRE_OK)
				goto out;
		} else if (imap_pre_login(pre, "fuzz", len % 2 ?
		    "p\xc3\xa4ss" : "pa\"ss", &cause) != IMAP_PRE_OK)
			goto out;
	} else if (imap_pre_capability(pre, &cause) == -1)
		goto out;
	FUZZ_ASSERT(imap_pre_words(pre) != NULL);
	/*
	 * The guard from the handoff on, as imap_frame_attach() puts it on a
	 * logged-in session's TLS stream: first what is already buffered.
	 */
	if (imap_frame_scan(&frame, st->read_buffer, st->read_buffer_len) ==
	    -1)
		goto out;
	f.frame = &frame;
	imap = imap_pre_handoff(pre, &cause);
	pre = NULL;
	if (imap == NULL)
		goto out;

	rc = imap_mailbox_list(imap, &folders, &n, &cause);
	if (rc == IMAP_OPS_OK) {
		for (i = 0; i < n; i++)
			FUZZ_ASSERT(folders[i].name != NULL);
		imap_mailbox_list_free(folders, n);
	}
	if (!more(imap, &f, rc, &cause))
		goto out;
	/*
	 * The roles' lookup. Its NAMESPACE tells the guard of a TLS stream,
	 * which this is not: with NAMESPACE offered, the lookup is made with
	 * every role configured (LIST only), then NAMESPACE is asked here,
	 * the guard told as imap_role_prefix() tells a real one.
	 */
	if (imap_session_offers(imap, "NAMESPACE")) {
		memset(&acct, 0, sizeof acct);
		acct.sent_folder = acct.trash_folder = (char *)"S";
		acct.drafts_folder = acct.archive_folder = (char *)"D";
		if ((name = imap_role_folder(imap, &acct, IMAP_ROLE_SENT,
		    &cause)) != NULL)
			free(name);
		if (!more(imap, &f, 0, &cause))
			goto out;
		imap_frame_namespace_one(&frame);
		name = imap_role_prefix(imap);
		FUZZ_ASSERT(name != NULL);
		free(name);
	} else if ((name = imap_role_folder(imap, NULL, IMAP_ROLE_SENT,
	    &cause)) != NULL)
		free(name);
	if (!more(imap, &f, 0, &cause))
		goto out;
	rc = imap_mailbox_has_msgid(imap, "Sent", "<m@example.org>", &cause);
	FUZZ_ASSERT(rc >= -1 && rc <= 1);
	if (!more(imap, &f, 0, &cause))
		goto out;
	if (mailimap_select(imap, "INBOX") != MAILIMAP_NO_ERROR ||
	    imap->imap_stream == NULL)
		goto out;
	buf_init(&b);
	rc = imap_mailbox_fetch(imap, NULL, uid, NULL, &b, &cause);
	buf_reset(&b);
	if (more(imap, &f, rc, &cause))
		rc = imap_mailbox_fetch(imap, NULL, uid, "2.1", &b, &cause);
	buf_free(&b);
	if (!more(imap, &f, rc, &cause))
		goto out;
	rc = imap_ops_get_flags(imap, uid, &flags, &cause);
	if (rc == IMAP_OPS_OK)
		FUZZ_ASSERT((flags & ~MSG_ALL) == 0);
	if (!more(imap, &f, rc, &cause))
		goto out;
	rc = imap_ops_store(imap, uid, MSG_SEEN, MSG_FLAGGED, &cause);
	if (!more(imap, &f, rc, &cause))
		goto out;
	rc = imap_ops_move(imap, uid, "Trash", &how, &cause);
	if (!more(imap, &f, rc, &cause))
		goto out;
	rc = imap_ops_expunge(imap, &uid, 1, &cause);
	if (!more(imap, &f, rc, &cause))
		goto out;
	rc = imap_ops_noop(imap, &cause);
	free(cause);
	cause = NULL;
out:
	free(cause);
	imap_pre_free(pre);
	if (imap != NULL)
		mailimap_free(imap);
	FUZZ_ASSERT(imap_frame_error(&frame) != NULL ||
	    (frame.depth <= IMAP_FRAME_DEPTH_MAX &&
	    frame.line <= IMAP_FRAME_LINE_MAX + 1 &&
	    frame.left <= IMAP_FRAME_LITERAL_MAX));
	return 0;
}
