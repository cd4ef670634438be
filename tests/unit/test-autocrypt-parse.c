/*
 * test-autocrypt-parse.c: the attribute rules of Autocrypt Level 1 as
 * autocrypt_parse_attrs() applies them (no keyring needed: keydata is
 * only decoded here; import is tested by tests/shell/crypto-in.sh).
 */
#include <stdlib.h>
#include <string.h>

#include "autocrypt-parse.h"
#include "tap.h"
#include "xmalloc.h"

static int
parse(const char *v, struct autocrypt_attrs *a, char **cause)
{
	*cause = NULL;
	return autocrypt_parse_attrs(v, strlen(v), a, cause);
}

static void
invalid(const char *v, const char *why, const char *what)
{
	struct autocrypt_attrs	 a;
	char			*cause;
	int			 rc = parse(v, &a, &cause);

	TAP_OK(rc == -1 && cause != NULL && strstr(cause, why) != NULL,
	    "%s: invalid (%s)", what, cause != NULL ? cause : "no reason");
	free(cause);
}

int
main(void)
{
	struct autocrypt_attrs	 a;
	char			*cause, *big;

	TAP_OK(parse("addr=Alice@Example.ORG; prefer-encrypt=mutual; "
	    "keydata=AAEC AwQF", &a, &cause) == 0, "a plain header parses");
	TAP_STR(a.addr, "alice@example.org", "addr is lower-cased");
	TAP_OK(a.mutual == 1, "prefer-encrypt=mutual");
	TAP_OK(a.keydata.len == 6 && memcmp(a.keydata.data,
	    "\0\1\2\3\4\5", 6) == 0, "keydata decoded, blanks skipped");
	autocrypt_attrs_free(&a);

	TAP_OK(parse("keydata=AAEC; addr=a@b.example; _extra=1", &a,
	    &cause) == 0 && a.mutual == 0,
	    "keydata before addr and a _ attribute are accepted");
	autocrypt_attrs_free(&a);
	TAP_OK(parse("addr=a@b.example; prefer-encrypt=sometimes; "
	    "keydata=AAEC", &a, &cause) == 0 && a.mutual == 0,
	    "another prefer-encrypt value means no preference");
	autocrypt_attrs_free(&a);

	invalid("addr=a@b.example; keydata=AAEC; color=red",
	    "unknown critical attribute", "unknown attribute");
	invalid("prefer-encrypt=mutual; keydata=AAEC", "no addr", "no addr");
	invalid("addr=a@b.example", "no keydata", "no keydata");
	invalid("addr=a@b.example; addr=c@d.example; keydata=AAEC",
	    "twice", "addr twice");
	invalid("addr=a@b.example; keydata=!!!!", "base64", "bad base64");
	invalid("addr=nobody; keydata=AAEC", "not an address", "bad addr");
	invalid("addr=a@b.example; keydata", "without a value",
	    "attribute without value");
	big = xmalloc(AUTOCRYPT_MAX_HEADER + 100);
	memset(big, 'A', AUTOCRYPT_MAX_HEADER + 99);
	memcpy(big, "addr=a@b.example; keydata=", 26);
	big[AUTOCRYPT_MAX_HEADER + 99] = '\0';
	invalid(big, "longer than", "over 10 KiB");
	free(big);
	return TAP_DONE();
}
