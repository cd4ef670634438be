/*
 * imap-alert.c: the [ALERT]s of imap-alert.h. It reads the one line it is
 * given and keeps nothing; what reaches the front end is bounded
 * (IMAP_ALERT_TEXT_MAX) and passed through strsafe() first.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "frontend.h"
#include "imap-alert.h"
#include "log.h"
#include "strsafe.h"

int
imap_alert(const struct imap_resp *r)
{
	const char	*p = r->text, *end = r->text + r->textlen, *q;
	struct buf	 b;
	char		*text;

	if (r->kind != IMAP_RESP_COND || strcmp(r->code, "ALERT") != 0)
		return 0;
	/* r->text is "[ALERT] text": what follows the code */
	if (p < end && *p == '[' && (q = memchr(p, ']', (size_t)(end - p))) !=
	    NULL)
		p = q + 1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	buf_init(&b);
	if (p == end)
		buf_adds(&b, "(an alert without text)");
	else if ((size_t)(end - p) > IMAP_ALERT_TEXT_MAX) {
		strsafe_add(&b, p, IMAP_ALERT_TEXT_MAX, 0);
		buf_adds(&b, "...");
	} else
		strsafe_add(&b, p, (size_t)(end - p), 0);
	text = buf_take(&b);
	log_msg(LOG_INFO, "IMAP: the server's alert: %s", text);
	fe_notice(FE_WARNING, "the server says: %s", text);
	free(text);
	return 1;
}

int
imap_alert_line(const char *line, size_t len)
{
	struct imap_resp	 r;
	char			*why = NULL;
	int			 told = 0;

	if (imap_resp_parse(line, len, &r, &why) == 0)
		told = imap_alert(&r);
	else
		log_msg(LOG_INFO, "IMAP: an alert not shown: %s", why);
	free(why);
	imap_resp_clear(&r);
	return told;
}
