/*
 * log.h: the debug log (-d LEVEL), a file under the cache directory.
 * Passwords never reach it: every secret the program holds is registered
 * with log_secret_add() and scrubbed from every line before it is written,
 * and callers never pass message plaintext of encrypted mail.
 */
#ifndef STEED_LOG_H
#define STEED_LOG_H

#define LOG_ERROR	0	/* always written while the log is open */
#define LOG_INFO	1
#define LOG_PROTO	2	/* protocol exchanges, credentials redacted */
#define LOG_TRACE	3

int	 log_open(const char *path, int level, char **cause);
void	 log_close(void);
int	 log_level(void);
void	 log_msg(int level, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* Register a secret to scrub from the log, and forget it again. */
void	 log_secret_add(const char *secret);
void	 log_secret_remove(const char *secret);

#endif
