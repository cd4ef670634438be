/*
 * policy.h: encryption by default. For a draft's recipients (To, Cc,
 * Bcc) it finds, per recipient, a key that may be used (the trust store's
 * pinned key first, then DNS OPENPGPKEY records, then keys already in
 * steedmail's GnuPG home from Autocrypt or an import; for S/MIME the
 * store, gpgsm's home, then SMIMEA records), and decides: encrypt,
 * send in clear, ask the user, or refuse, and why. Caller: draft.c. It never prints and never asks: the one line to
 * show is in the result, and asking is the caller's (policy_answer).
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
	POLICY_ASK,		/* ask the user; nobody to ask: refuse */
	POLICY_REFUSE
};

struct policy_in {
	const struct config	*cf;
	enum policy_encrypt	 mode;
	enum policy_fallback	 fallback;
	int			 require;	/* --encrypt, --require-encryption */
	int			 never;		/* --no-encrypt */
	int			 batch;		/* nobody to ask: ask refuses */
	/*
	 * The draft replies to encrypted mail (-s --reply FILE, the
	 * composer's reply). Forces encrypt-or-refuse whatever the settings;
	 * only never (--no-encrypt) overrides it.
	 */
	int			 replying_encrypted;
	int			 forwarding;	/* ... as a forward: its words */
	/*
	 * S/MIME: certificates in gpgsm's home, chosen by the same rules as
	 * OpenPGP keys (the store's key for the address first); DNS (SMIMEA)
	 * only for recipients with none in the store or the home.
	 */
	int			 smime;
	int			 use_dns;	/* look keys up in DNS */
	int			 home_empty;	/* no keyring: do not start gpg
						   to search it */
};

struct policy_rcpt {
	const char		*addr;
	char			*fpr;		/* the key to use, or NULL */
	const char		*source;	/* "trust store", "DNS", "GnuPG
						   home"; an S/MIME certificate
						   taken from DNS just now:
						   "dns-secure", "dns-insecure" */
	enum trust_state	 state;		/* of the address's pin
						   of the protocol used */
	char			*why;		/* no key: why */
	char			*warning;	/* e.g. a bogus DNS answer */
	int			 dns_bogus;	/* its DNS answer was refused */
	const char		*dns_failed;	/* its DNS lookup got no answer:
						   "servfail", "timeout",
						   "error"; or NULL */
	int			 dns_insecure;	/* its key came with an answer
						   from an unsigned zone, just
						   now (a first-contact hint) */
};

/*
 * A bogus DNS answer and a failed lookup are not "no key": the first may
 * be an attack, the second says nothing at all. Neither lets the
 * message go in clear, whatever fallback says (doc/dns.md has the table).
 */
enum policy_action {
	POLICY_ENCRYPT,
	POLICY_CLEAR,
	POLICY_ASK_USER,	/* fallback = ask: the caller asks, then
				   policy_answer() */
	POLICY_REFUSE_SEND,
	POLICY_HOLD,		/* a recipient's DNS answer was bogus: not
				   sent; only a person's explicit "send in
				   clear anyway" (the compose screen) or
				   --no-encrypt sends it */
	POLICY_WAIT		/* a lookup failed (servfail, timeout, no
				   resolver) for every recipient still
				   without a key: the message waits in the
				   outbox for an answer (draft_hold()) */
};

struct policy_result {
	enum policy_action	 action;
	struct policy_rcpt	*rcpts;		/* To, Cc, Bcc order */
	size_t			 n;
	char			*line;		/* the one line for the user */
	char			*dns_cause;	/* DNS could not be asked at
						   all (no resolver): why */
};

/* Parse the settings' words; -1 for an unknown one. */
int	policy_mode(const char *, enum policy_encrypt *);
int	policy_fallback_mode(const char *, enum policy_fallback *);

/*
 * Must the message be encrypted (or refused)? The one place for the rule:
 * --encrypt or --require-encryption, a reply to encrypted mail, or
 * encrypt = always; never when --no-encrypt says otherwise.
 */
int	policy_must(const struct policy_in *);

/*
 * Decide for the n recipients addrs. The GnuPG home must be set up
 * (crypto_init). Returns -1 with *cause only when the decision cannot be
 * made at all (the trust store cannot be opened).
 */
int	policy_decide(const struct policy_in *, char *const *addrs, size_t n,
	    struct policy_result *, char **cause);
void	policy_result_free(struct policy_result *);

/*
 * After POLICY_ASK_USER: the user's answer (yes: send in clear) makes it
 * POLICY_CLEAR or POLICY_REFUSE_SEND, with the line to show. asked is 0
 * when nobody could be asked (no terminal): then it is refused.
 */
void	policy_answer(struct policy_result *, int asked, int yes);
/* Why a recipient has no key to use, for a list ("no key known", ...). */
const char *policy_rcpt_reason(const struct policy_rcpt *);

#endif
