/*
 * fuzz-rfc2231.c: RFC 2231 parameter values (continuations, charset and
 * percent-encoding) as a Content-Type or Content-Disposition carries
 * them. The input is lines of NAME=VALUE; the value of filename, of name
 * and of the first parameter is assembled, and must be a C string that
 * strsafe() makes terminal-safe.
 */
#include "fuzz.h"

#include "rfc2231.h"

#define FUZZ_MAX_PARAMS	256

static void
get(const struct rfc2231_param *p, size_t n, const char *name)
{
	char	*v, *safe;
	int	 unknown = 0;

	if ((v = rfc2231_get(p, n, name, &unknown)) == NULL)
		return;
	safe = strsafe(v, 0);
	FUZZ_ASSERT(fuzz_terminal_safe(safe, strlen(safe)));
	free(safe);
	free(v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct rfc2231_param	 p[FUZZ_MAX_PARAMS];
	char			*s, *line, *next, *eq;
	size_t			 n = 0;

	s = fuzz_str(data, len);
	for (line = s; line != NULL && n < FUZZ_MAX_PARAMS; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((eq = strchr(line, '=')) == NULL)
			continue;
		*eq = '\0';
		p[n].name = line;
		p[n].value = eq + 1;
		n++;
	}
	get(p, n, "filename");
	get(p, n, "name");
	if (n > 0)
		get(p, n, p[0].name);
	free(s);
	return 0;
}
