/*
 * crypto.c: gpgme set-up (see crypto.h).
 *
 * The engines run as child processes of gpgme with their home set through
 * gpgme_set_engine_info, never through the process environment, so a
 * user's GNUPGHOME does not leak into steedmail's own keyring by accident,
 * and steedmail's home does not leak into programs it starts (a password
 * command using gpg). The home is bound once per protocol and process, the
 * first time a context for it is asked for: gpgme starts the engine with
 * --version each time engine information is set, and a process that never
 * needs gpgsm never pays for it.
 * The terminal gpg-agent's pinentry asks on is the front end's business:
 * a context that may prompt is made after fe_tty_begin() (frontend.h),
 * which sets GPG_TTY to the terminal the front end names (the batch
 * commands: the first of standard input, output and error that is one,
 * also over SSH, whichever terminal the agent was started from; the
 * interface: its own, after leaving the screen), and crypto_release()
 * gives the terminal back with fe_tty_end().
 *
 * Threads. gpgme is thread-safe once gpgme_check_version() has run, which
 * crypto_init() does; call it on the main thread before starting workers.
 * The process-wide state here (the home, which engines are bound to it,
 * the key memo) is behind one mutex. Whether contexts may prompt is per
 * thread (crypto_set_no_prompt()): a worker syncing in the background
 * never prompts, and never touches GPG_TTY, while the thread that owns
 * the terminal opens a message that needs a passphrase.
 */
#include <sys/stat.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "crypto.h"
#include "frontend.h"
#include "log.h"
#include "paths.h"
#include "xmalloc.h"

static pthread_mutex_t		 crypto_lock = PTHREAD_MUTEX_INITIALIZER;
static char			*crypto_home_dir;	/* set once */
static int			 crypto_bound_pgp, crypto_bound_cms;
static _Thread_local int	 crypto_no_prompt;

char *
crypto_error(const char *what, gpgme_error_t err)
{
	/* What gpg-agent says when pinentry has no terminal to ask on. */
	if (gpg_err_code(err) == GPG_ERR_ENOTTY)
		return xasprintf("%s: %s: the key has a passphrase and there "
		    "is no terminal to ask for it on (run steedmail in one, "
		    "or set GPG_TTY)", what, gpgme_strerror(err));
	return xasprintf("%s: %s", what, gpgme_strerror(err));
}

int
crypto_library_init(char **cause)
{
	if (gpgme_check_version("1.13.0") == NULL) {
		*cause = xasprintf("gpgme is older than 1.13 (%s)",
		    gpgme_check_version(NULL));
		return -1;
	}
	return 0;
}

int
crypto_init(const char *home, char **cause)
{
	char		*data, *dir;
	gpgme_error_t	 err;
	int		 rc = -1;

	pthread_mutex_lock(&crypto_lock);
	if (crypto_home_dir != NULL) {
		pthread_mutex_unlock(&crypto_lock);
		return 0;
	}
	if (gpgme_check_version("1.13.0") == NULL) {
		*cause = xasprintf("gpgme is older than 1.13 (%s)",
		    gpgme_check_version(NULL));
		goto out;
	}
	if ((err = gpgme_engine_check_version(GPGME_PROTOCOL_OpenPGP)) != 0) {
		*cause = crypto_error("gpg cannot be used (install gnupg)",
		    err);
		goto out;
	}
	if (home != NULL)
		dir = xstrdup(home);
	else {
		if ((data = paths_data_dir(cause)) == NULL)
			goto out;
		dir = xasprintf("%s/gnupg", data);
		free(data);
	}
	if (paths_mkdirs(dir, 0700, cause) == -1) {
		free(dir);
		goto out;
	}
	crypto_home_dir = dir;
	log_msg(LOG_INFO, "crypto: GnuPG home %s", crypto_home_dir);
	rc = 0;
out:
	pthread_mutex_unlock(&crypto_lock);
	return rc;
}

const char *
crypto_home(void)
{
	const char	*home;

	pthread_mutex_lock(&crypto_lock);
	home = crypto_home_dir;
	pthread_mutex_unlock(&crypto_lock);
	return home;	/* never changes once set */
}

/* Point proto's engine at the home, once per process; crypto_lock held. */
static gpgme_error_t
crypto_bind(gpgme_protocol_t proto)
{
	gpgme_error_t	 err;
	int		*bound;

	if (proto == GPGME_PROTOCOL_OpenPGP)
		bound = &crypto_bound_pgp;
	else if (proto == GPGME_PROTOCOL_CMS)
		bound = &crypto_bound_cms;
	else
		return 0;	/* gpgconf, spawn: no home of their own */
	if (*bound)
		return 0;
	if ((err = gpgme_set_engine_info(proto, NULL, crypto_home_dir)) != 0)
		return err;
	*bound = 1;
	return 0;
}

gpgme_ctx_t
crypto_ctx(gpgme_protocol_t proto, char **cause)
{
	gpgme_ctx_t	 ctx;
	gpgme_error_t	 err;
	int		 prompt;

	pthread_mutex_lock(&crypto_lock);
	if (crypto_home_dir == NULL) {
		pthread_mutex_unlock(&crypto_lock);
		*cause = xstrdup("crypto: not initialised");
		return NULL;
	}
	err = crypto_bind(proto);
	pthread_mutex_unlock(&crypto_lock);
	if (err != 0) {
		*cause = crypto_error(proto == GPGME_PROTOCOL_CMS ?
		    "gpgsm cannot be used (install gpgsm)" :
		    "gpg cannot be used", err);
		return NULL;
	}
	if ((err = gpgme_new(&ctx)) != 0) {
		*cause = crypto_error("cannot start gpgme", err);
		return NULL;
	}
	if ((err = gpgme_set_protocol(ctx, proto)) != 0) {
		*cause = crypto_error(proto == GPGME_PROTOCOL_CMS ?
		    "gpgsm cannot be used (install gpgsm)" :
		    "gpg cannot be used", err);
		gpgme_release(ctx);
		return NULL;
	}
	gpgme_set_armor(ctx, 0);
	gpgme_set_offline(ctx, 1);	/* no key servers, no CRL fetches */
	prompt = proto == GPGME_PROTOCOL_OpenPGP || proto == GPGME_PROTOCOL_CMS;
	if (prompt && crypto_no_prompt)
		gpgme_set_pinentry_mode(ctx, GPGME_PINENTRY_MODE_CANCEL);
	else if (prompt)
		fe_tty_begin();		/* pinentry may ask from now on */
	return ctx;
}

/* Was ctx made by crypto_ctx() able to prompt (so after fe_tty_begin)? */
static int
crypto_ctx_prompts(gpgme_ctx_t ctx)
{
	gpgme_protocol_t	proto = gpgme_get_protocol(ctx);

	return (proto == GPGME_PROTOCOL_OpenPGP ||
	    proto == GPGME_PROTOCOL_CMS) &&
	    gpgme_get_pinentry_mode(ctx) != GPGME_PINENTRY_MODE_CANCEL;
}

void
crypto_release(gpgme_ctx_t ctx)
{
	int	prompted;

	if (ctx == NULL)
		return;
	prompted = crypto_ctx_prompts(ctx);
	gpgme_release(ctx);
	if (prompted)
		fe_tty_end();
}

/* gpg-agent reads trustlist.txt once: tell it to read it again. */
static int
crypto_reload_agent(char **cause)
{
	const char		*argv[] = { "gpgconf", "--homedir",
				    crypto_home(), "--reload", "gpg-agent",
				    NULL };
	const char		*gpgconf = NULL;
	gpgme_engine_info_t	 e;
	gpgme_ctx_t		 ctx;
	gpgme_error_t		 err;

	if (gpgme_get_engine_info(&e) == 0) {
		for (; e != NULL; e = e->next)
			if (e->protocol == GPGME_PROTOCOL_GPGCONF)
				gpgconf = e->file_name;
	}
	if (gpgconf == NULL) {
		*cause = xstrdup("gpgconf cannot be found");
		return -1;
	}
	if ((ctx = crypto_ctx(GPGME_PROTOCOL_SPAWN, cause)) == NULL)
		return -1;
	err = gpgme_op_spawn(ctx, gpgconf, argv, NULL, NULL, NULL, 0);
	crypto_release(ctx);
	if (err != 0) {
		*cause = crypto_error("cannot run gpgconf", err);
		return -1;
	}
	return 0;
}

int
crypto_trust_root(const char *fpr, const char *why, char **cause)
{
	FILE	*f;
	char	*path, line[256];
	size_t	 n = strlen(fpr);
	int	 bad;

	if (crypto_home() == NULL) {
		*cause = xstrdup("crypto: not initialised");
		return -1;
	}
	path = xasprintf("%s/trustlist.txt", crypto_home());
	if ((f = fopen(path, "r")) != NULL) {
		while (fgets(line, sizeof line, f) != NULL) {
			if (strncasecmp(line, fpr, n) == 0 &&
			    (line[n] == ' ' || line[n] == '\t')) {
				fclose(f);
				free(path);
				return 0;
			}
		}
		fclose(f);
	}
	if ((f = fopen(path, "a")) == NULL) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	fprintf(f, "# steedmail: %s\n%s S relax\n", why, fpr);
	bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	return crypto_reload_agent(cause);
}

int
crypto_uid_is(const char *email, const char *addr)
{
	size_t	n = strlen(addr);

	if (email == NULL)
		return 0;
	if (*email == '<')	/* gpgsm: "<a@b>" */
		return strncasecmp(email + 1, addr, n) == 0 &&
		    strcmp(email + 1 + n, ">") == 0;
	return strcasecmp(email, addr) == 0;
}

void
crypto_set_no_prompt(int on)
{
	crypto_no_prompt = on;
}

int
crypto_get_no_prompt(void)
{
	return crypto_no_prompt;
}

/*
 * Keys listed before, per process, while the home's keyrings are as they
 * were (same inode, size and modification time of pubring.kbx and
 * trustdb.gpg: every import, revocation or trust change rewrites one of
 * them, whoever makes it). A pager that shows many messages from one
 * sender asks gpg for the sender's key once. Behind crypto_lock; the
 * keys handed out are references of their own (gpgme's are thread-safe).
 */
#define CRYPTO_KEYS_MAX	64

struct crypto_key_memo {
	gpgme_protocol_t	 proto;
	gpgme_keylist_mode_t	 mode;
	int			 secret;
	char			*fpr;
	gpgme_key_t		 key;
};

static struct crypto_key_memo	 crypto_keys[CRYPTO_KEYS_MAX];
static size_t			 crypto_nkeys, crypto_keys_next;
static char			 crypto_keys_stamp[CRYPTO_STAMP_LEN];

static void
crypto_keys_flush(void)
{
	size_t	i;

	for (i = 0; i < crypto_nkeys; i++) {
		free(crypto_keys[i].fpr);
		gpgme_key_unref(crypto_keys[i].key);
	}
	crypto_nkeys = crypto_keys_next = 0;
}

/* The keyrings' stamp into stamp (CRYPTO_STAMP_LEN). */
static void
crypto_stamp(const char *home, char *stamp)
{
	static const char	*files[] = { "pubring.kbx", "trustdb.gpg" };
	struct stat		 sb;
	char			*path;
	size_t			 i, off = 0;

	stamp[0] = '\0';
	for (i = 0; i < sizeof files / sizeof *files; i++) {
		path = xasprintf("%s/%s", home, files[i]);
		if (stat(path, &sb) == 0) {
			off += snprintf(stamp + off, CRYPTO_STAMP_LEN - off,
			    "%llu.%lld.%lld.%ld;",
			    (unsigned long long)sb.st_ino,
			    (long long)sb.st_size, (long long)sb.st_mtim.tv_sec,
			    (long)sb.st_mtim.tv_nsec);
		} else
			off += snprintf(stamp + off, CRYPTO_STAMP_LEN - off,
			    "-;");
		free(path);
		if (off >= CRYPTO_STAMP_LEN)
			off = CRYPTO_STAMP_LEN - 1;
	}
}

void
crypto_keyring_stamp(char *stamp)
{
	pthread_mutex_lock(&crypto_lock);
	if (crypto_home_dir == NULL)
		stamp[0] = '\0';
	else
		crypto_stamp(crypto_home_dir, stamp);
	pthread_mutex_unlock(&crypto_lock);
}

/* Flush the memo if the keyrings changed since it was filled; locked. */
static void
crypto_keys_check(void)
{
	char	stamp[sizeof crypto_keys_stamp];

	crypto_stamp(crypto_home_dir, stamp);
	if (strcmp(stamp, crypto_keys_stamp) != 0) {
		crypto_keys_flush();
		memcpy(crypto_keys_stamp, stamp, sizeof stamp);
	}
}

/*
 * Does the (sub)key's fingerprint have, or end in, id? gpgme gives a bad
 * signature's key as a 16-digit key ID, a good one's as a fingerprint.
 */
static int
crypto_key_is(const char *fpr, const char *id)
{
	size_t	flen, ilen = strlen(id);

	if (fpr == NULL || ilen < 16 || (flen = strlen(fpr)) < ilen)
		return 0;
	return strcasecmp(fpr + flen - ilen, id) == 0;
}

gpgme_error_t
crypto_key(gpgme_ctx_t like, const char *fpr, int secret, gpgme_key_t *key)
{
	struct crypto_key_memo	*m;
	gpgme_protocol_t	 proto;
	gpgme_keylist_mode_t	 mode;
	gpgme_ctx_t		 lc;
	gpgme_key_t		 k, found = NULL;
	gpgme_subkey_t		 sk;
	gpgme_error_t		 err;
	char			*cause = NULL;
	size_t			 i;

	*key = NULL;
	if (fpr == NULL || *fpr == '\0')
		return gpg_error(GPG_ERR_INV_VALUE);
	proto = gpgme_get_protocol(like);
	mode = gpgme_get_keylist_mode(like);
	pthread_mutex_lock(&crypto_lock);
	crypto_keys_check();
	for (i = 0; i < crypto_nkeys; i++) {
		m = &crypto_keys[i];
		if (m->proto == proto && m->mode == mode &&
		    m->secret == secret && strcasecmp(m->fpr, fpr) == 0) {
			gpgme_key_ref(m->key);
			*key = m->key;
			pthread_mutex_unlock(&crypto_lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&crypto_lock);
	if ((lc = crypto_ctx(proto, &cause)) == NULL) {
		free(cause);
		return gpg_error(GPG_ERR_INV_ENGINE);
	}
	gpgme_set_keylist_mode(lc, mode);
	if ((err = gpgme_op_keylist_start(lc, fpr, secret)) != 0) {
		crypto_release(lc);
		return err;
	}
	while (gpgme_op_keylist_next(lc, &k) == 0) {
		for (sk = k->subkeys; sk != NULL; sk = sk->next) {
			if (crypto_key_is(sk->fpr, fpr))
				break;
		}
		if (sk != NULL && found == NULL)
			found = k;
		else
			gpgme_key_unref(k);
	}
	gpgme_op_keylist_end(lc);
	crypto_release(lc);
	if (found == NULL)
		return gpg_error(GPG_ERR_EOF);
	pthread_mutex_lock(&crypto_lock);
	m = &crypto_keys[crypto_keys_next];
	if (crypto_keys_next == crypto_nkeys)
		crypto_nkeys++;
	else {
		free(m->fpr);
		gpgme_key_unref(m->key);
	}
	crypto_keys_next = (crypto_keys_next + 1) % CRYPTO_KEYS_MAX;
	m->proto = proto;
	m->mode = mode;
	m->secret = secret;
	m->fpr = xstrdup(fpr);
	gpgme_key_ref(found);
	m->key = found;
	pthread_mutex_unlock(&crypto_lock);
	*key = found;
	return 0;
}
