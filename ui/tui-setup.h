/*
 * tui-setup.h: what the setup wizard's files (ui/tui-setup*.c) share; the
 * rest of the interface knows only tui_setup_new() and tui_setup_main()
 * (tui.h).
 *
 *   tui-setup.c        the screen: its steps, the keys, the jobs' answers
 *   tui-setup-draw.c   what each step shows
 *   tui-setup-jobs.c   the steps' work off the interface thread: finding
 *                      the servers, logging in, the key, saving
 *   tui-setup-add.c    the saved account into the running interface
 *   tui-setup-pass.c   a passphrase for the new key, through pinentry
 *   tui-setup-device.c the key of the user's other device: an Autocrypt
 *                      Setup Message in the INBOX, imported with its code
 *   tui-setup-oauth.c  signing in with OAuth2 instead of a password: the
 *                      device grant's code asked for, the wait for its
 *                      approval, the refresh token kept (oauth2.h)
 */
#ifndef STEED_TUI_SETUP_H
#define STEED_TUI_SETUP_H

#include <stdatomic.h>

#include "buf.h"
#include "config.h"
#include "oauth2.h"
#include "account/setup.h"

struct tui_account;
struct tui_screen;

/* What the jobs need, copied so that the screen may go while they run. */
struct tui_setup_in {
	struct config		*cf;		/* the interface's; lives on */
	char			*name;
	char			*address;
	char			*user;		/* the login discovery found, or
						   NULL: the address */
	char			*password;	/* typed, or NULL */
	char			*command;	/* a password command, or NULL */
	struct config_url	 imap, smtp;
	char			*pin;		/* a certificate pinned, or NULL */
	char			*key;		/* a key chosen, or NULL */
	char			*pwkey;		/* the key the password is kept
						   encrypted to, or NULL */
	int			 smime;
	struct buf		 raw;		/* a setup message */
	char			*code;		/* its setup code */
	/* OAuth2 instead of a password (tui-setup-oauth.c) */
	int			 oauth;
	char			*oauth_id;	/* the account's name, under
						   which the token is kept;
						   NULL: not signed in yet */
	char			*token_url, *device_url, *auth_url;
	char			*scope, *client_id;
	struct oauth2_device	 dev;		/* the code being approved */
	int			 browser;	/* the code flow instead: */
	struct oauth2_code	 flow;		/* its listener and URL */
	struct tui_setup_stop	*stop;		/* to stop the wait, or NULL */
};

#define TUI_SETUP_BROWSER_WAIT	300	/* seconds for the browser's return */

/* A flag the screen sets to stop a job, shared with the job's copy. */
struct tui_setup_stop {
	atomic_int		 stop;
	atomic_int		 refs;
};
struct tui_setup_stop *tui_setup_stop_new(void);
struct tui_setup_stop *tui_setup_stop_ref(struct tui_setup_stop *);
void	 tui_setup_stop_unref(struct tui_setup_stop *);

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
	char			*pwfile;	/* where the password is kept */
	/* the other device's setup message: found, or imported (fpr) */
	int			 message;
	struct buf		 raw;
	char			 begin[3];
	/* OAuth2: the code to show, or why there is none or no token */
	struct oauth2_device	 dev;
	int			 browser;	/* the code flow: flow, and */
	struct oauth2_code	 flow;
	int			 opened;	/* a browser was started */
	enum oauth2_failure	 oauth_why;
	char			*tokenfile;	/* where the token is kept */
};

struct tui_setup_in *tui_setup_in_copy(const struct tui_setup_in *);
void	 tui_setup_in_free(void *);
void	 tui_setup_out_free(void *);

/* The wizard's state: the screen's (tui-setup.c), drawn by tui-setup-draw.c. */
enum ts_step {
	WZ_NAME,
	WZ_ADDRESS,
	WZ_HOW,			/* password or password command */
	WZ_PASSWORD,
	WZ_COMMAND,
	WZ_DISCOVER,		/* waits: looking for the servers */
	WZ_FOUND,		/* the servers, to accept or edit */
	WZ_CHECK,		/* waits: logging in */
	WZ_FAILED,		/* the login failed: what to do */
	WZ_DEVICE_LOOK,		/* waits: a setup message in the INBOX? */
	WZ_DEVICE,		/* there is one: use its key? */
	WZ_DEVICE_IMPORT,	/* waits: importing it with the code */
	WZ_KEY_MAKE,		/* waits: finding or making the key */
	WZ_KEY,			/* the key, and its options */
	WZ_KEYS,		/* the keys the user has, to pick one */
	WZ_OAUTH_CLIENT,	/* OAuth2: the client ID, when none is known */
	WZ_OAUTH_START,		/* waits: asking for a sign-in code */
	WZ_OAUTH_WAIT,		/* the URL and the code; waits: approval */
	WZ_OAUTH_FAILED,	/* the sign-in failed: why, what to do */
	WZ_SAVE,		/* waits: saving */
	WZ_RECORDS		/* saved: the DNS records */
};

struct ts {
	enum ts_step		 step;
	struct tui_setup_in	 in;
	int			 use_command;
	int			 saved;		/* the account is in the
					   configuration */
	int			 accepted;	/* the servers were accepted
						   once (Enter on WZ_FOUND) */
	int64_t			 oauth_since;	/* clock_ms() the code came */
	int			 opened;	/* a browser was started */
	int			 oauth_browser;	/* the sign-in is in a browser
						   of this machine */
	enum oauth2_failure	 oauth_why;	/* WZ_OAUTH_FAILED */
	char			*tokenfile;	/* where the token is kept */
	uint64_t		 job;		/* the job waited for, or 0 */
	char			*error;		/* said on the current step */

	struct setup_found	 found;
	int			 looked;	/* the servers were looked for */
	enum setup_origin	 imap_origin, smtp_origin;

	enum setup_which	 which;		/* WZ_FAILED */
	struct setup_check	 check;

	char			*fpr, *uid, *smime_fpr;
	int			 created, chosen, passphrase;
	int			 from_device;	/* the key came from the
						   other device's message */
	char			 begin[3];	/* its code's first digits */
	double			 seconds;

	struct setup_key	*keys;
	size_t			 nkeys, cursor;

	struct tui_account	*ta;		/* the account saved */
	char			*records, *records_file, *advice;
	char			*records_cause;
	char			*pwfile;	/* where the password is kept */
};

void		 tui_setup_draw(struct tui_screen *);
void		 tui_setup_status(struct tui_screen *, struct buf *);
/* The host of the IMAP or SMTP server, or "the server". */
const char	*tui_setup_host(struct ts *, enum setup_which);

/* Each runs on a thread of its own (tui_background()): a struct
 * tui_setup_in in, a struct tui_setup_out out. */
void	*tui_setup_discover_run(void *);
void	*tui_setup_check_run(void *);
void	*tui_setup_key_run(void *);
/*
 * The account's OpenPGP key, made if need be, into out (fpr, uid,
 * created, seconds); -1 and out->cause (none when gpg gave no reason).
 */
int	 tui_setup_make_key(struct tui_setup_in *, const struct account *,
	    struct tui_setup_out *, const char *none);
void	*tui_setup_keys_run(void *);
void	*tui_setup_save_run(void *);
void	*tui_setup_device_find_run(void *);
void	*tui_setup_device_import_run(void *);
void	*tui_setup_oauth_start_run(void *);
void	*tui_setup_oauth_wait_run(void *);

/* The code flow's listener and strings, for another job (a copy of
 * the descriptor), and their end. */
void	 tui_setup_flow_copy(struct oauth2_code *to,
	    const struct oauth2_code *from);
void	 tui_setup_flow_free(int *browser, struct oauth2_code *);

/* The OAuth2 settings of in into a (strings in's), id and auth too. */
void	 tui_setup_oauth_account(const struct tui_setup_in *,
	    struct account *);

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
