/*
 * crypto.h: the one door to gpgme. It chooses the GnuPG home (steedmail's
 * own under the data directory, 0700, or the configured gnupg-home), checks
 * the engines once, and hands out contexts bound to that home for OpenPGP
 * (gpg) and S/MIME (gpgsm). Everything else in src/crypto-* goes through
 * crypto_ctx(); nobody calls gpgme_new() directly.
 *
 * Safe to use from several threads once crypto_init() has run (doc/
 * design.md, "Threads"): the home and the key memo are shared behind a
 * lock, whether contexts may prompt is set per thread.
 */
#ifndef STEED_CRYPTO_H
#define STEED_CRYPTO_H

#include <gpgme.h>

#include "config.h"

/*
 * gpgme's own set-up, which must happen on the main thread before any
 * other thread uses it; cheap (no engine is started). crypto_init() does
 * it too, and then asks the engines, which takes a while: a program that
 * draws first calls this, then crypto_init() on another thread.
 */
int		 crypto_library_init(char **cause);
/* Set the home up (home NULL: the default). Safe to call more than once,
 * from any thread once crypto_library_init() has run. */
int		 crypto_init(const char *home, char **cause);
/* The GnuPG home in use (after crypto_init). */
const char	*crypto_home(void);
/*
 * What the keyrings are now (inode, size and modification time of
 * pubring.kbx and trustdb.gpg: every import, revocation or trust change
 * rewrites one of them, whoever makes it), as text into stamp, which has
 * CRYPTO_STAMP_LEN bytes: two stamps alike, nothing changed between.
 */
#define CRYPTO_STAMP_LEN	256
void		 crypto_keyring_stamp(char *stamp);
/*
 * A new context for proto, on the home. A gpg or gpgsm context that may
 * prompt (crypto_set_no_prompt() is off on this thread) is made after
 * fe_tty_begin(), so that pinentry asks on the front end's terminal;
 * crypto_release() then calls fe_tty_end(). Release it with
 * crypto_release() (gpgme_release() works, but leaves the front end
 * without its cue to redraw).
 */
gpgme_ctx_t	 crypto_ctx(gpgme_protocol_t proto, char **cause);
void		 crypto_release(gpgme_ctx_t);
/*
 * The key whose primary key or a subkey has fingerprint fpr (or a key ID,
 * 16 hex digits at least, that ends it), listed in a
 * context of its own with like's protocol and key listing mode, so that
 * like's results stay valid (gpgme_get_key does the same, but sets its
 * context's engine up again, which starts the engine once more only to
 * ask its version). 0 and *key, to unref, or an error (GPG_ERR_EOF: no
 * such key).
 */
gpgme_error_t	 crypto_key(gpgme_ctx_t, const char *fpr, int secret,
		     gpgme_key_t *key);
/*
 * Make the self-signed certificate fpr a trusted root for gpgsm, once
 * (gpg-agent's trustlist.txt in the home, "S relax"; why goes in the
 * comment line above it), and have gpg-agent read the list again.
 */
int		 crypto_trust_root(const char *fpr, const char *why,
		     char **cause);
/* Is a user ID's email (gpg: "a@b", gpgsm: "<a@b>") addr, any case? */
int		 crypto_uid_is(const char *email, const char *addr);
/*
 * While on, contexts made by crypto_ctx() on the calling thread fail an
 * operation that would ask for a passphrase or a PIN (pinentry mode
 * cancel) instead of asking: for work nobody is watching, such as a sync
 * on a worker thread. Per thread: other threads may still prompt.
 */
void		 crypto_set_no_prompt(int on);
int		 crypto_get_no_prompt(void);
/* "what: gpgme's words" for an error. */
char		*crypto_error(const char *what, gpgme_error_t);

#endif
