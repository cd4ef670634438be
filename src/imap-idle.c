/*
 * imap-idle.c: the waiting of imap-idle.h.
 *
 * libetpan's own wait (mailstream_wait_idle) does not work on our TLS
 * streams, so this polls the socket itself. Bytes that libetpan or GnuTLS
 * already read but did not hand out never make the socket readable again;
 * net_tls_pending() is checked before every poll so that they are not
 * left waiting.
 *
 * One weakness is libetpan's: responses that arrive between the IDLE
 * command and the server's "+" are read and thrown away, so a change
 * reported in that instant is seen only with the next one.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "frontend.h"
#include "imap-idle.h"
#include "imap-session.h"
#include "imap-ops.h"
#include "log.h"
#include "net-tls.h"
#include "xmalloc.h"

/* How soon a wait notices that it was asked to stop. */
#define IMAP_IDLE_CANCEL_MS	100


/*
 * Wait until the server has sent something or the time (ms, monotonic)
 * is up: 1 or 0, or -1 and a cause. A closed or broken socket counts as
 * readable; the read that follows finds out what happened. Being asked
 * to stop (fe_cancelled(), set by another thread) ends the wait like the
 * time being up, within IMAP_IDLE_CANCEL_MS.
 */
static int
imap_idle_readable(mailimap *imap, long long until, char **cause)
{
	struct pollfd	pfd;
	long long	left;
	int		fd, r;

	for (;;) {
		if (net_tls_pending(imap->imap_stream))
			return 1;
		if ((left = until - clock_ms()) <= 0 || fe_cancelled())
			return 0;
		if (left > IMAP_IDLE_CANCEL_MS)
			left = IMAP_IDLE_CANCEL_MS;
		if ((fd = mailimap_idle_get_fd(imap)) < 0) {
			*cause = xstrdup("the connection to the IMAP server is "
			    "closed");
			return -1;
		}
		memset(&pfd, 0, sizeof pfd);
		pfd.fd = fd;
		pfd.events = POLLIN;
		r = poll(&pfd, 1, (int)left);
		if (r > 0)
			return 1;
		if (r == -1 && errno != EINTR) {
			*cause = xasprintf("waiting for the IMAP server: %s",
			    strerror(errno));
			return -1;
		}
	}
}

/* How many UIDs a VANISHED (not EARLIER) names. */
static uint64_t
imap_idle_vanished(const struct mailimap_qresync_vanished *v)
{
	const struct mailimap_set_item	*item;
	clistiter			*it;
	uint64_t			 n = 0;

	if (v == NULL || v->qr_earlier || v->qr_known_uids == NULL)
		return 0;
	for (it = clist_begin(v->qr_known_uids->set_list); it != NULL;
	    it = clist_next(it)) {
		item = clist_content(it);
		if (item->set_last >= item->set_first)
			n += (uint64_t)item->set_last - item->set_first + 1;
		else
			n += (uint64_t)item->set_first - item->set_last + 1;
	}
	return n;
}

/*
 * What the responses to the last command said had changed; before is
 * the number of messages the mailbox held when it was sent.
 *
 * An EXISTS is new mail only when it counts more messages than the
 * expunges left (RFC 3501 7.4.1): some servers (Courier) follow
 * "* 3 EXPUNGE" with "* 4 EXISTS", which only confirms the count.
 * libetpan keeps the count in the order the lines came (an EXISTS sets
 * it, an EXPUNGE takes one off), so what it holds at the end, plus what
 * was expunged, is more than before exactly when messages came in,
 * whatever the order. A VANISHED (QRESYNC) does not change libetpan's
 * count; its UIDs are added the same way, as if it came before the
 * EXISTS, as servers send them.
 */
static unsigned
imap_idle_events(mailimap *imap, uint32_t before)
{
	struct mailimap_response_info	*ri = imap->imap_response_info;
	struct mailimap_selection_info	*sel = imap->imap_selection_info;
	struct mailimap_extension_data	*ext;
	clistiter			*it;
	uint64_t			 gone = 0;
	unsigned			 ev = 0;

	if (ri != NULL && ri->rsp_expunged != NULL)
		gone = (uint64_t)clist_count(ri->rsp_expunged);
	/* with QRESYNC enabled, expunges come as VANISHED */
	for (it = ri != NULL && ri->rsp_extension_list != NULL ?
	    clist_begin(ri->rsp_extension_list) : NULL; it != NULL;
	    it = clist_next(it)) {
		ext = clist_content(it);
		if (ext->ext_extension->ext_id == MAILIMAP_EXTENSION_QRESYNC &&
		    ext->ext_type == MAILIMAP_QRESYNC_TYPE_VANISHED)
			gone += imap_idle_vanished(ext->ext_data);
	}
	if (gone > 0)
		ev |= IMAP_IDLE_EXPUNGE;
	if (sel != NULL && sel->sel_has_exists &&
	    (uint64_t)sel->sel_exists + gone > before)
		ev |= IMAP_IDLE_EXISTS;
	if (ri != NULL && ri->rsp_fetch_list != NULL &&
	    !clist_isempty(ri->rsp_fetch_list))
		ev |= IMAP_IDLE_FETCH;
	if (sel != NULL && sel->sel_has_exists && !(ev & IMAP_IDLE_EXISTS))
		log_msg(LOG_PROTO, "IMAP: %u messages after %u expunged of "
		    "%u: no new mail", sel->sel_exists, (unsigned)gone,
		    before);
	return ev;
}

/* The number of messages the selected mailbox holds, as last said. */
static uint32_t
imap_idle_count(mailimap *imap)
{
	return imap->imap_selection_info != NULL ?
	    imap->imap_selection_info->sel_exists : 0;
}

/* One IDLE command, ended by DONE when the server speaks or at until. */
static int
imap_idle_round(mailimap *imap, long long until, unsigned *events,
    char **cause)
{
	uint32_t	before = imap_idle_count(imap);
	int		err;

	log_msg(LOG_PROTO, "IMAP: IDLE for up to %lld ms",
	    until - clock_ms());
	if ((err = mailimap_idle(imap)) != MAILIMAP_NO_ERROR)
		return imap_ops_error(imap, err, "IDLE", cause);
	if (imap_idle_readable(imap, until, cause) == -1)
		return IMAP_OPS_LOST;
	/* DONE makes libetpan read (and keep) what the server said. */
	if ((err = mailimap_idle_done(imap)) != MAILIMAP_NO_ERROR)
		return imap_ops_error(imap, err, "IDLE", cause);
	*events = imap_idle_events(imap, before);
	return IMAP_OPS_OK;
}

/* Without IDLE: wait (the server may speak unasked), then NOOP. */
static int
imap_idle_poll(mailimap *imap, long long until, unsigned *events,
    char **cause)
{
	uint32_t	before = imap_idle_count(imap);
	int		rc;

	if (imap_idle_readable(imap, until, cause) == -1)
		return IMAP_OPS_LOST;
	if (imap->imap_selection_info != NULL)
		imap->imap_selection_info->sel_has_exists = 0;
	log_msg(LOG_PROTO, "IMAP: NOOP");
	if ((rc = imap_ops_noop(imap, cause)) != IMAP_OPS_OK)
		return rc;
	*events = imap_idle_events(imap, before);
	return IMAP_OPS_OK;
}

int
imap_idle_wait(mailimap *imap, const struct imap_idle_how *how,
    unsigned *events, char **cause)
{
	long long	deadline, until;
	int		idle, step, rc;

	*events = 0;
	if (imap->imap_stream == NULL) {
		*cause = xstrdup("the connection to the IMAP server is closed");
		return IMAP_OPS_LOST;
	}
	if (imap->imap_state != MAILIMAP_STATE_SELECTED) {
		*cause = xstrdup("waiting for changes: no mailbox is selected");
		return IMAP_OPS_REFUSED;
	}
	idle = imap_session_offers(imap, "IDLE") && how->timeout > 0;
	if (idle)
		step = how->renew > 0 ? how->renew : IMAP_IDLE_RENEW;
	else
		step = how->poll > 0 ? how->poll : IMAP_IDLE_POLL;
	log_msg(LOG_INFO, "IMAP: waiting up to %d s for changes (%s every "
	    "%d s)", how->timeout, idle ? "IDLE renewed" : "NOOP", step);
	deadline = clock_ms() + (long long)how->timeout * 1000;
	do {
		until = clock_ms() + (long long)step * 1000;
		if (until > deadline)
			until = deadline;
		if (idle)
			rc = imap_idle_round(imap, until, events, cause);
		else
			rc = imap_idle_poll(imap, until, events, cause);
		if (rc != IMAP_OPS_OK || *events != 0)
			return rc;
	} while (clock_ms() < deadline && !fe_cancelled());
	return IMAP_OPS_OK;
}
