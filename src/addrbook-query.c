/*
 * addrbook-query.c: asking query-command (addrbook-query.h). The output is
 * read as bytes from outside: only lines with a valid address are kept,
 * and what is kept is made safe where it is drawn, as everything is.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "addr.h"
#include "addrbook-query.h"
#include "buf.h"
#include "command.h"
#include "xmalloc.h"

static char *
addrbook_query_field(const char *s, size_t len)
{
	while (len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\r'))
		len--;
	if (len == 0)
		return NULL;
	return xstrndup(s, len);
}

size_t
addrbook_query_parse(const char *text, size_t len,
    struct addrbook_entry **out, char **msg)
{
	const char		*p = text, *end = text + len, *nl, *t1, *t2;
	struct addrbook_entry	*v = NULL, *e;
	size_t			 n = 0, i;
	char			*addr;
	int			 first = 1;

	*msg = NULL;
	*out = NULL;
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		if (first) {
			first = 0;
			*msg = addrbook_query_field(p, nl - p);
			continue;
		}
		if (memchr(p, '\0', nl - p) != NULL)
			continue;
		if ((t1 = memchr(p, '\t', nl - p)) == NULL)
			t1 = nl;
		if ((addr = addrbook_query_field(p, t1 - p)) == NULL)
			continue;
		if (!addr_valid(addr) || n == ADDRBOOK_QUERY_MAX) {
			free(addr);
			continue;
		}
		for (i = 0; i < n; i++)
			if (strcasecmp(v[i].addr, addr) == 0)
				break;
		if (i < n) {
			free(addr);
			continue;
		}
		v = xreallocarray(v, n + 1, sizeof *v);
		e = &v[n++];
		memset(e, 0, sizeof *e);
		e->addr = addr;
		e->source = "query";
		if (t1 == nl)
			continue;
		if ((t2 = memchr(t1 + 1, '\t', nl - t1 - 1)) == NULL)
			t2 = nl;
		e->name = addrbook_query_field(t1 + 1, t2 - t1 - 1);
		if (t2 < nl)
			e->other = addrbook_query_field(t2 + 1, nl - t2 - 1);
	}
	*out = v;
	return n;
}

int
addrbook_query(const struct config *cf, const char *what,
    struct addrbook_entry **out, char **msg, char **cause)
{
	struct command_var	 var = { 's', what };
	struct buf		 b;
	char			*cmd, *t;
	size_t			 n;
	int			 rc;

	*out = NULL;
	*msg = NULL;
	if (cf->query_command == NULL) {
		*cause = xstrdup("no query-command in the configuration");
		return -1;
	}
	if (strstr(cf->query_command, "%s") != NULL)
		cmd = command_expand(cf->query_command, &var, 1);
	else {
		t = xasprintf("%s %%s", cf->query_command);
		cmd = command_expand(t, &var, 1);
		free(t);
	}
	buf_init(&b);
	rc = command_read(cmd, ADDRBOOK_QUERY_BYTES, ADDRBOOK_QUERY_TIMEOUT,
	    &b, cause);
	free(cmd);
	if (rc == -1) {
		buf_free(&b);
		return -1;
	}
	n = addrbook_query_parse(b.data != NULL ? b.data : "", b.len, out, msg);
	buf_free(&b);
	if (rc != 0 && n == 0 && *msg == NULL) {
		*cause = xasprintf("query-command failed (exit status %d)",
		    rc);
		return -1;
	}
	return (int)n;
}
