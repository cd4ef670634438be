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

/* What the responses to the last command said had changed. */
static unsigned
imap_idle_events(mailimap *imap)
{
	struct mailimap_response_info	*ri = imap->imap_response_info;
	struct mailimap_extension_data	*ext;
	clistiter			*it;
	unsigned			 ev = 0;

	if (imap->imap_selection_info != NULL &&
	    imap->imap_selection_info->sel_has_exists)
		ev |= IMAP_IDLE_EXISTS;
	if (ri != NULL && ri->rsp_expunged != NULL &&
	    !clist_isempty(ri->rsp_expunged))
		ev |= IMAP_IDLE_EXPUNGE;
	/* with QRESYNC enabled, expunges come as VANISHED */
	for (it = ri != NULL && ri->rsp_extension_list != NULL ?
	    clist_begin(ri->rsp_extension_list) : NULL; it != NULL;
	    it = clist_next(it)) {
		ext = clist_content(it);
		if (ext->ext_extension->ext_id == MAILIMAP_EXTENSION_QRESYNC &&
		    ext->ext_type == MAILIMAP_QRESYNC_TYPE_VANISHED)
			ev |= IMAP_IDLE_EXPUNGE;
	}
	if (ri != NULL && ri->rsp_fetch_list != NULL &&
	    !clist_isempty(ri->rsp_fetch_list))
		ev |= IMAP_IDLE_FETCH;
	return ev;
}

/* One IDLE command, ended by DONE when the server speaks or at until. */
static int
imap_idle_round(mailimap *imap, long long until, unsigned *events,
    char **cause)
{
	int	err;

	log_msg(LOG_PROTO, "IMAP: IDLE for up to %lld ms",
	    until - clock_ms());
	if ((err = mailimap_idle(imap)) != MAILIMAP_NO_ERROR)
		return imap_ops_error(imap, err, "IDLE", cause);
	if (imap_idle_readable(imap, until, cause) == -1)
		return IMAP_OPS_LOST;
	/* DONE makes libetpan read (and keep) what the server said. */
	if ((err = mailimap_idle_done(imap)) != MAILIMAP_NO_ERROR)
		return imap_ops_error(imap, err, "IDLE", cause);
	*events = imap_idle_events(imap);
	return IMAP_OPS_OK;
}

/* Without IDLE: wait (the server may speak unasked), then NOOP. */
static int
imap_idle_poll(mailimap *imap, long long until, unsigned *events,
    char **cause)
{
	int	rc;

	if (imap_idle_readable(imap, until, cause) == -1)
		return IMAP_OPS_LOST;
	if (imap->imap_selection_info != NULL)
		imap->imap_selection_info->sel_has_exists = 0;
	log_msg(LOG_PROTO, "IMAP: NOOP");
	if ((rc = imap_ops_noop(imap, cause)) != IMAP_OPS_OK)
		return rc;
	*events = imap_idle_events(imap);
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
