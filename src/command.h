/*
 * command.h: the commands the configuration names for the interface to run:
 * new-mail-command (started and left to run) and query-command (its
 * output read). A command is a shell line with %-sequences, each value
 * put in single quotes for the shell, so that a folder's name or what a
 * person typed is one word and never shell syntax. Never prints.
 */
#ifndef STEED_COMMAND_H
#define STEED_COMMAND_H

#include <stddef.h>

#include "buf.h"

struct command_var {
	char		 letter;	/* %f */
	const char	*value;
};

/* tmpl with each %X of vars replaced by its value, quoted; %% is %; any
 * other % sequence is left as it is. Allocated. */
char	*command_expand(const char *tmpl, const struct command_var *, size_t n);

/*
 * Start cmd with /bin/sh, its input, output and errors on /dev/null, in
 * a session of its own, and do not wait for it (nothing is left for the
 * caller to reap). env: NAME=VALUE strings added to the environment, n of
 * them. Returns 0, or -1 with *cause.
 */
int	 command_spawn(const char *cmd, char *const env[], size_t n,
	    char **cause);

/*
 * Run cmd with /bin/sh and its input on /dev/null, and keep the first max
 * bytes of its output in out (the rest is read and dropped). Stops it
 * after timeout seconds, or when fe_cancelled(). Returns its exit status
 * (0..255), or -1 with *cause (could not run, killed, timed out,
 * cancelled).
 */
int	 command_read(const char *cmd, size_t max, int timeout, struct buf *out,
	    char **cause);

#endif
