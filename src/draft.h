/*
 * draft.h: a message being written, from its start (new, a reply, a
 * group reply, a forward) to the outbox. What every front end does with
 * one: fill it in, have it decided and protected (the encryption policy
 * per recipient, signing, the Autocrypt header), queue it in the durable
 * outbox, or postpone it and resume it later.
 *
 * draft.c owns the draft and its start from an opened message;
 * draft-protect.c the decision and the protection; draft-store.c queue,
 * postpone and resume, and the drafts directory listed. Callers: the
 * batch commands and the compose screen, which send through outgoing.h
 * (protect, then queue or hold, in one call). Never prints: warnings go through fe_notice(), the one question ("send in
 * clear?") through fe_confirm(), everything else comes back.
 */
#ifndef STEED_DRAFT_H
#define STEED_DRAFT_H

#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "config.h"
#include "policy.h"

struct message;
struct mime_msg;

struct draft_blob {
	char	*name;		/* file name, or NULL */
	char	*type;		/* "type/subtype" */
	char	*data;
	size_t	 len;
};

struct draft {
	const struct account	 *a;		/* the sender */
	char			**to, **cc, **bcc;
	size_t			  nto, ncc, nbcc;
	char			 *subject;	/* UTF-8, or NULL */
	char			 *body;		/* UTF-8 text, or NULL */
	char			**attach;	/* file paths */
	size_t			  nattach;
	/* Attachments held here: a forwarded message, a resumed draft's. */
	struct draft_blob	 *blobs;
	size_t			  nblobs;
	char			 *in_reply_to;	/* "<id>", or NULL */
	char			 *references;	/* "<a> <b>", or NULL */
	/*
	 * It answers or forwards mail that had encrypted content: it is
	 * encrypted or refused (policy_must()).
	 */
	int			  from_encrypted;
	int			  forwarding;	/* it is a forward */
};

enum draft_field {
	DRAFT_TO,
	DRAFT_CC,
	DRAFT_BCC
};

struct draft	*draft_new(const struct account *);
void		 draft_free(struct draft *);
void		 draft_add(struct draft *, enum draft_field, const char *addr);
void		 draft_set_subject(struct draft *, const char *);
/* The body, taken (allocated), replacing any. */
void		 draft_set_body(struct draft *, char *);
/*
 * Take the quote out of the body: every line starting with '>' and the
 * attribution line ("... wrote:") just before the first of them. What a
 * reply to encrypted mail keeps when it must go in clear.
 */
void		 draft_unquote(struct draft *);
void		 draft_attach(struct draft *, const char *path);
/* An attachment from memory (copied). */
void		 draft_attach_data(struct draft *, const char *name,
		     const char *type, const void *data, size_t len);
/*
 * The draft as mime-build.h wants it; m points into d, which must outlive
 * it; free with draft_mime_free().
 */
struct mime_out;
void		 draft_mime(const struct draft *, struct mime_out *m);
void		 draft_mime_free(struct mime_out *m);
/* The first recipient (of To, Cc, Bcc) that is not a plain address. */
const char	*draft_bad_addr(const struct draft *, enum draft_field *);

/*
 * Start from an opened message m: a reply (to Reply-To, else From), a
 * group reply (also to its other recipients in Cc, the account's own
 * address left out), a forward inline or as attachment (raw, len: the
 * message as it came). The subject gets "Re: " or "Fwd: " once; a reply
 * gets In-Reply-To and References (RFC 5322 3.6.4); from_encrypted is set
 * when m had encrypted content anywhere.
 *
 * With quote (replies) or inline (forwards), the text the reader saw
 * goes into the body: the text parts of the message's own content, the
 * content decrypted at its top included, but never plaintext that was
 * decrypted in another context below the top (an encrypted part someone
 * put inside the message): quoting it would hand the decryption of
 * somebody else's ciphertext back to whoever sent it. Such parts are
 * named in the quote, not quoted.
 *
 * The GnuPG home must be set up (crypto_init) for encrypted m.
 */
#define DRAFT_QUOTE	0x1	/* quote the text read */
#define DRAFT_GROUP	0x2	/* reply to all */
#define DRAFT_KEEP	0x8	/* keep the draft's recipients and subject:
				   only thread it and take its rule */
int	 draft_reply(struct draft *, struct mime_msg *m, int flags,
	    char **cause);
#define DRAFT_INLINE	0x4	/* forward: the text in the body */
int	 draft_forward(struct draft *, struct mime_msg *m, const char *raw,
	    size_t len, int flags, char **cause);
/*
 * The same for a message already opened (message.h): its verdicts are
 * taken as they are, so gpg is not run again (the pager's reply).
 */
int	 draft_reply_opened(struct draft *, const struct message *, int flags,
	    char **cause);
int	 draft_forward_opened(struct draft *, const struct message *,
	    int flags, char **cause);

/* What the user asked of this message (the batch command's flags). */
struct draft_opts {
	int	sign;		/* sign (a key is made if need be) */
	int	encrypt;	/* encrypt or refuse */
	int	require;	/* the same, said as a requirement */
	int	never;		/* send in clear, whatever the settings */
	int	smime;		/* S/MIME instead of OpenPGP */
	int	can_ask;	/* fe_confirm() can reach a person */
	int	nosign;		/* do not sign (the compose screen's toggle) */
};

/*
 * The outcome of draft_protect(): the per-recipient decision with its
 * reasons (policy.h), and the one line to show ("encrypted to ...",
 * "sent in clear: ...", "not sent, ...").
 */
struct draft_protection {
	struct policy_result	 policy;
	int			 decided;	/* policy is filled in */
	int			 encrypted;
	int			 signed_;
	char			*line;		/* or NULL */
};

/*
 * The encryption policy's input for d (policy.h), and whether d must be
 * encrypted or refused (policy_must(): the options, a reply to encrypted
 * mail, encrypt = always).
 */
void	 draft_policy_in(const struct draft *, const struct config *,
	    const struct draft_opts *, struct policy_in *);
int	 draft_must_encrypt(const struct draft *, const struct config *,
	    const struct draft_opts *);

/*
 * Could the decision ask the person (fallback = ask, nothing forcing
 * either way)? The front end then says whether it can (can_ask).
 */
int	 draft_may_ask(const struct draft *, const struct config *,
	    const struct draft_opts *);

/*
 * Build the message of d and protect it as the options, the settings and
 * the encryption policy say: STEED, mail is signed whenever the account
 * has a key, and encrypted whenever the policy finds a key for every
 * recipient. out gets the message to queue. Returns 0 (out complete, p
 * says what was done), 1 when the policy refuses to send it or holds it
 * (POLICY_HOLD: a bogus DNS answer; p says why), 2 when it must wait for
 * a DNS answer (POLICY_WAIT: a lookup failed; the caller holds it in the
 * outbox with draft_hold(), p says why), -1 with *cause when it cannot
 * be built or protected as asked (nothing is to be sent; *bad_input is
 * set when the draft itself is at fault: a header with a line break, text
 * that is not UTF-8, an attachment that cannot be read).
 */
int	 draft_protect(const struct draft *, const struct config *,
	    const struct draft_opts *, struct buf *out,
	    struct draft_protection *p, int *bad_input, char **cause);
void	 draft_protection_free(struct draft_protection *);

/*
 * What sending d now would do, asking nobody and sending nothing: for the
 * compose screen's security line, which shows it live while the
 * recipients change (draft-preview.c). The same decision draft_protect()
 * makes (policy_decide() on the same policy_in), described per recipient
 * and in one line:
 *
 *   "encrypt: yes (3/3 keys: 2 DNS-secure, 1 Autocrypt)"
 *   "in clear: no key for x@y (looked up: DNS none, no Autocrypt seen)"
 *   "not sent: must be encrypted, no key for x@y"   (policy refuses)
 *   "ask: no key for x@y"                            (fallback = ask)
 *
 * use_dns 0 decides from what is known here (trust store, GnuPG home,
 * the DNS cache) without a query: the screen shows that first, then the
 * full answer. The GnuPG home must be set up (crypto_init). Runs on any
 * thread; never on the interface thread (it may start gpg and wait on DNS).
 * Returns -1 with *cause only when nothing can be decided (the trust
 * store cannot be opened).
 */
struct draft_preview_rcpt {
	char			*addr;
	int			 has_key;	/* a key will be used */
	const char		*origin;	/* how that key is known: "DNS-
						   secure", "DNS", "Autocrypt",
						   "verified", "imported",
						   "trust store"; NULL without */
	enum trust_state	 state;		/* the address's pin's state:
						   changed, revoked, ... */
	char			*why;		/* no key: "looked up: DNS
						   none, no Autocrypt seen" */
};
struct draft_preview {
	enum policy_action	 action;	/* what sending now would do */
	int			 encrypt;	/* it would be encrypted */
	int			 sign;		/* it would be signed */
	int			 smime;		/* S/MIME, else OpenPGP */
	int			 must;		/* policy_must(): encrypt or
						   refuse (a reply to encrypted
						   mail, encrypt = always) */
	size_t			 nkeys;		/* recipients with a key */
	struct draft_preview_rcpt *rcpts;	/* To, Cc, Bcc order */
	size_t			 n;
	/* Recipients whose key changed or was revoked: sending asks
	 * first (changed), or shows why not (revoked). */
	size_t			 nchanged, nrevoked;
	char			*line;		/* the security line */
};
int	 draft_preview(const struct draft *, const struct config *,
	    const struct draft_opts *, int use_dns, struct draft_preview *,
	    char **cause);
void	 draft_preview_free(struct draft_preview *);

/*
 * Put msg (from draft_protect) in the outbox for d's envelope (every
 * recipient, Bcc included); *id is the entry's. Nothing is sent:
 * send_flush() does that.
 */
int	 draft_queue(const struct draft *, const struct buf *msg, char **id,
	    char **cause);

/*
 * Postpone d: it is written, whole (Bcc and attachments included), to a
 * new file in the drafts directory (doc/sending.md), mode 0600; *path is
 * that file. When the message would be encrypted (the decision of
 * draft_protect() without asking anybody), the stored draft is encrypted
 * to the account's own key, its Subject protected as a sent message's.
 * Returns -1 with *cause.
 */
int	 draft_postpone(const struct draft *, const struct config *,
	    const struct draft_opts *, char **path, int *encrypted,
	    char **cause);
/*
 * The draft as the file that keeps it (what draft_postpone() writes, a
 * whole message) into out: encrypted to the account's own key when
 * encrypt is 1 (its key is made if need be), in clear when 0, as the
 * message would go when -1 (which may look keys up). *encrypted says
 * which. Returns -1 with *cause.
 */
int	 draft_keep(const struct draft *, const struct config *,
	    const struct draft_opts *, int encrypt, struct buf *out,
	    int *encrypted, char **cause);

/*
 * Messages that wait in the outbox for DNS (draft-hold.c). When
 * draft_protect() returns 2 (a recipient's key lookup failed: servfail,
 * a time-out, no resolver), outgoing_send() hands the draft to
 * draft_hold(): it is kept in the outbox (encrypted to the account's own
 * key, as a postponed draft that would be encrypted) with the options it
 * was sent with, and nothing is submitted. Each flush that looks again
 * (send_flush() with SEND_LOOK_AGAIN) calls draft_release() for it,
 * which decides it as draft_protect() would have: a key found now, it is
 * encrypted and queued; a lookup that still fails, or a bogus answer,
 * keep it held; once it has waited dns-wait (config_dns_wait()), it is
 * asked about (can_ask: "send it in clear?", no by default) or given up
 * into outbox/failed/, never sent in clear for want of an answer. The
 * opts words are draft_opts_words()'s. *id is the entry.
 */
int	 draft_hold(const struct draft *, const struct config *,
	    const struct draft_opts *, const char *why, char **id,
	    char **cause);
/* The options that survive a hold, as words ("encrypt smime"), and back. */
char	*draft_opts_words(const struct draft_opts *);
void	 draft_opts_parse(const char *words, struct draft_opts *);
enum draft_release {
	DRAFT_RELEASED,		/* decided: queued to submit now */
	DRAFT_STILL_HELD,	/* still waits; *line says why */
	DRAFT_GIVEN_UP,		/* moved to outbox/failed/; *line says why */
	DRAFT_RELEASE_ERROR	/* cannot be looked at now; it stays */
};
struct outbox_entry;
enum draft_release draft_release(struct config *, const char *dir,
	    struct outbox_entry *, int can_ask, char **line);
/*
 * A held entry in words: why (NULL: as it last said), since when, and
 * until when a flush looks again (allocated).
 */
char	*draft_held_text(const struct config *, const struct outbox_entry *,
	    const char *why);
/* dns-wait in words: "2 days", "12 hours" (allocated). */
char	*draft_wait_words(const struct config *);

/*
 * Resume the draft in path for account a: decrypted if it was stored
 * encrypted, its protected Subject restored. The file stays until
 * draft_discard(). Returns NULL with *cause.
 */
struct draft	*draft_resume(const struct account *, const char *path,
		    char **cause);
int		 draft_discard(const char *path, char **cause);
/* The drafts directory, created 0700. */
char		*draft_dir(char **cause);
/* The file NAME.eml of the drafts directory (allocated), or NULL. */
char		*draft_path(const char *name, char **cause);

/*
 * The postponed drafts (the drafts directory's files), newest first, as
 * the drafts list shows them: what each file's outer header says, read
 * at once (a few local files). A draft kept encrypted shows its real To
 * and Subject only once draft_peek() has read it (known). path is the
 * draft's handle for draft_resume(), draft_discard() and the others.
 * draft_list() returns -1 with *cause only when there is no drafts
 * directory; one that cannot be read is an empty list.
 */
struct draft_file {
	char	*path;
	time_t	 mtime;		/* when it was last written */
	char	*from;		/* the sender's address, or NULL */
	char	*to;		/* To and Cc as shown ("a@b", "a@b +2"), or
				   NULL */
	char	*subject;	/* decoded, or NULL */
	char	*msgid;		/* its Message-ID (its copy in Drafts) */
	int	 encrypted;	/* kept encrypted */
	int	 known;		/* to and subject are the real ones */
};
int		 draft_list(struct draft_file **, size_t *, char **cause);
void		 draft_list_free(struct draft_file *, size_t);
size_t		 draft_count(void);
/*
 * The real To (as draft_list() shows it) and Subject ("" without) of the
 * draft in path: decrypted if need be (gpg: off the interface thread).
 * 0, or -1 with *cause.
 */
int		 draft_peek(const struct account *, const char *path,
		     char **to, char **subject, char **cause);
/* Is the draft's file still there (it was not sent nor postponed again)? */
int		 draft_exists(const char *path);
/* The draft's file as it is, into b (its copy for the Drafts mailbox). */
int		 draft_file_read(const char *path, struct buf *b,
		     char **cause);

#endif
