/*
 * test-setup-message.c: the Autocrypt Setup Message's form, without gpg:
 * setup codes (nine groups of four digits, every digit equally likely,
 * never the same twice), codes as typed, the armor's checks (Passphrase-
 * Format, Passphrase-Begin, radix-64, BEGIN and END) and the message's
 * (the header, the sender, the attachment). Decrypting and importing are
 * tests/integration/device.sh's, with real gpg.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "setup-message.h"
#include "tap.h"

#define NCODES	20000

static void
test_codes(void)
{
	static char	 codes[64][SETUP_CODE_SIZE];
	char		 code[SETUP_CODE_SIZE], *cause = NULL;
	long		 count[10] = { 0 };
	double		 chi2 = 0, e;
	int		 i, j, form = 1, same = 0, rc = 0;

	for (i = 0; i < NCODES; i++) {
		rc |= setup_message_code(code, &cause);
		if (strlen(code) != SETUP_CODE_SIZE - 1)
			form = 0;
		for (j = 0; j < SETUP_CODE_SIZE - 1; j++) {
			if (j % 5 == 4)
				form &= code[j] == '-';
			else if (code[j] >= '0' && code[j] <= '9')
				count[code[j] - '0']++;
			else
				form = 0;
		}
		if (i < 64)
			memcpy(codes[i], code, sizeof code);
	}
	TAP_OK(rc == 0, "setup_message_code() succeeds %d times", NCODES);
	TAP_OK(form, "every code: 4 digits, a dash, ..., 9 groups, 44 "
	    "characters");
	for (i = 0; i < 64; i++)
		for (j = i + 1; j < 64; j++)
			same += strcmp(codes[i], codes[j]) == 0;
	TAP_OK(same == 0, "64 codes, all different");
	/*
	 * 720000 digits: chi-square with 9 degrees of freedom. Uniform
	 * digits stay under 40 but once in 100000 runs; byte % 10 (digits
	 * 0-5 a 26/256 chance, 6-9 25/256) gives about 260.
	 */
	e = NCODES * 36 / 10.0;
	for (i = 0; i < 10; i++)
		chi2 += (count[i] - e) * (count[i] - e) / e;
	TAP_OK(chi2 < 40, "every digit equally likely (chi-square %.1f < 40)",
	    chi2);
}

static void
test_norm(void)
{
	char	code[SETUP_CODE_SIZE];
	int	rc;

	rc = setup_message_code_norm("1234-5678-9012-3456-7890-1234-5678-"
	    "9012-3456", code);
	TAP_STR(rc == 0 ? code : NULL, "1234-5678-9012-3456-7890-1234-5678-"
	    "9012-3456", "a code as shown is kept");
	rc = setup_message_code_norm(" 123456789012 3456 7890 1234 5678 9012 "
	    "3456\n", code);
	TAP_STR(rc == 0 ? code : NULL, "1234-5678-9012-3456-7890-1234-5678-"
	    "9012-3456", "blanks and no dashes: the same code");
	TAP_OK(setup_message_code_norm("1234-5678-9012-3456-7890-1234-5678-"
	    "9012-345", code) == -1, "35 digits: refused");
	TAP_OK(setup_message_code_norm("1234-5678-9012-3456-7890-1234-5678-"
	    "9012-34567", code) == -1, "37 digits: refused");
	TAP_OK(setup_message_code_norm("1234-5678-9012-3456-7890-1234-5678-"
	    "9012-345a", code) == -1, "a letter: refused");
	TAP_OK(setup_message_code_norm("", code) == -1, "nothing: refused");
}

static const char armor_ok[] =
    "<html><body><p>text</p>\r\n<pre>\r\n"
    "-----BEGIN PGP MESSAGE-----\r\n"
    "Passphrase-Format: numeric9x4\r\n"
    "Passphrase-Begin: 42\r\n"
    "\r\n"
    "jA0ECQMCooH3dbWlIjH/0ukBaMQ5Rr/aI0zL5HytjLaXuCIcDePJLrch55iVgXUw\r\n"
    "hhBWoqItnuDRugJjPCLPrjR3GYnvFc9FfmNQdsWysb0Jpa86Vhm7N5LtLHnWWHCA\r\n"
    "=ab12\r\n"
    "-----END PGP MESSAGE-----\r\n"
    "</pre></body></html>\r\n";

/* armor_ok with from replaced by to. */
static char *
armor_with(const char *from, const char *to)
{
	const char	*p = strstr(armor_ok, from);
	char		*s;
	size_t		 n;

	if (p == NULL)
		return NULL;
	n = p - armor_ok;
	s = malloc(sizeof armor_ok + strlen(to));
	memcpy(s, armor_ok, n);
	strcpy(s + n, to);
	strcat(s, p + strlen(from));
	return s;
}

static void
armor_bad(const char *from, const char *to, const char *why,
    const char *what)
{
	struct buf	 out;
	char		*s, begin[3], *cause = NULL;
	int		 rc;

	s = armor_with(from, to);
	buf_init(&out);
	rc = s != NULL ? setup_message_armor(s, strlen(s), &out, begin,
	    &cause) : 0;
	TAP_OK(rc == -1 && out.len == 0 && cause != NULL &&
	    strstr(cause, why) != NULL, "%s: refused (%s)", what,
	    cause != NULL ? cause : "no cause");
	free(cause);
	free(s);
	buf_free(&out);
}

static void
test_armor(void)
{
	struct buf	 out;
	char		 begin[3], *cause = NULL;
	int		 rc;

	buf_init(&out);
	rc = setup_message_armor(armor_ok, strlen(armor_ok), &out, begin,
	    &cause);
	TAP_OK(rc == 0, "a well-formed armor in HTML with CRLF is taken");
	TAP_STR(rc == 0 ? begin : NULL, "42", "Passphrase-Begin: 42");
	buf_addc(&out, '\0');
	TAP_STR(out.data, "-----BEGIN PGP MESSAGE-----\n\n"
	    "jA0ECQMCooH3dbWlIjH/0ukBaMQ5Rr/aI0zL5HytjLaXuCIcDePJLrch55iVgXUw\n"
	    "hhBWoqItnuDRugJjPCLPrjR3GYnvFc9FfmNQdsWysb0Jpa86Vhm7N5LtLHnWWHCA\n"
	    "=ab12\n"
	    "-----END PGP MESSAGE-----\n",
	    "what gpg gets: the armor without the two headers");
	buf_free(&out);
	free(cause);

	armor_bad("-----BEGIN PGP MESSAGE-----", "-----BEGIN PGP MESSAGE----",
	    "no \"-----BEGIN PGP MESSAGE-----\" line", "no BEGIN line");
	armor_bad("Passphrase-Format: numeric9x4\r\n", "",
	    "no Passphrase-Format header", "no Passphrase-Format");
	armor_bad("numeric9x4", "numeric9x3", "not numeric9x4",
	    "Passphrase-Format: numeric9x3");
	armor_bad("Passphrase-Begin: 42\r\n", "",
	    "no Passphrase-Begin header", "no Passphrase-Begin");
	armor_bad("Passphrase-Begin: 42", "Passphrase-Begin: 4",
	    "not two digits", "Passphrase-Begin: one digit");
	armor_bad("Passphrase-Begin: 42", "Passphrase-Begin: 4x",
	    "not two digits", "Passphrase-Begin: not digits");
	armor_bad("Passphrase-Begin: 42\r\n", "Passphrase-Begin: 42\r\n"
	    "Passphrase-Begin: 17\r\n", "not two digits",
	    "Passphrase-Begin twice");
	armor_bad("Passphrase-Begin: 42\r\n", "Passphrase-Begin 42\r\n",
	    "not \"Name: value\"", "a header line without a colon");
	armor_bad("-----END PGP MESSAGE-----\r\n</pre></body></html>\r\n", "",
	    "no \"-----END PGP MESSAGE-----\" line", "no END line");
	armor_bad("-----END PGP MESSAGE-----", "-----END PGP MESSAGE",
	    "not radix-64", "a damaged END line");
	armor_bad("hhBWoqItnu", "hhBW<qItnu", "not radix-64",
	    "a line with a character outside radix-64");
	armor_bad("\r\n\r\njA0E", "\r\n\r\n\r\njA0E", "not radix-64",
	    "an empty line in the radix-64");
	armor_bad("</pre>", "-----BEGIN PGP MESSAGE-----\r\n</pre>",
	    "more than one PGP MESSAGE", "a second BEGIN after the END");
	armor_bad("Passphrase-Begin: 42\r\n\r\n", "Passphrase-Begin: 42\r\n",
	    "not \"Name: value\"", "no empty line after the headers");
}

static const char msg_ok[] =
    "From: Alice <alice@steed.test>\r\n"
    "To: alice@steed.test\r\n"
    "Subject: Autocrypt Setup Message\r\n"
    "Autocrypt-Setup-Message: v1\r\n"
    "MIME-Version: 1.0\r\n"
    "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
    "\r\n"
    "--b\r\n"
    "Content-Type: text/plain\r\n"
    "\r\n"
    "the setup message\r\n"
    "--b\r\n"
    "Content-Type: application/autocrypt-setup\r\n"
    "Content-Disposition: attachment; "
    "filename=\"autocrypt-setup-message.html\"\r\n"
    "\r\n"
    "<pre>\r\n"
    "-----BEGIN PGP MESSAGE-----\r\n"
    "Passphrase-Format: numeric9x4\r\n"
    "Passphrase-Begin: 07\r\n"
    "\r\n"
    "jA0ECQMCooH3dbWlIjH/0ukBaMQ5Rr/aI0zL5HytjLaXuCIcDePJLrch55iVgXUw\r\n"
    "-----END PGP MESSAGE-----\r\n"
    "</pre>\r\n"
    "--b--\r\n";

static void
msg_check(const char *from, const char *to, int want, const char *why,
    const char *what)
{
	struct account	 a;
	const char	*p = strstr(msg_ok, from);
	char		*s, begin[3], *cause = NULL;
	int		 rc;

	memset(&a, 0, sizeof a);
	a.address = "alice@steed.test";
	s = malloc(sizeof msg_ok + strlen(to));
	memcpy(s, msg_ok, p - msg_ok);
	strcpy(s + (p - msg_ok), to);
	strcat(s, p + strlen(from));
	rc = setup_message_check(&a, s, strlen(s), begin, &cause);
	if (want == 0)
		TAP_OK(rc == 0 && strcmp(begin, "07") == 0, "%s: taken, "
		    "Passphrase-Begin 07", what);
	else
		TAP_OK(rc == -1 && cause != NULL && strstr(cause, why) != NULL,
		    "%s: refused (%s)", what, cause != NULL ? cause : "none");
	free(cause);
	free(s);
}

static void
test_message(void)
{
	msg_check("From:", "From:", 0, NULL, "a well-formed setup message");
	msg_check("From: Alice <alice@steed.test>",
	    "From: ALICE@Steed.Test", 0, NULL, "the address in another case");
	msg_check("From: Alice <alice@steed.test>",
	    "From: Mallory <mallory@steed.test>", -1, "not from "
	    "alice@steed.test", "from another address");
	msg_check("From: Alice <alice@steed.test>",
	    "From: alice@steed.test, bob@steed.test", -1, "not one From",
	    "two From addresses");
	msg_check("Autocrypt-Setup-Message: v1\r\n", "", -1,
	    "not an Autocrypt Setup Message", "no Autocrypt-Setup-Message");
	msg_check("Autocrypt-Setup-Message: v1", "Autocrypt-Setup-Message: v2",
	    -1, "not v1", "version v2");
	msg_check("application/autocrypt-setup", "application/octet-stream",
	    -1, "no application/autocrypt-setup part", "no setup attachment");
	msg_check("Passphrase-Format: numeric9x4\r\n", "", -1,
	    "no Passphrase-Format", "a malformed armor in the attachment");
}

int
main(void)
{
	test_codes();
	test_norm();
	test_armor();
	test_message();
	printf("1..%d\n", tap_n);
	return TAP_DONE();
}
