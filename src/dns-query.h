/*
 * dns-query.h: any name and type asked of the process's one validating
 * resolver (dns-lookup.h), several at once under one deadline, each
 * answer classified as dns-lookup.h classifies keys; and the RDATA of the
 * types the setup wizard asks for (SRV, RFC 2782; MX, RFC 1035) parsed
 * with every length checked. Used by account/discover.c. No cache: the
 * wizard asks once.
 */
#ifndef STEED_DNS_QUERY_H
#define STEED_DNS_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "dns-lookup.h"

#define DNS_TYPE_A	1
#define DNS_TYPE_MX	15
#define DNS_TYPE_SRV	33

struct dns_question {
	const char	*name;
	int		 type;
};

struct dns_answer {
	enum dns_status	  status;	/* DNS_SECURE/INSECURE: rdata */
	char		 *why;		/* bogus: unbound's reason; else
					   what went wrong, or NULL */
	unsigned char	**rdata;	/* wire format, uncompressed */
	size_t		 *len;
	size_t		  n;
};

/*
 * Ask every question at once, waiting at most timeout_ms in all; *out
 * gets one answer per question, in order. A bogus answer keeps no data.
 * Returns -1 with *cause only when nothing could be asked (dns_open()
 * was not called, or unbound refused).
 */
int	 dns_query(struct dns_ctx *, const struct dns_question *, size_t n,
	    int timeout_ms, struct dns_answer **out, char **cause);
void	 dns_answers_free(struct dns_answer *, size_t n);

struct dns_srv {
	uint16_t	 priority, weight, port;
	char		*target;	/* no final dot; "" is "." (RFC 2782:
					   the service is not offered) */
};

struct dns_mx {
	uint16_t	 preference;
	char		*host;		/* no final dot; "" is "." (RFC 7505:
					   no mail here) */
};

/*
 * One record's RDATA. The names must be host names (letters, digits,
 * hyphens, underscores; labels of 1 to 63 octets, 255 in all, no
 * compression). Returns -1 with *cause when malformed.
 */
int	 dns_srv_parse(const unsigned char *, size_t, struct dns_srv *,
	    char **cause);
int	 dns_mx_parse(const unsigned char *, size_t, struct dns_mx *,
	    char **cause);

#endif
