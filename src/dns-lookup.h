/*
 * dns-lookup.h: correspondents' keys from DNS, validated with DNSSEC:
 * OPENPGPKEY (RFC 7929) and SMIMEA (RFC 8162) records at the address's
 * domain, looked up for many addresses at once under one deadline through
 * one validating libunbound context per process. Results are cached (in
 * SQLite, with their TTL; negative answers with a short TTL).
 *
 * Every answer is classified. A bogus answer is never returned as a key:
 * it is a possible attack. An insecure answer is only a hint for first
 * contact. A secure one is strong evidence.
 */
#ifndef STEED_DNS_LOOKUP_H
#define STEED_DNS_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

enum dns_type {
	DNS_OPENPGPKEY = 61,
	DNS_SMIMEA = 53
};

enum dns_status {
	DNS_SECURE,		/* DNSSEC-validated record(s) */
	DNS_INSECURE,		/* record(s) from an unsigned zone */
	DNS_BOGUS,		/* validation failed: never used */
	DNS_NONE,		/* no such record (NXDOMAIN or NODATA) */
	DNS_SERVFAIL,		/* the resolver could not get an answer */
	DNS_TIMEOUT,		/* no answer before the deadline */
	DNS_ERROR		/* anything else (bad config, no resolver) */
};

struct dns_record {
	/* OPENPGPKEY: the transferable public key, binary (RFC 4880). */
	/* SMIMEA: the certificate association data. */
	unsigned char	*data;
	size_t		 len;
	uint8_t		 usage, selector, mtype;	/* SMIMEA only */
};

struct dns_result {
	char			*address;
	enum dns_type		 type;
	enum dns_status		 status;
	int			 secure_denial;	/* DNS_NONE proven by DNSSEC */
	char			*why;		/* unbound's reason if bogus,
						   or what went wrong */
	uint32_t		 ttl;
	int			 cached;	/* answered from the cache */
	struct dns_record	*records;	/* empty unless SECURE/INSECURE */
	size_t			 nrecords;
	char			*owner;		/* the owner name that answered
						   (or the first one asked) */
	int			 lower;		/* owner is of the lower-cased
						   local part */
};

struct dns_ctx;

/* The validating resolver, set up from the configuration's dns-* settings. */
struct dns_ctx	*dns_open(const struct config *, char **cause);
void		 dns_close(struct dns_ctx *);

/*
 * Look up each type in types (a bit mask: 1 << 0 for OPENPGPKEY, 1 << 1
 * for SMIMEA) for every address, all at once, waiting at most timeout_ms
 * in all. Fills *out with naddrs * (number of types) results in address
 * order. Returns -1 only when nothing could be asked at all.
 */
#define DNS_WANT_OPENPGPKEY	0x1
#define DNS_WANT_SMIMEA		0x2
int		 dns_lookup(struct dns_ctx *, char *const *addrs, size_t naddrs,
		     int types, int timeout_ms, struct dns_result **out,
		     size_t *nout, char **cause);
void		 dns_results_free(struct dns_result *, size_t);

/* "secure", "insecure", "bogus", "none", "servfail", "timeout", "error". */
const char	*dns_status_name(enum dns_status);

/*
 * The owner name of local@domain for type: hex of the first 28 octets of
 * SHA2-256 of the local part as given, "._openpgpkey." or "._smimecert."
 * and the domain. lower: the same with the local part lower-cased.
 */
char		*dns_owner_name(const char *address, enum dns_type, int lower);

/*
 * The RDATA of one record of type into *r (data allocated). SMIMEA must
 * have its three octets of usage, selector and matching type and some
 * data; OPENPGPKEY some data. Returns -1 with *cause on malformed RDATA.
 */
int		 dns_parse_rdata(enum dns_type, const unsigned char *, size_t,
		     struct dns_record *r, char **cause);
/*
 * A record of type as people read it, into b: an OPENPGPKEY record's key
 * fingerprints (from its packets, no gpg), an SMIMEA record's certificate
 * fingerprint (SHA-1) or its fields. Text from the record is made safe.
 */
struct buf;
void		 dns_record_describe(struct buf *, enum dns_type,
		     const struct dns_record *);

/*
 * A problem with the resolver setup found while looking up, e.g. that the
 * upstream resolver strips DNSSEC data so nothing can validate; NULL if
 * none. Found once per process; results it spoils are DNS_ERROR with this
 * text as why, so the caller shows it once rather than as many attacks.
 */
const char	*dns_problem(struct dns_ctx *);

/*
 * The process's one validating context, locked, for dns-query.c's other
 * questions (SRV, MX): NULL, and nothing locked, before dns_open().
 * dns_ub_unlock() must follow.
 */
struct ub_ctx;
struct ub_ctx	*dns_ub_lock(void);
void		 dns_ub_unlock(void);

/*
 * A validating context of its own, set up from the dns-* settings as the
 * shared one is, for a caller that must not be answered from the shared
 * one's cache (dns-update-check.c, after an update). ub_ctx_delete()
 * frees it; NULL and *cause when it cannot be set up.
 */
struct ub_ctx	*dns_resolver_new(const struct config *, char **cause);

/* The dns-timeout setting in milliseconds (default 5 s). */
int		 dns_timeout_ms(const struct config *);

#endif
