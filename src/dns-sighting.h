/*
 * dns-sighting.h: an OPENPGPKEY answer (dns-lookup.h) turned into what
 * the trust store hears of it: each record's key, imported into the GnuPG
 * home when it is one public key with a user ID of the address, becomes a
 * sighting, dns-secure or dns-insecure as the answer was. The one place
 * that does so, for sending (policy.c) and for the trust step of a sync
 * (sync-trust.c). Bogus and every other non-answer are the caller's: they
 * never reach here. It never prints.
 */
#ifndef STEED_DNS_SIGHTING_H
#define STEED_DNS_SIGHTING_H

#include <stddef.h>
#include <time.h>

#include <gpgme.h>

#include "dns-lookup.h"
#include "trust-store.h"

/*
 * Only the first half: the keys of r that are addr's, imported into the
 * home (so that gpg can check a signature by one), their fingerprints
 * into *fprs (allocated, *n of them); nothing goes to the trust store.
 */
void	dns_sighting_import(gpgme_ctx_t ctx, const char *addr,
	    const struct dns_result *r, char ***fprs, size_t *n);
/*
 * The keys of r (a DNS_SECURE or DNS_INSECURE OPENPGPKEY answer for
 * addr) into the home (ctx: an OpenPGP context of crypto.h) and into ts
 * as sightings at now. Returns how many became sightings; a record that
 * is not addr's key, or that the store refuses, is logged and skipped.
 */
int	dns_sighting_openpgp(struct trust_store *ts, gpgme_ctx_t ctx,
	    const char *addr, const struct dns_result *r, time_t now);

#endif
