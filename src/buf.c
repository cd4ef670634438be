/*
 * buf.c: the growable buffer of buf.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "xmalloc.h"

void
buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
}

void
buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

static void
buf_grow(struct buf *b, size_t more)
{
	size_t	need;

	if (more > (size_t)-1 - b->len - 1)
		fatal("buffer size overflow");
	need = b->len + more + 1;
	if (need <= b->cap)
		return;
	if (b->cap == 0)
		b->cap = 64;
	while (b->cap < need)
		b->cap = b->cap > (size_t)-1 / 2 ? need : b->cap * 2;
	b->data = xreallocarray(b->data, 1, b->cap);
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	buf_adds(b, s);
	free(s);
}

char *
buf_take(struct buf *b)
{
	char	*p;

	if (b->data == NULL)
		return xstrdup("");
	p = b->data;
	buf_init(b);
	return p;
}

int
buf_read_fd(struct buf *b, int fd, size_t max)
{
	char	chunk[65536];
	ssize_t	n;
	size_t	start = b->len;

	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			return 0;
		if (b->len - start + (size_t)n > max) {
			errno = EFBIG;
			return -1;
		}
		buf_add(b, chunk, n);
	}
}

int
buf_read_file(struct buf *b, const char *path, size_t max)
{
	int	fd, rc, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	rc = buf_read_fd(b, fd, max);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}
