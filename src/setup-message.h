/*
 * setup-message.h: the Autocrypt Setup Message (Autocrypt Level 1), which
 * carries an account's secret OpenPGP key to a second device: the key,
 * ASCII-armored, encrypted symmetrically with a setup code of nine groups
 * of four digits that is shown once and never stored; the message goes to
 * the user's own INBOX.
 *
 * setup-message-form.c makes codes and checks a message's form;
 * setup-message.c encrypts, decrypts, imports and finds (gpg, IMAP).
 * Callers: steedmail --export-setup / --import-setup (ui/cli-device.c) and
 * the setup wizard, which looks for such a message once it can log in.
 * Nothing here prints; what goes wrong comes back as -1 with a cause.
 */
#ifndef STEED_SETUP_MESSAGE_H
#define STEED_SETUP_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "config.h"

struct session;

/* The names Autocrypt Level 1 gives. */
#define SETUP_MESSAGE_HEADER	"Autocrypt-Setup-Message"
#define SETUP_MESSAGE_TYPE	"application/autocrypt-setup"
#define SETUP_MESSAGE_BEGIN	"-----BEGIN PGP MESSAGE-----"

/* "1234-5678-...-9012": 9 groups of 4 digits, 8 dashes, NUL. */
#define SETUP_CODE_SIZE	45

/*
 * The setup message for a's OpenPGP key (it must exist), encrypted with a
 * new random setup code written to code. The raw message (From and To the
 * account's address) is in *msg. Returns 0, or -1 with *cause.
 */
int	 setup_message_make(const struct account *a, char code[SETUP_CODE_SIZE],
	    struct buf *msg, char **cause);

/*
 * The newest setup message in the session's INBOX sent from the account's
 * own address, its raw bytes into *raw. Returns 0, 1 when there is none,
 * or -1 with *cause.
 */
int	 setup_message_find(struct session *, struct buf *raw, char **cause);

/*
 * The first two digits of the setup code, as the message shows them
 * (Passphrase-Begin), into begin[3]; checks the message's form only.
 * Returns 0, or -1 with *cause when the message is malformed or not from
 * a's address.
 */
int	 setup_message_check(const struct account *a, const void *raw,
	    size_t len, char begin[3], char **cause);

/*
 * Import the secret key of a setup message for account a with the code
 * (dashes and blanks optional): only from a's own address, only what the
 * code decrypted with its integrity check intact, only a secret key with
 * a user ID holding a's address. *fpr is the key imported. Returns 0, or
 * -1 with *cause and nothing imported.
 */
int	 setup_message_import(const struct account *a, const void *raw,
	    size_t len, const char *code, char **fpr, char **cause);

/*
 * The pieces, for the commands and the tests. A new setup code from the
 * system's random source (getrandom), each digit uniform: returns 0, or -1
 * with *cause when there is no randomness to be had.
 */
int	 setup_message_code(char code[SETUP_CODE_SIZE], char **cause);
/*
 * A code as typed (dashes and blanks anywhere, or none) in the form above:
 * 0, or -1 unless it is 36 digits.
 */
int	 setup_message_code_norm(const char *in, char code[SETUP_CODE_SIZE]);
/*
 * The ASCII-armored OpenPGP message in text (the attachment, HTML around
 * it), checked: Passphrase-Format: numeric9x4, Passphrase-Begin: two
 * digits (into begin[3]), base64 lines, an END line. The armor without
 * those two headers (as gpg reads it) is appended to out. Returns 0, or -1
 * with *cause naming what is wrong.
 */
int	 setup_message_armor(const char *text, size_t len, struct buf *out,
	    char begin[3], char **cause);
/*
 * setup_message_check(), and the armor for gpg (setup_message_armor())
 * appended to out.
 */
int	 setup_message_parse(const struct account *a, const void *raw,
	    size_t len, struct buf *out, char begin[3], char **cause);
/*
 * The secret key fpr, ASCII-armored with the Autocrypt-Prefer-Encrypt:
 * mutual header, appended to out (--export-secret-key shows the same).
 */
int	 setup_message_secret(const char *fpr, struct buf *out, char **cause);

#endif
