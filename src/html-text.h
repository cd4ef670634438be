/*
 * html-text.h: HTML turned into plain text, for a message that has only
 * HTML: tags stripped, script, style and head dropped, line breaks where
 * blocks end, entities decoded, links as "text [N]" with their addresses
 * listed at the end. Nothing is fetched, nothing is rendered; the text is
 * not terminal-safe (the view makes it so).
 */
#ifndef STEED_HTML_TEXT_H
#define STEED_HTML_TEXT_H

#include <stddef.h>

#include "buf.h"

#define HTML_TEXT_MAX_LINKS	200	/* links listed; the rest dropped */
#define HTML_TEXT_MAX_URL	2000	/* bytes of one address kept */

/*
 * Append the text of the len bytes of HTML (UTF-8) at html to out, at
 * most about max bytes of it (0: no limit). Returns 1 if the text was cut
 * at max, else 0. One pass, no recursion, memory bounded by the output.
 */
int	 html_text(const char *html, size_t len, size_t max, struct buf *out);

#endif
