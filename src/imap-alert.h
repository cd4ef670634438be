/*
 * imap-alert.h: what a server says in an [ALERT] response code, which
 * RFC 3501 (7.1) says MUST be shown to the person. Each one goes to the
 * front end as a warning (fe_notice(), frontend.h), terminal-safe:
 * "the server says: TEXT". imap-pre.c hands it every status line before
 * login (the greeting among them), imap-frame.c every status response
 * after it, in the order they come.
 */
#ifndef STEED_IMAP_ALERT_H
#define STEED_IMAP_ALERT_H

#include <stddef.h>

#include "imap-resp.h"

#define IMAP_ALERT_TEXT_MAX	400	/* bytes of an alert's text shown */

/* A parsed status line: told when its code is ALERT; 1 then, else 0. */
int	 imap_alert(const struct imap_resp *);

/*
 * A status line (without its CRLF) that the guard after login found good
 * and whose code is ALERT: parsed and told. 1 when told, else 0.
 */
int	 imap_alert_line(const char *line, size_t len);

#endif
