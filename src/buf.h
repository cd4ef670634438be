/*
 * buf.h: a growable byte buffer, always NUL-terminated so its contents can
 * be used as a C string when they hold text. Used by every module that
 * builds output of unknown length.
 */
#ifndef STEED_BUF_H
#define STEED_BUF_H

#include <stddef.h>

struct buf {
	char	*data;
	size_t	 len;
	size_t	 cap;
};

void	 buf_init(struct buf *);
void	 buf_free(struct buf *);
void	 buf_reset(struct buf *);
void	 buf_add(struct buf *, const void *, size_t);
void	 buf_addc(struct buf *, char);
void	 buf_adds(struct buf *, const char *);
void	 buf_addf(struct buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * Add everything readable from fd (until end of file), at most max bytes
 * in all: 0, or -1 with errno set (EFBIG: more than max bytes).
 */
int	 buf_read_fd(struct buf *, int fd, size_t max);
/* The same for the file at path, opened and closed here. */
int	 buf_read_file(struct buf *, const char *path, size_t max);
/* Hand the contents to the caller (who frees them) and reset the buffer. */
char	*buf_take(struct buf *);

#endif
