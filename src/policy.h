/*
 * policy.h: encryption by default. For a draft's recipients (To, Cc,
 * Bcc) it finds, per recipient, a key that may be used (the trust store's
 * pinned key first, then DNS OPENPGPKEY records, then keys already in
 * steedmail's GnuPG home from Autocrypt or an import), and decides: encrypt,
 * send in clear, or refuse, and why. Caller: cmd-send.c (later the
 * composer). It never prints; the one line to show is in the result.
 */
#ifndef STEED_POLICY_H
#define STEED_POLICY_H

#include <stddef.h>

#include "config.h"
#include "trust-store.h"

enum policy_encrypt {
	POLICY_OPPORTUNISTIC,	/* encrypt when every recipient has a key */
	POLICY_ALWAYS,		/* encrypt, or refuse */
	POLICY_NEVER		/* never unless asked */
};

enum policy_fallback {
	POLICY_PLAINTEXT,	/* send in clear, and say so */
	POLICY_ASK,		/* ask the user; in batch mode: refuse */
	POLICY_REFUSE
};

struct policy_in {
	const struct config	*cf;
	enum policy_encrypt	 mode;
	enum policy_fallback	 fallback;
	int			 require;	/* --encrypt, --require-encryption */
	int			 never;		/* --no-encrypt */
	int			 batch;		/* nobody to ask */
	/*
	 * The draft replies to encrypted mail (In-Reply-To names a message
	 * that was encrypted). Forces encrypt-or-refuse. -s has no reply
	 * mode yet; the composer will set it.
	 */
	int			 replying_encrypted;
	int			 use_dns;	/* look keys up in DNS */
	int			 home_empty;	/* no keyring: do not start gpg
						   to search it */
};

struct policy_rcpt {
	const char		*addr;
	char			*fpr;		/* the key to use, or NULL */
	const char		*source;	/* "trust store", "dns-secure" */
	enum trust_state	 state;		/* of the address */
	char			*why;		/* no key: why */
	char			*warning;	/* e.g. a bogus DNS answer */
};

enum policy_action {
	POLICY_ENCRYPT,
	POLICY_CLEAR,
	POLICY_REFUSE_SEND
};

struct policy_result {
	enum policy_action	 action;
	struct policy_rcpt	*rcpts;		/* To, Cc, Bcc order */
	size_t			 n;
	char			*line;		/* the one line for the user */
};

/* Parse the settings' words; -1 for an unknown one. */
int	policy_mode(const char *, enum policy_encrypt *);
int	policy_fallback_mode(const char *, enum policy_fallback *);

/*
 * Decide for the n recipients addrs. The GnuPG home must be set up
 * (crypto_init). Returns -1 with *cause only when the decision cannot be
 * made at all (the trust store cannot be opened).
 */
int	policy_decide(const struct policy_in *, char *const *addrs, size_t n,
	    struct policy_result *, char **cause);
void	policy_result_free(struct policy_result *);

#endif
