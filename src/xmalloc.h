/*
 * xmalloc.h: allocation that never returns NULL, and fatal() for broken
 * invariants. Running out of memory is not something a mail client can
 * recover from in a useful way, so the wrappers abort with a message.
 * Nothing a server, a message or a user sends may ever reach fatal().
 */
#ifndef STEED_XMALLOC_H
#define STEED_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));
char	*xvasprintf(const char *, va_list) __attribute__((format(printf, 1, 0)));
void	 fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

/* Overwrite a secret before freeing it; the compiler may not drop this. */
void	 freezero_str(char *);

#endif
