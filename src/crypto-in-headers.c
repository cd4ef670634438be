/*
 * crypto-in-headers.c: header fields whose worth depends on the crypto:
 * protected headers (RFC 9788) vouched for by a decryption or a good
 * signature, and the Autocrypt header and gossip (gossip only inside
 * encrypted mail the sender signed). Called by crypto-in.c. It never
 * trusts a header field that nothing vouches for.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpgme.h>

#include "addr-list.h"
#include "autocrypt-parse.h"
#include "buf.h"
#include "crypto.h"
#include "crypto-in-int.h"
#include "log.h"
#include "mime-body.h"
#include "mime-header.h"
#include "mime-parse.h"
#include "xmalloc.h"

static const char *crypto_in_prot_fields[] = {
	"Subject", "From", "To", "Cc", "Date", "Reply-To"
};

static int
crypto_in_has_prot(const struct mime_header *h)
{
	size_t	i;

	for (i = 0; i < sizeof crypto_in_prot_fields /
	    sizeof *crypto_in_prot_fields; i++) {
		if (mime_header_find(h, crypto_in_prot_fields[i], NULL) !=
		    NULL)
			return 1;
	}
	return 0;
}

/*
 * Protected headers (RFC 9788): the deepest entity, down the layers at
 * the top, that carries header fields, provided a decryption or a good
 * signature above it vouches for them.
 */
void
crypto_in_protected(struct crypto_in *ci)
{
	struct mime_part		*x = ci->msg->root;
	const struct crypto_in_part	*e;
	int				 ok = 0, n;

	for (n = 0; x != NULL && n < 2 * CRYPTO_IN_MAX_DEPTH + 2; n++) {
		if (x != ci->msg->root && ok &&
		    crypto_in_has_prot(&x->header)) {
			ci->protected = &x->header;
			ci->protected_part = x;
		}
		e = crypto_in_find(ci, x);
		if (e != NULL && e->inner != NULL) {
			if ((e->decrypted && !e->no_integrity) ||
			    crypto_in_good_over(ci, x))
				ok = 1;
			x = e->inner->root;
		} else if (mime_part_is(x, "multipart", "signed") &&
		    x->nchildren > 0) {
			if (crypto_in_good_over(ci, x))
				ok = 1;
			x = TAILQ_FIRST(&x->children);
		} else
			break;
	}
}

/* Autocrypt and gossip (autocrypt-parse.c), with what only we know. */
void
crypto_in_autocrypt(struct crypto_in *ci)
{
	const struct mime_header	*outer = &ci->msg->root->header;
	const struct crypto_in_part	*e;
	const struct mime_part		*in;
	char				*from, **rcpt = NULL;
	size_t				 n = 0, i;

	from = addr_list_from(outer);
	autocrypt_parse_header(&ci->autocrypt, outer, from,
	    mime_part_is(ci->msg->root, "multipart", "report"));
	free(from);
	/* Gossip: encrypted with integrity, and signed by the sender. */
	if (ci->encryption == CRYPTO_IN_NONE || !ci->decrypted ||
	    ci->integrity != CRYPTO_IN_INTEGRITY_OK ||
	    strcmp(ci->signed_state, "yes") != 0 ||
	    (e = crypto_in_find(ci, ci->msg->root)) == NULL ||
	    e->inner == NULL)
		return;
	addr_list_get(ci->protected != NULL ? ci->protected : outer, "To",
	    &rcpt, &n);
	addr_list_get(ci->protected != NULL ? ci->protected : outer, "Cc",
	    &rcpt, &n);
	in = e->inner->root;
	autocrypt_parse_gossip(&ci->autocrypt, &in->header, rcpt, n);
	if (mime_part_is(in, "multipart", "signed") && in->nchildren > 0)
		autocrypt_parse_gossip(&ci->autocrypt,
		    &TAILQ_FIRST(&in->children)->header, rcpt, n);
	for (i = 0; i < ci->autocrypt.nwarnings; i++)
		crypto_in_warn(ci, "%s", ci->autocrypt.warnings[i]);
	addr_list_free(rcpt, n);
}
