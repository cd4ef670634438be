/*
 * strsafe.h: the one function that turns untrusted bytes (from a message, a
 * server, a config file) into text that is safe to put on a terminal.
 * Everything that shows such bytes goes through it.
 */
#ifndef STEED_STRSAFE_H
#define STEED_STRSAFE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Keep TAB and LF as they are (for bodies); otherwise they are escaped. */
#define STRSAFE_KEEP_NL		0x1
/* Keep TAB only (text a screen lays out in columns itself). */
#define STRSAFE_KEEP_TAB	0x2
/* Also U+2503, the mark of steedmail's own lines (view.h), as <U+2503>. */
#define STRSAFE_MARK		0x4

/*
 * Append a terminal-safe copy of the len bytes at in to out. Valid UTF-8 is
 * kept, except: C0 controls and DEL become ^X (TAB and LF kept only with
 * STRSAFE_KEEP_NL, TAB with STRSAFE_KEEP_TAB), C1 controls, bidirectional
 * controls and line/paragraph separators become <U+XXXX> (U+2503 too with
 * STRSAFE_MARK), and bytes that are not valid UTF-8 become \xHH. These are
 * the stand-ins every screen and command shows (ESC as ^[, BEL ^G, CR ^M,
 * BS ^H, RLO <U+202E>): the curses interface lays out what this gives,
 * the batch commands print it. Returns the number of characters that were
 * escaped.
 */
size_t	 strsafe_add(struct buf *out, const char *in, size_t len, int flags);
/*
 * Decode one strict UTF-8 sequence (no overlong forms, surrogates or code
 * points above U+10FFFF) at s; return its length and the code point, or 0
 * if it is not valid. The one UTF-8 decoder of the program.
 */
size_t	 strsafe_utf8_decode(const char *s, size_t len, uint32_t *cp);
/* The same for a C string, returned newly allocated. */
char	*strsafe(const char *in, int flags);
/*
 * Is code point c one that changes how the terminal lays out or reads
 * text (C1 controls, bidirectional controls, line and paragraph
 * separators), which strsafe_add() escapes as <U+XXXX>?
 */
int	 strsafe_dangerous(uint32_t c);

#endif
