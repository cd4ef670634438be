/*
 * tui-setup.h: what the setup wizard's files (ui/tui-setup*.c) share; the
 * rest of the interface knows only tui_setup_new() and tui_setup_main()
 * (tui.h).
 *
 *   tui-setup.c        the screen: its steps, what each draws, the keys
 *   tui-setup-jobs.c   the steps' work off the interface thread: finding
 *                      the servers, logging in, the key, saving
 *   tui-setup-add.c    the saved account into the running interface
 *   tui-setup-pass.c   a passphrase for the new key, through pinentry
 *   tui-setup-device.c the key of the user's other device: an Autocrypt
 *                      Setup Message in the INBOX, imported with its code
 */
#ifndef STEED_TUI_SETUP_H
#define STEED_TUI_SETUP_H

#include "buf.h"
#include "config.h"
#include "account/setup.h"

/* What the jobs need, copied so that the screen may go while they run. */
struct tui_setup_in {
	struct config		*cf;		/* the interface's; lives on */
	char			*name;
	char			*address;
	char			*password;	/* typed, or NULL */
	char			*command;	/* a password command, or NULL */
	struct config_url	 imap, smtp;
	char			*pin;		/* a certificate pinned, or NULL */
	char			*key;		/* a key chosen, or NULL */
	int			 smime;
	struct buf		 raw;		/* a setup message */
	char			*code;		/* its setup code */
};

/* What they hand back (one struct for every job; each fills its part). */
struct tui_setup_out {
	char			*cause;		/* the job failed: why */
	/* discover */
	struct setup_found	 found;
	/* check */
	enum setup_which	 which;		/* the server that failed */
	struct setup_check	 check;
	/* key */
	char			*fpr;
	char			*uid;
	int			 created;
	double			 seconds;
	char			*smime_fpr;
	/* keys */
	struct setup_key	*keys;
	size_t			 nkeys;
	/* save */
	struct config		*saved;		/* the file read again */
	char			*id;
	char			*records;
	char			*records_file;
	char			*advice;
	char			*records_cause;
	/* the other device's setup message: found, or imported (fpr) */
	int			 message;
	struct buf		 raw;
	char			 begin[3];
};

struct tui_setup_in *tui_setup_in_copy(const struct tui_setup_in *);
void	 tui_setup_in_free(void *);
void	 tui_setup_out_free(void *);

/* Each runs on a thread of its own (tui_background()): a struct
 * tui_setup_in in, a struct tui_setup_out out. */
void	*tui_setup_discover_run(void *);
void	*tui_setup_check_run(void *);
void	*tui_setup_key_run(void *);
void	*tui_setup_keys_run(void *);
void	*tui_setup_save_run(void *);
void	*tui_setup_device_find_run(void *);
void	*tui_setup_device_import_run(void *);

/* "imaps://host:port" and back (setup_url_parse(), setup_url_text());
 * -1 and *cause when it is not one. */
int	 tui_setup_url_parse(const char *, int imap, struct config_url *,
	    char **cause);
char	*tui_setup_url_string(const struct config_url *, int imap);

/* The account id of saved in the interface: its worker started, the
 * interface's account. NULL when it is not in the file. */
struct tui_account *tui_setup_adopt(struct config *saved, const char *id);

/* A passphrase for key fpr through pinentry on the terminal. */
int	 tui_setup_passphrase(const char *fpr, char **cause);

#endif
