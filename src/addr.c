/*
 * addr.c: the address checks of addr.h. Full RFC 5322 syntax (quoted
 * local parts, comments, groups) is not accepted where a user types one
 * address: it is rarely meant and often a sign of a pasted mistake.
 */
#include <string.h>

#include "addr.h"

int
addr_valid(const char *s)
{
	const char	*at = strchr(s, '@'), *p;
	size_t		 len = strlen(s);

	if (at == NULL || at == s || at[1] == '\0' || strchr(at + 1, '@'))
		return 0;
	if (len > 254 || at - s > 64)
		return 0;
	for (p = s; *p != '\0'; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f ||
		    strchr("<>()[]\\,;:\"", *p) != NULL)
			return 0;
	if (at[1] == '.' || s[len - 1] == '.' || strstr(at, "..") != NULL)
		return 0;
	return 1;
}

const char *
addr_domain(const char *s)
{
	const char	*at = strrchr(s, '@');

	return at != NULL ? at + 1 : s + strlen(s);
}
