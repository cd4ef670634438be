/*
 * verdict.h: steedmail's one vocabulary for what it says about a message
 * and its sender. For every trust state (trust-store.h) and every verdict
 * on a message's protection: its word, its glyph (UTF-8 and ASCII, one
 * column each), its tone and a sentence that explains it. The index, the
 * pager, the key and trust-list screens, the compose line, --view,
 * --inspect, --list and --trust all take their words from here, so that
 * no two places call one thing by two names; doc/trust.md has the same
 * table as a glossary.
 */
#ifndef STEED_VERDICT_H
#define STEED_VERDICT_H

#include "trust-store.h"

enum verdict_tone {
	VERDICT_NEUTRAL,	/* nothing to say either way */
	VERDICT_GOOD,		/* protected, or the key is the known one */
	VERDICT_WARN,		/* worth the reader's attention */
	VERDICT_BAD		/* an attack is possible: look before acting */
};

/* What protects a message as a whole (message_verdict(), message.h). */
enum verdict_protection {
	VERDICT_CLEAR,		/* not signed, not encrypted */
	VERDICT_SIGNED,		/* a good signature by the sender */
	VERDICT_ENCRYPTED,	/* decrypted, integrity protected, unsigned */
	VERDICT_SIGNED_ENCRYPTED,
	VERDICT_UNCHECKED,	/* signed, but the key is not at hand */
	VERDICT_SIG_BAD,	/* a signature that does not match */
	VERDICT_SIG_OTHER,	/* good, but by someone other than From */
	VERDICT_NO_INTEGRITY,	/* decrypted, nothing protects it */
	VERDICT_NOT_DECRYPTED,	/* encrypted, could not be decrypted */
	VERDICT_PARTLY,		/* a part is signed, the rest is not */
	VERDICT_PROTECTION_COUNT
};

struct verdict_word {
	const char		*token;	/* the machine name (--inspect) */
	const char		*word;	/* for people: "first contact" */
	const char		*utf8;	/* the glyph, or NULL for none */
	const char		*ascii;
	enum verdict_tone	 tone;
	const char		*explain; /* one sentence */
};

const struct verdict_word *verdict_trust(enum trust_state);
const struct verdict_word *verdict_protection(enum verdict_protection);
/* The mark of a sender whose last DNS answer for a key was bogus. */
const struct verdict_word *verdict_dns_bogus(void);
const char	*verdict_tone_name(enum verdict_tone);
/*
 * The legend of the index's glyphs, entry i (NULL past the last): the
 * protection glyphs (one for everything encrypted, one for everything
 * signed and not encrypted), then each trust state's and the bogus mark.
 */
const struct verdict_word *verdict_legend(size_t i);

#endif
