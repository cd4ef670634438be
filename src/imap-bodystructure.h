/*
 * imap-bodystructure.h: does a message on the server have a MIME part?
 * Asked as "UID FETCH uid (BODYSTRUCTURE)" and read with steedmail's own
 * bounded code, not libetpan's response parser: the structure is derived
 * from the message, which anyone can send, and libetpan recurses once per
 * nesting level of it with no limit. Called by imap-mailbox.c for
 * --fetch --part. Never prints.
 */
#ifndef STEED_IMAP_BODYSTRUCTURE_H
#define STEED_IMAP_BODYSTRUCTURE_H

#include <stddef.h>
#include <stdint.h>

#include <libetpan/libetpan.h>

#define IMAP_BODYSTRUCTURE_MAX_SIZE	(4 * 1024 * 1024) /* bytes read */
#define IMAP_BODYSTRUCTURE_MAX_DEPTH	256	/* nested parentheses */

/*
 * 1 if the message with this UID in the selected mailbox has the part
 * ("1", "2.1", as IMAP numbers them), 0 if it has not, -1 and *cause when
 * that cannot be told: there is no such message, the server refused, the
 * connection failed, or the structure is larger or deeper than the
 * limits above.
 */
int	imap_bodystructure_has_part(mailimap *, uint32_t uid,
	    const char *part, char **cause);

/*
 * The same for a response already read: text holds the untagged
 * responses to the UID FETCH (literals inline, as "{n}\r\n" and n bytes).
 * For the tests.
 */
int	imap_bodystructure_find(const char *text, size_t len, uint32_t uid,
	    const char *part, char **cause);

#endif
