/*
 * crypto-in-int.h: what the files of crypto-in (crypto-in.c and its
 * crypto-in-*.c) share among themselves, and nothing outside them may
 * use: the per-part table, the gpgme glue, and each file's entry points.
 * The rules they keep together are crypto-in.c's.
 */
#ifndef STEED_CRYPTO_IN_INT_H
#define STEED_CRYPTO_IN_INT_H

#include <gpgme.h>

#include "crypto-in.h"

struct buf;

/* crypto-in.c: the analysis, its part table and its names. */
void	crypto_in_warn(struct crypto_in *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
struct crypto_in_part *crypto_in_find(const struct crypto_in *,
	    const struct mime_part *);
void	crypto_in_status(struct crypto_in *, const struct mime_part *,
	    const char *, ...) __attribute__((format(printf, 3, 4)));
const struct mime_part *crypto_in_up(const struct crypto_in *,
	    const struct mime_part *);
struct mime_msg *crypto_in_keep(struct crypto_in *, const struct mime_part *,
	    struct buf *, int decrypted);
void	crypto_in_keep_msg(struct crypto_in *, const struct mime_part *,
	    struct mime_msg *, int decrypted);
struct mime_msg *crypto_in_unkeep(struct crypto_in *,
	    const struct mime_part *);
void	crypto_in_top(struct crypto_in *, enum crypto_in_proto,
	    enum crypto_in_integrity, const char *why);
void	crypto_in_forget(struct crypto_in *, size_t nsigs, size_t nparts);
void	crypto_in_walk(struct crypto_in *, struct mime_part *, int top,
	    int depth);

/* crypto-in-gpg.c: gpgme contexts and the buffers that held plaintext. */
const char *crypto_in_proto_label(enum crypto_in_proto);
void	crypto_in_crlf(struct buf *, const char *, size_t);
void	crypto_in_wipe(struct buf *);
gpgme_error_t crypto_in_sink(gpgme_data_t *, struct buf *, size_t hint);
void	crypto_in_sink_drop(gpgme_data_t, struct buf *);
gpgme_ctx_t crypto_in_ctx(struct crypto_in *, enum crypto_in_proto,
	    char **cause);

/* crypto-in-sig.c: signatures. */
void	crypto_in_sigs(struct crypto_in *, gpgme_ctx_t, enum crypto_in_proto,
	    const struct mime_part *covered, int want_one);
void	crypto_in_sig_error(struct crypto_in *, enum crypto_in_proto,
	    const struct mime_part *covered, char *cause);
int	crypto_in_good_over(const struct crypto_in *,
	    const struct mime_part *);
int	crypto_in_fully_signed(const struct crypto_in *,
	    const struct mime_part *);
void	crypto_in_detached(struct crypto_in *, struct mime_part *, int top,
	    int depth);
void	crypto_in_finish_sigs(struct crypto_in *);

/* crypto-in-decrypt.c: encrypted parts. */
int	crypto_in_decrypt(struct crypto_in *, const struct mime_part *host,
	    enum crypto_in_proto, const char *, size_t, struct buf *plain);
void	crypto_in_pgpmime(struct crypto_in *, struct mime_part *, int top,
	    int depth);
void	crypto_in_pkcs7(struct crypto_in *, struct mime_part *, int top,
	    int depth);

/* crypto-in-inline.c: inline OpenPGP blocks in text parts. */
void	crypto_in_inline(struct crypto_in *, struct mime_part *, int top,
	    int depth);

/* crypto-in-headers.c: protected headers and Autocrypt. */
void	crypto_in_protected(struct crypto_in *);
void	crypto_in_autocrypt(struct crypto_in *);

/* crypto-in-text.c: the wording of the verdicts. */
char	*crypto_in_sig_sentence(const struct crypto_in_sig *);
void	crypto_in_leaves(struct crypto_in *);
void	crypto_in_verdict(struct crypto_in *);

#endif
