/*
 * rfc2231.h: MIME parameter values (RFC 2231): continuations (name*0,
 * name*1, ...), charset'language'percent-encoding (name*=, name*0*=), for
 * filename= and every other parameter, read and written.
 */
#ifndef STEED_RFC2231_H
#define STEED_RFC2231_H

#include <stddef.h>

#include "buf.h"

/* One parameter as it appeared: name and value, quotes already removed. */
struct rfc2231_param {
	char	*name;
	char	*value;
};

/* Sections of one continued parameter that are looked at; more are lost. */
#define RFC2231_MAX_SECTIONS	100

/*
 * The value of parameter name (case-insensitive) among the n in params,
 * assembled from its sections and converted to UTF-8, newly allocated; or
 * NULL if there is no such parameter. The RFC 2231 form wins over a plain
 * one of the same name. A plain value holding RFC 2047 encoded words (a
 * common mistake, filename="=?UTF-8?B?...?=") is decoded. If the charset
 * is unknown, bytes above 0x7F are written as \xHH and *unknown (if not
 * NULL) is set to 1. The value is not terminal-safe, and it is not a safe
 * file name: it may hold '/', "..", controls.
 */
char	*rfc2231_get(const struct rfc2231_param *params, size_t n,
	    const char *name, int *unknown);

/*
 * Append ";" CRLF SP "name=value" to out: quoted if value is short
 * printable ASCII, else as UTF-8 percent-encoded sections (name*0*=...) on
 * lines of at most 76 characters.
 */
void	 rfc2231_encode(struct buf *out, const char *name, const char *value);

#endif
