/*
 * cli.h: the batch commands (cli-main.c parses the command line, these run).
 * Each returns a sysexits.h exit code and prints what the user must know;
 * they are the only code besides ui/ that writes to the terminal.
 */
#ifndef STEED_CLI_H
#define STEED_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "config.h"

struct buf;
struct crypto_in;
struct session;
struct trust_verdict;

struct cmd_ctx {
	struct config	 *cf;
	const char	 *account;	/* -A, or NULL */
	int		  argc;		/* operands after the options */
	char		**argv;

	/* -s and its companions */
	const char	 *subject;
	char		**cc, **bcc, **attach;
	size_t		  ncc, nbcc, nattach;

	int		  timeout;	/* --timeout seconds; 0: default */
	const char	 *part;		/* --part SECTION for --fetch */
	const char	 *sort;		/* --sort ORDER for --list */
	const char	 *limit;	/* --limit EXPR for --list */

	/* --sign, --encrypt, --smime (with -s; --smime with the key ones) */
	int		  sign, encrypt, smime;
	/* --no-encrypt, --require-encryption (with -s) */
	int		  no_encrypt, require_encryption;
	const char	 *reply;	/* --reply FILE (with -s), or NULL */
	int		  quote;	/* --quote (with --reply) */
	const char	 *forward;	/* --forward(-inline) FILE, or NULL */
	int		  forward_inline;
	int		  postpone;	/* --postpone (with -s) */
	const char	 *resume;	/* --resume FILE, or NULL */

	const char	 *config_path;	/* -F, or NULL: the default file */
	const char	 *debug;	/* -d LEVEL, or NULL */
	int		  offline;	/* --offline */
	int		  all_folders;	/* --all-folders (with --search) */
	/* --setup's answers given on the command line */
	const char	 *setup_name, *setup_address;
	const char	 *setup_imap, *setup_smtp;	/* URLs */
	const char	 *setup_password_command;
	const char	 *setup_pin;	/* --pin: the certificate to accept */
	int		  yes;		/* --yes: accept what was found */
	int		  browser;	/* --browser: --oauth-login's code flow */
};

int	cmd_check_config(struct cmd_ctx *);
int	cmd_send(struct cmd_ctx *);
int	cmd_flush(struct cmd_ctx *);
int	cmd_resume(struct cmd_ctx *);
int	cmd_list(struct cmd_ctx *);
int	cmd_fetch(struct cmd_ctx *);
int	cmd_search(struct cmd_ctx *);
int	cmd_sync(struct cmd_ctx *);
int	cmd_view(struct cmd_ctx *);
int	cmd_inspect(struct cmd_ctx *);
int	cmd_idle(struct cmd_ctx *);
int	cmd_folders(struct cmd_ctx *);
int	cmd_flag(struct cmd_ctx *);
int	cmd_move(struct cmd_ctx *);
int	cmd_delete(struct cmd_ctx *);
int	cmd_genkey(struct cmd_ctx *);
/* cli-oauth.c */
int	cmd_oauth2_login(struct cmd_ctx *);
int	cmd_export_key(struct cmd_ctx *);
int	cmd_import_key(struct cmd_ctx *);
int	cmd_trust(struct cmd_ctx *);
int	cmd_lookup(struct cmd_ctx *);
int	cmd_dns_records(struct cmd_ctx *);
int	cmd_setup(struct cmd_ctx *);		/* cli-setup.c */
int	cmd_publish(struct cmd_ctx *);		/* cli-publish.c */
int	cmd_export_setup(struct cmd_ctx *);	/* cli-device.c */
int	cmd_import_setup(struct cmd_ctx *);
int	cmd_export_secret_key(struct cmd_ctx *);
/* crypto_init() on the configured home; -1 after saying why. */
int	cmd_key_init(struct cmd_ctx *);

/* A message file (or - for standard input) into raw; an exit code. */
int	cmd_view_read(const char *path, struct buf *raw);
/* crypto_init() for --view and --inspect: a failure is only a warning. */
void	cmd_crypto_init(struct cmd_ctx *);

/*
 * The batch front end's hooks (frontend.h) for the calling thread:
 * prompts on /dev/tty, notices as "steedmail: warning: ..." (cli-hooks.c).
 */
void	cmd_hooks_install(void);
void	cmd_hooks_remove(void);

/*
 * Open the account's session (session.h), saying how many saved flag
 * changes it sent. A server out of reach is not an error here:
 * session_down() says why. Returns EX_OK, or an exit code after saying
 * why.
 */
int	cmd_open(struct cmd_ctx *, struct session **);
/* The server is out of reach: say why (and what), close, EX_TEMPFAIL. */
int	cmd_down(struct session *, const char *what);
/* The exit code for a result of session.h. */
int	cmd_exit(int result);
/* A UID operand of command what, or 0 after saying why. */
uint32_t cmd_uid(const char *what, const char *arg);
/* The UIDs of a list such as "3,7,10:12" (*uids allocated); -1 after
 * saying what is wrong with it. */
int	 cmd_uids(const char *what, const char *arg, uint32_t **uids,
	    size_t *n);

/* PREFIX then the text on f, the text (not the prefix) made terminal-safe. */
void	cmd_print(FILE *, const char *prefix, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* "steedmail: MESSAGE" on stderr, the message made terminal-safe. */
void	cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The account -A names (or the default), or NULL after saying why. */
struct account *cmd_account(struct cmd_ctx *);

#endif
