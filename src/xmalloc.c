/*
 * xmalloc.c: the allocation wrappers declared in xmalloc.h. Every failure
 * here is out-of-memory or an overflow in a size computation, both fatal.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

void
fatal(const char *fmt, ...)
{
	va_list	ap;

	fputs("steedmail: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *
xmalloc(size_t size)
{
	void	*p;

	if (size == 0)
		size = 1;
	if ((p = malloc(size)) == NULL)
		fatal("out of memory (%zu bytes)", size);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void	*p;

	if (n == 0 || size == 0)
		n = size = 1;
	if ((p = calloc(n, size)) == NULL)
		fatal("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *
xreallocarray(void *old, size_t n, size_t size)
{
	void	*p;

	if (size != 0 && n > SIZE_MAX / size)
		fatal("size overflow (%zu x %zu)", n, size);
	if (n * size == 0)
		n = size = 1;
	if ((p = realloc(old, n * size)) == NULL)
		fatal("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t len)
{
	char	*p;
	size_t	 n;

	n = strnlen(s, len);
	p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char	*s;

	if (vasprintf(&s, fmt, ap) == -1)
		fatal("out of memory formatting a string");
	return s;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void
freezero_str(char *s)
{
	volatile char	*p = s;

	if (s == NULL)
		return;
	while (*p != '\0')
		*p++ = '\0';
	free(s);
}
