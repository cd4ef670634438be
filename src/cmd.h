/*
 * cmd.h: the commands of the command line (main.c parses, these run).
 * Each returns a sysexits.h exit code and prints what the user must know;
 * they are the only code besides ui/ that writes to the terminal.
 */
#ifndef STEED_CMD_H
#define STEED_CMD_H

#include <stddef.h>

#include "config.h"

struct cmd_ctx {
	struct config	 *cf;
	const char	 *account;	/* -A, or NULL */
	int		  argc;		/* operands after the options */
	char		**argv;

	/* -s and its companions */
	const char	 *subject;
	char		**cc, **bcc, **attach;
	size_t		  ncc, nbcc, nattach;
};

int	cmd_check_config(struct cmd_ctx *);
int	cmd_send(struct cmd_ctx *);
int	cmd_flush(struct cmd_ctx *);
int	cmd_list(struct cmd_ctx *);
int	cmd_fetch(struct cmd_ctx *);
int	cmd_sync(struct cmd_ctx *);
int	cmd_view(struct cmd_ctx *);

/* "steedmail: MESSAGE" on stderr, the message made terminal-safe. */
void	cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The account -A names (or the default), or NULL after saying why. */
struct account *cmd_account(struct cmd_ctx *);

#endif
