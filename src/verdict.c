/*
 * verdict.c: the one table of words, glyphs, tones and explanations
 * (verdict.h). A word here is the only name a state has on a screen or in
 * a command's output for people; the token is the one in machine output
 * and in the trust store. Glyphs are one column wide and no UTF-8 glyph is
 * an ASCII letter; each trust state has a glyph of its own, while the
 * protection verdicts share two (encrypted, signed) and differ in tone.
 */
#include <stddef.h>

#include "verdict.h"

static const struct verdict_word verdict_trust_words[] = {
	[TRUST_NONE] = { "none", "no key", NULL, NULL, VERDICT_NEUTRAL,
	    "Nothing is known yet of a key for this address." },
	[TRUST_UNSIGNED] = { "unsigned", "not signed", NULL, NULL,
	    VERDICT_NEUTRAL,
	    "No signature of the sender's could be checked on this message, "
	    "so it says nothing about the sender's key." },
	[TRUST_FIRST_CONTACT] = { "first-contact", "first contact",
	    "\xe2\x98\x86", "f", VERDICT_WARN,	/* ☆ */
	    "The first key seen for this sender: accepted and remembered, "
	    "so that a different key later is noticed." },
	[TRUST_KNOWN] = { "known", "known key", "\xe2\x97\x8f", "k",
	    VERDICT_GOOD,			/* ● */
	    "Signed by the key this sender has used before." },
	[TRUST_KEY_CHANGED] = { "key-changed", "key changed", "\xe2\x89\xa0",
	    "C", VERDICT_BAD,			/* ≠ */
	    "Signed by a key other than the one known for this sender: the "
	    "sender may have a new key, or someone else may be writing as "
	    "them." },
	[TRUST_REVOKED] = { "revoked", "key revoked", "\xe2\x9c\x97", "R",
	    VERDICT_BAD,			/* ✗ */
	    "The sender's key was revoked: its owner says it must not be "
	    "used any more." },
	[TRUST_EXPIRED] = { "expired", "key expired", "\xe2\x8a\x98", "X",
	    VERDICT_WARN,			/* ⊘ */
	    "The sender's key has expired: mail cannot be encrypted to it "
	    "until it is renewed." },
	[TRUST_DNS_CONFIRMED] = { "dns-confirmed", "key confirmed by DNSSEC",
	    "\xe2\x9c\xa6", "D", VERDICT_GOOD,	/* ✦ */
	    "The sender's domain publishes this key in DNS, and DNSSEC "
	    "proves the answer authentic." },
	[TRUST_CONFLICT] = { "conflict", "key differs from DNS",
	    "\xe2\x87\x84", "c", VERDICT_BAD,	/* ⇄ */
	    "The sender's domain publishes another key than the one known "
	    "for this sender, in an answer DNSSEC proves authentic." },
	[TRUST_VERIFIED] = { "verified", "key verified in person",
	    "\xe2\x9c\x94", "V", VERDICT_GOOD,	/* ✔ */
	    "You compared this key's fingerprint with its owner's and marked "
	    "it verified." },
};

static const struct verdict_word verdict_protection_words[] = {
	[VERDICT_CLEAR] = { "clear", "not signed, not encrypted", NULL, NULL,
	    VERDICT_WARN,
	    "Anyone on the way could have read or changed this message." },
	[VERDICT_SIGNED] = { "signed", "signed", "\xe2\x97\x87", "S",
	    VERDICT_GOOD,			/* ◇ */
	    "A good signature by the sender covers the message: it was not "
	    "changed on the way, but others could read it." },
	[VERDICT_ENCRYPTED] = { "encrypted", "encrypted, not signed",
	    "\xe2\x97\x86", "E", VERDICT_GOOD,	/* ◆ */
	    "Only you could read it on the way, but nothing proves who wrote "
	    "it." },
	[VERDICT_SIGNED_ENCRYPTED] = { "signed-encrypted", "encrypted and "
	    "signed", "\xe2\x97\x86", "E", VERDICT_GOOD,
	    "Only you could read it on the way, and a good signature by the "
	    "sender covers it." },
	[VERDICT_UNCHECKED] = { "unchecked", "signed, not checked",
	    "\xe2\x97\x87", "S", VERDICT_WARN,
	    "The message is signed with a key steedmail does not have, so "
	    "the signature can neither be confirmed nor refuted." },
	[VERDICT_SIG_BAD] = { "bad-signature", "signature does not match",
	    "\xe2\x97\x87", "S", VERDICT_BAD,
	    "The signature does not fit the message: it was changed after "
	    "signing, or the signature is forged." },
	[VERDICT_SIG_OTHER] = { "signed-by-other", "signed by someone else",
	    "\xe2\x97\x87", "S", VERDICT_BAD,
	    "The signature is good, but the key belongs to another address "
	    "than the sender's: it says nothing about who wrote it." },
	[VERDICT_NO_INTEGRITY] = { "no-integrity", "decrypted, not "
	    "protected from changes", "\xe2\x97\x86", "E", VERDICT_BAD,
	    "The message was encrypted in a way that does not detect "
	    "changes, and no signature covers it: it may have been altered." },
	[VERDICT_NOT_DECRYPTED] = { "not-decrypted", "encrypted, not "
	    "decrypted", "\xe2\x97\x86", "E", VERDICT_WARN,
	    "The message is encrypted, and it could not be decrypted here." },
	[VERDICT_PARTLY] = { "partly-signed", "partly signed",
	    "\xe2\x97\x87", "S", VERDICT_WARN,
	    "A signature covers only some of the parts: what it does not "
	    "cover could have been added by anyone." },
};

static const struct verdict_word verdict_bogus = {
	"dns-bogus", "bogus DNS answer", "\xe2\x98\xa0", "B", VERDICT_BAD,
	/* ☠ */
	"The last DNS answer for the sender's key failed DNSSEC validation: "
	"it was forged or broken on the way, and was not used."
};

static const struct verdict_word verdict_glyph_encrypted = {
	"encrypted", "encrypted", "\xe2\x97\x86", "E", VERDICT_GOOD,
	"The message is encrypted (and maybe signed)."
};
static const struct verdict_word verdict_glyph_signed = {
	"signed", "signed, not encrypted", "\xe2\x97\x87", "S",
	VERDICT_GOOD, "The message is signed and not encrypted."
};

const struct verdict_word *
verdict_legend(size_t i)
{
	size_t	s;

	if (i == 0)
		return &verdict_glyph_encrypted;
	if (i == 1)
		return &verdict_glyph_signed;
	for (i -= 2, s = 0; s < sizeof verdict_trust_words /
	    sizeof *verdict_trust_words; s++) {
		if (verdict_trust_words[s].utf8 == NULL)
			continue;
		if (i-- == 0)
			return &verdict_trust_words[s];
	}
	return i == 0 ? &verdict_bogus : NULL;
}

const struct verdict_word *
verdict_trust(enum trust_state s)
{
	if ((size_t)s >= sizeof verdict_trust_words /
	    sizeof *verdict_trust_words)
		s = TRUST_NONE;
	return &verdict_trust_words[s];
}

const struct verdict_word *
verdict_protection(enum verdict_protection p)
{
	if ((unsigned)p >= VERDICT_PROTECTION_COUNT)
		p = VERDICT_CLEAR;
	return &verdict_protection_words[p];
}

const struct verdict_word *
verdict_dns_bogus(void)
{
	return &verdict_bogus;
}

const char *
verdict_tone_name(enum verdict_tone t)
{
	switch (t) {
	case VERDICT_GOOD:	return "good";
	case VERDICT_WARN:	return "warn";
	case VERDICT_BAD:	return "bad";
	default:		return "neutral";
	}
}
