/*
 * records.c: setup_records(), the DNS records that publish an account's
 * keys (setup.h, step 5): OPENPGPKEY (RFC 7929) and, when the account has
 * an S/MIME certificate, SMIMEA (RFC 8162), from ownkey_record(), as
 * zone-file lines in the generic form of RFC 3597 that every DNS server
 * reads (the same lines steedmail --dns-records prints). They are saved
 * to dns-records-ACCOUNT.zone in the data directory, 0600, with the two
 * sentences the domain's administrator needs.
 *
 * crypto_init() must have run. Never prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic.h"
#include "buf.h"
#include "hex.h"
#include "ownkey.h"
#include "paths.h"
#include "setup-int.h"
#include "xmalloc.h"

/* The lines of one record, into b. */
static void
records_add(struct buf *b, const char *address, const struct ownkey_record *r)
{
	struct buf	 hex;
	int		 i;

	buf_init(&hex);
	hex_add(&hex, r->rdata, r->len, 0);
	buf_addc(&hex, '\0');
	buf_addf(b, "; %s for %s, %s %s\n", r->type == DNS_SMIMEA ?
	    "SMIMEA" : "OPENPGPKEY", address, r->type == DNS_SMIMEA ?
	    "certificate" : "key", r->fpr);
	for (i = 0; i < 2 && r->owner[i] != NULL; i++)
		buf_addf(b, "%s. %d IN TYPE%d \\# %zu %s\n", r->owner[i],
		    OWNKEY_DNS_TTL, (int)r->type, r->len, hex.data);
	buf_free(&hex);
}

/* The record of type, added to b; -1 with *cause (also when missing). */
static int
records_one(const struct account *a, enum dns_type type, struct buf *b,
    char **cause)
{
	struct ownkey_record	r;
	int			rc;

	if ((rc = ownkey_record(a, type, &r, cause)) == -1)
		return -1;
	if (rc == 1) {
		*cause = xasprintf("%s has no %s yet", a->address,
		    type == DNS_SMIMEA ? "S/MIME certificate" : "key");
		return -1;
	}
	records_add(b, a->address, &r);
	ownkey_record_free(&r);
	return 0;
}

static int
records_write(const char *path, const char *text, char **cause)
{
	return atomic_write(path, text, strlen(text), cause);
}

int
setup_records(const struct account *a, char **text, char **file,
    char **advice, char **cause)
{
	struct buf	 b;
	const char	*domain;
	char		*dir;

	*text = *file = *advice = NULL;
	if ((domain = strrchr(a->address, '@')) == NULL) {
		*cause = xasprintf("\"%s\" is not a mail address", a->address);
		return -1;
	}
	domain++;
	buf_init(&b);
	if (records_one(a, DNS_OPENPGPKEY, &b, cause) == -1 ||
	    (a->smime && records_one(a, DNS_SMIMEA, &b, cause) == -1)) {
		buf_free(&b);
		return -1;
	}
	buf_addc(&b, '\0');
	if ((dir = paths_data_dir(cause)) == NULL) {
		buf_free(&b);
		return -1;
	}
	*file = xasprintf("%s/dns-records-%s.zone", dir, a->id);
	free(dir);
	if (records_write(*file, b.data, cause) == -1) {
		free(*file);
		*file = NULL;
		buf_free(&b);
		return -1;
	}
	*text = buf_take(&b);
	*advice = xasprintf("Give these lines to the administrator of the DNS "
	    "of %s, to add to its zone. The zone must be signed with DNSSEC, "
	    "or correspondents' programs will treat the key as only a hint.",
	    domain);
	return 0;
}
