/*
 * trust-store.c: the trust store's vocabulary (trust-store.h): the names
 * of states, protocols and sources, dates, and addresses and message keys
 * as the store keys them. The store itself is in trust-schema.c (the file
 * and its versions), trust-db.c (statements and rows), trust-rules.c
 * (events into states), trust-decide.c (the user's decisions) and
 * trust-query.c (what callers read). Nothing here touches SQLite.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/crypto.h>

#include "buf.h"
#include "trust-db.h"
#include "xmalloc.h"

static const char *trust_proto_names[] = { "openpgp", "smime" };

static const char *trust_state_names[] = {
	"none", "unsigned", "first-contact", "known", "key-changed",
	"revoked", "expired", "dns-confirmed", "conflict", "verified"
};

static const char *trust_source_names[] = {
	"dns-secure", "dns-insecure", "autocrypt", "gossip", "attached",
	"manual"
};

void
trust_verdict_free(struct trust_verdict *v)
{
	free(v->fpr);
	free(v->other);
	free(v->evidence);
	memset(v, 0, sizeof *v);
}

const char *
trust_state_name(enum trust_state s)
{
	if ((size_t)s >= sizeof trust_state_names / sizeof *trust_state_names)
		return "none";
	return trust_state_names[s];
}

const char *
trust_proto_name(enum trust_proto p)
{
	if (p >= TRUST_NPROTO)
		return "openpgp";
	return trust_proto_names[p];
}

int
trust_proto_index(const char *proto)
{
	int	i;

	for (i = 0; proto != NULL && i < TRUST_NPROTO; i++) {
		if (strcmp(proto, trust_proto_names[i]) == 0)
			return i;
	}
	return -1;
}

/* The protocol a caller names, as stored: NULL or unknown is openpgp. */
const char *
trust_proto(const char *proto)
{
	return proto != NULL && strcmp(proto, "smime") == 0 ? "smime" :
	    "openpgp";
}

/* How a history line or the evidence names the protocol's keys. */
const char *
trust_proto_words(const char *proto)
{
	return strcmp(trust_proto(proto), "smime") == 0 ?
	    " (S/MIME)" : "";
}

const char *
trust_source_name(enum trust_source s)
{
	if (s >= TRUST_SRC_COUNT)
		return "unknown";
	return trust_source_names[s];
}

char *
trust_sources_text(unsigned mask)
{
	struct buf	b;
	int		i;

	buf_init(&b);
	for (i = 0; i < TRUST_SRC_COUNT; i++) {
		if (mask & (1u << i))
			buf_addf(&b, "%s%s", b.len > 0 ? ", " : "",
			    trust_source_names[i]);
	}
	if (b.len == 0)
		buf_adds(&b, "none");
	return buf_take(&b);
}

const char *
trust_date(time_t t)
{
	static char	s[32];
	struct tm	tm;

	if (t == 0 || gmtime_r(&t, &tm) == NULL)
		return "never";
	strftime(s, sizeof s, "%Y-%m-%d", &tm);
	return s;
}

char *
trust_store_addr(const char *a)
{
	const char	*at;
	char		*s, *p;

	if (a == NULL || (at = strrchr(a, '@')) == NULL || at == a ||
	    at[1] == '\0')
		return NULL;
	s = xstrdup(a);
	for (p = s + (at - a); *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}

char *
trust_store_msgkey(const char *msgid, const char *sender, const void *raw,
    size_t len)
{
	unsigned char	d[32];
	char		hex[65], *addr, *key;
	size_t		i;

	if (msgid != NULL && *msgid != '\0') {
		addr = trust_store_addr(sender);
		key = xasprintf("%s %s", msgid, addr != NULL ? addr : "");
		free(addr);
		return key;
	}
	if (gnutls_hash_fast(GNUTLS_DIG_SHA256, raw, len, d) < 0)
		memset(d, 0, sizeof d);
	for (i = 0; i < sizeof d; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return xasprintf("sha256:%s", hex);
}
