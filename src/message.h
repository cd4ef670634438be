/*
 * message.h: one message opened into one model: its part tree with each
 * part's protection, the security verdicts (crypto-in.h, Autocrypt
 * included), the sender's trust verdict as the trust store has it, the
 * notes that belong to the message, and its display model (view.h's
 * lines). --view, --inspect and the pager open messages here, so all see
 * the same facts; doc/message.md describes the model for those who draw
 * it. The session API fetches a message and hands its bytes here.
 */
#ifndef STEED_MESSAGE_H
#define STEED_MESSAGE_H

#include <stddef.h>
#include <time.h>

#include "trust-store.h"
#include "verdict.h"
#include "view.h"

struct buf;
struct crypto_in;
struct mime_msg;
struct mime_part;

/* How much a part can be believed, from what covers it up to the top. */
enum message_protection {
	MESSAGE_CLEAR,		/* nothing: not signed, not encrypted */
	MESSAGE_UNPROTECTED,	/* decrypted, but nothing protects its
				   integrity (S/MIME enveloped data no
				   signature covers): may have been altered */
	MESSAGE_SIGNED,		/* a good signature covers it */
	MESSAGE_ENCRYPTED,	/* decrypted, integrity protected */
	MESSAGE_SIGNED_ENCRYPTED /* both */
};

struct message_part {
	const struct mime_part	*part;
	char			*name;	/* "root", "1.2", "1/2" (crypto_in_name) */
	int			 depth;	/* 0 for the root; content shown in
					   place of a part is one deeper */
	int			 inner;	/* content shown in place of a part */
	enum message_protection	 protection;
	const char		*status; /* its security sentence, or NULL */
};

enum message_note_kind {
	MESSAGE_NOTE_WARNING,	/* something in the message is wrong */
	MESSAGE_NOTE_INFO	/* worth knowing ("protected headers used") */
};

struct message_note {
	enum message_note_kind	 kind;
	char			*text;	/* raw: may hold bytes from outside */
};

struct message {
	struct mime_msg		*mime;
	struct crypto_in	*ci;		/* the verdicts, read-only */

	/* The part tree in the order shown, each part's inner content
	 * right after it. */
	struct message_part	*parts;
	size_t			 nparts;

	/* The sender's trust verdict (have_trust), or why there is none
	 * (trust.evidence, or trust_cause when the store failed). */
	int			 have_trust;
	struct trust_verdict	 trust;
	time_t			 dns_bogus;	/* the sender's last DNS
						   answer was bogus: when */

	struct message_note	*notes;
	size_t			 nnotes;

	/* The display model, made on the first message_lines(), and the
	 * brief one, on the first message_brief(). */
	struct view_lines	 lines;
	int			 have_lines;
	struct view_lines	 brief;
	int			 have_brief;
};

#define MESSAGE_NO_TRUST	0x1	/* leave the trust store alone */

/*
 * Open the len bytes at raw (allocated; the message takes them over, and
 * frees them also on failure). The GnuPG home must have been set with
 * crypto_init(). Valid Autocrypt keys are imported. Unless flags has
 * MESSAGE_NO_TRUST, the sender's state is recorded in ts (NULL: the
 * default store), as message_trust() does. Returns NULL with *cause only
 * when the message cannot be read at all (too large); whatever it holds
 * otherwise yields a model, with notes on what was wrong.
 */
struct message	*message_open(char *raw, size_t len, struct trust_store *ts,
		    int flags, char **cause);
/*
 * Record the message's sender state in ts (NULL: the default store) and
 * keep the verdict in m->trust. -1 with *cause (also kept as the
 * verdict's evidence) when there is no sender or the store fails.
 */
int		 message_trust(struct message *, struct trust_store *,
		    time_t now, char **cause);
/* The display model: lines with roles, each terminal-safe. */
const struct view_lines *message_lines(struct message *);
/*
 * The brief display model, the pager's first view: the header block, one
 * security line (message_security()) and at most one warning line; a
 * part's own security line only where its protection differs from the
 * message's, and the boundaries of content shown in place of a part
 * wherever protected and unprotected text meet. message_lines() has the
 * details.
 */
const struct view_lines *message_brief(struct message *);
/* What protects the message as a whole, in verdict.h's words. */
enum verdict_protection message_verdict(const struct message *);
/*
 * The message's one security line (allocated, terminal-safe only once
 * drawn as a view line): what protects it and who says so, e.g.
 * "encrypted and signed by bob@steed.test; key confirmed by DNSSEC", and
 * its tone. *warning gets the one thing that needs the reader's attention
 * (key changed, revoked, mixed protection, the first of the verdicts'
 * warnings), allocated, or NULL.
 */
char		*message_security(const struct message *, enum verdict_tone *,
		    char **warning);
/* The display model as --view prints it. */
void		 message_render(struct message *, struct buf *out);
void		 message_free(struct message *);

const char	*message_protection_name(enum message_protection);

#endif
