/*
 * crypto-in.h: the security verdicts of an incoming message. It walks a
 * parsed message, decrypts and verifies what OpenPGP (PGP/MIME, inline)
 * and S/MIME content it finds, and says per part what is known: only from
 * gpgme's result structures, never from text in the message. Decrypted
 * and verified content is parsed again and kept here, to be shown in place
 * of the part it came from (view.h's hooks). Callers: ui/cli-inspect.c,
 * ui/cli-view.c, later the pager. It never prints, and never passes decrypted
 * text to the debug log.
 */
#ifndef STEED_CRYPTO_IN_H
#define STEED_CRYPTO_IN_H

#include <stddef.h>
#include <time.h>

#include "autocrypt-parse.h"

struct mime_header;
struct mime_msg;
struct mime_part;

#define CRYPTO_IN_MAX_DEPTH	4	/* crypto layers opened, one in another */
/* How far ahead of this computer's clock a signature may be dated: clocks
 * differ, and a day covers any time zone mistake. */
#define CRYPTO_IN_CLOCK_SKEW	(24 * 60 * 60)

enum crypto_in_proto {
	CRYPTO_IN_NONE,
	CRYPTO_IN_OPENPGP,
	CRYPTO_IN_SMIME
};

enum crypto_in_sigstatus {
	CRYPTO_IN_GOOD,		/* the key made it and the part is unchanged */
	CRYPTO_IN_BAD,		/* the part was changed, or a forgery */
	CRYPTO_IN_EXPIRED,	/* the signature or the key has expired */
	CRYPTO_IN_REVOKED,	/* the key was revoked */
	CRYPTO_IN_UNKNOWN_KEY,	/* no public key to check it with */
	CRYPTO_IN_ERROR		/* it could not be checked */
};

enum crypto_in_integrity {
	CRYPTO_IN_INTEGRITY_NA,		/* not encrypted */
	CRYPTO_IN_INTEGRITY_OK,
	CRYPTO_IN_INTEGRITY_FAILED,	/* the check failed: changed */
	CRYPTO_IN_INTEGRITY_NONE,	/* no protection (no MDC; S/MIME CBC) */
	CRYPTO_IN_INTEGRITY_UNKNOWN	/* not decrypted: cannot tell */
};

/* Whether a signature's date can be right (crypto-in-sig.c). */
enum crypto_in_sigtime {
	CRYPTO_IN_TIME_OK,
	CRYPTO_IN_TIME_FUTURE,		/* dated after now + CLOCK_SKEW */
	CRYPTO_IN_TIME_BEFORE_KEY	/* dated before its key was made */
};

struct crypto_in_sig {
	enum crypto_in_proto	 proto;
	enum crypto_in_sigstatus status;
	const struct mime_part	*part;		/* the part it covers */
	char			*name;		/* its name (crypto_in_name) */
	char			*fpr;		/* or key ID, as gpgme has it */
	char			*signer;	/* address from the key; or NULL */
	char			*from;		/* the From it is held against */
	int			 matches_from;
	int			 key_expired;	/* EXPIRED: the key, not only
						   the signature */
	time_t			 created;	/* its date, or 0 */
	time_t			 key_created;	/* its (sub)key's, or 0 */
	enum crypto_in_sigtime	 time;		/* not OK: status ERROR */
	const char		*validity;	/* of the key: "full", ... */
	char			*reason;	/* error, expired, revoked: why */
	char			**uids;		/* the key's user ID addresses */
	size_t			 nuids;
};

/* What is known of one part; parts without an entry have nothing. */
struct crypto_in_part {
	const struct mime_part	*part;
	char			*status;	/* sentence for the view */
	struct mime_msg		*inner;		/* shown in its place */
	int			 decrypted;	/* inner is decrypted content */
	int			 no_integrity;	/* ... that nothing protects
					   (S/MIME enveloped, unsigned) */
	int			 covered;	/* a good signature covers it */
};

struct crypto_in {
	struct mime_msg		*msg;		/* not owned */
	char			*from;		/* the sender, lower case */

	enum crypto_in_proto	 encryption;	/* of the message's top */
	enum crypto_in_integrity integrity;
	int			 decrypted;
	char			*not_decrypted;	/* why, when encrypted */
	const struct mime_header *protected;	/* protected headers, or NULL */
	const struct mime_part	*protected_part; /* the entity they are on */
	const char		*signed_state;	/* "yes", "partly", ... */
	char			*summary;	/* one sentence */

	struct crypto_in_sig	*sigs;
	size_t			 nsigs;
	struct crypto_in_part	*parts;
	size_t			 nparts;
	char			**warnings;
	size_t			 nwarnings;

	struct autocrypt_result	 autocrypt;
};

/*
 * Analyse m (which must outlive the result). The GnuPG home must have been
 * set with crypto_init(); if it was not, or gpg cannot run, signatures
 * come out as errors saying so. With autocrypt not 0, valid Autocrypt
 * keys are imported. Never fails.
 */
struct crypto_in *crypto_in_analyse(struct mime_msg *m, int autocrypt);
/*
 * As crypto_in_analyse(m, 1), and once more when a signature could not be
 * checked for want of a key this message's own Autocrypt data brought:
 * once imported, the key checks it, so a first message counts as signed
 * (and is first contact in the trust store). --inspect and sync-trust.c.
 */
struct crypto_in *crypto_in_analyse_import(struct mime_msg *m);
void		 crypto_in_free(struct crypto_in *);

/* A part's name: "root" for the message (or the content shown for it),
 * else its section; in content shown for another part, "NAME/SECTION". */
char		*crypto_in_name(const struct crypto_in *,
		    const struct mime_part *);
const char	*crypto_in_status_name(enum crypto_in_sigstatus);
const char	*crypto_in_integrity_name(enum crypto_in_integrity);
const char	*crypto_in_proto_name(enum crypto_in_proto);
/* A date as the verdicts write it, YYYY-MM-DD in UTC, into buf. */
const char	*crypto_in_date(time_t, char *buf, size_t len);

/*
 * What covers part p, up to the top: a good signature (*sig), a
 * decryption with integrity protection (*enc), a decryption without it
 * (*weak: S/MIME enveloped data no signature covers).
 */
void		 crypto_in_coverage(const struct crypto_in *,
		    const struct mime_part *, int *sig, int *enc, int *weak);

/* view.h hooks; arg is the struct crypto_in. */
char		*crypto_in_view_status(const struct mime_part *, void *arg);
struct mime_part *crypto_in_view_inner(const struct mime_part *, void *arg);

#endif
