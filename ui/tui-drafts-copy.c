/*
 * tui-drafts-copy.c: the copies of postponed drafts in the account's
 * Drafts mailbox, for other mail programs: the draft compose postponed
 * is appended as it is (draft_file_read(); tui_drafts_saved(), called by
 * compose after P), and a copy is removed by its Message-ID
 * (tui_drafts_copy_remove(), called by the drafts list) when its draft was sent, postponed again or
 * deleted. Both run on the account's worker (TJ_CALL, session.h); what
 * fails is a warning through fe_notice(): the local file is the draft.
 * Never draws.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "draft.h"
#include "frontend.h"
#include "imap-ops.h"
#include "session.h"
#include "tui.h"
#include "tui-drafts.h"
#include "xmalloc.h"

static int
drafts_append_call(struct session *s, void *arg, struct tui_event *ev)
{
	char		*path = arg, *why = NULL;
	struct buf	 b;
	int		 rc;

	buf_init(&b);
	if (draft_file_read(path, &b, &why) == -1) {
		free(why);
		ev->cause = xasprintf("%s cannot be read", path);
		rc = IMAP_OPS_REFUSED;
	} else
		rc = session_draft_append(s, b.data, b.len, &ev->cause);
	if (rc != IMAP_OPS_OK)
		fe_notice(FE_WARNING, "the draft is kept here, but not copied "
		    "to the Drafts mailbox: %s", ev->cause != NULL ?
		    ev->cause : "no reason given");
	buf_free(&b);
	free(path);
	return rc;
}

void
tui_drafts_saved(struct tui_account *ta, const char *path)
{
	struct tui_job	j;

	memset(&j, 0, sizeof j);
	j.kind = TJ_CALL;
	j.fn = drafts_append_call;
	j.fn_arg = xstrdup(path);
	tui_submit(ta, &j);
}

static int
drafts_remove_call(struct session *s, void *arg, struct tui_event *ev)
{
	char	*msgid = arg;
	size_t	 n;
	int	 rc;

	rc = session_draft_remove(s, msgid, &n, &ev->cause);
	if (rc != IMAP_OPS_OK)
		fe_notice(FE_WARNING, "the copy in the Drafts mailbox stays: "
		    "%s", ev->cause != NULL ? ev->cause : "no reason given");
	free(msgid);
	return rc;
}

void
tui_drafts_copy_remove(struct tui_account *ta, const char *msgid)
{
	struct tui_job	j;

	if (ta == NULL || msgid == NULL)
		return;
	memset(&j, 0, sizeof j);
	j.kind = TJ_CALL;
	j.fn = drafts_remove_call;
	j.fn_arg = xstrdup(msgid);
	tui_submit(ta, &j);
}

