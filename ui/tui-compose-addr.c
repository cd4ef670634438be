/*
 * tui-compose-addr.c: the compose screen's recipient prompts (t, c, b).
 * It owns reading a typed list ("Bob <bob@x>, carol@y, team") into plain
 * addresses, aliases expanded, and the Tab completion of its last element
 * from the address book (addrbook.h: the alias file, the trust store's
 * correspondents, the senders the header cache has seen; local SQLite on
 * the interface thread's own handles, fast). Called by tui-compose.c only.
 * It never touches the draft and never decides anything about encryption.
 */
#include <curses.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "addr.h"
#include "addrbook.h"
#include "buf.h"
#include "tui.h"
#include "tui-compose.h"
#include "xmalloc.h"

/*
 * The address book is the engine's (src/addrbook.c); until it is linked
 * in, these are NULL and the prompts take plain addresses only.
 */
#pragma weak addrbook_complete
#pragma weak addrbook_free
#pragma weak addrbook_alias
#pragma weak addrbook_format

#define CP_ADDR_CANDIDATES	6	/* shown when several match */

void
tui_compose_addr_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

char *
tui_compose_addr_join(char *const *v, size_t n)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < n; i++)
		buf_addf(&b, "%s%s", i > 0 ? ", " : "", v[i]);
	return b.data != NULL ? buf_take(&b) : xstrdup("");
}

/* Where the last element of a list starts: after the last comma that is
 * outside quotes and angle brackets. */
static size_t
cp_addr_last(const char *s)
{
	size_t	i, start = 0;
	int	quote = 0, angle = 0;

	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] == '"')
			quote = !quote;
		else if (!quote && s[i] == '<')
			angle = 1;
		else if (!quote && s[i] == '>')
			angle = 0;
		else if (!quote && !angle && s[i] == ',')
			start = i + 1;
	}
	return start;
}

static char *
cp_addr_trim(const char *s, size_t len)
{
	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	return xstrndup(s, len);
}

static void
cp_addr_push(char ***v, size_t *n, const char *addr)
{
	size_t	i;

	for (i = 0; i < *n; i++)
		if (strcasecmp((*v)[i], addr) == 0)
			return;		/* once is enough */
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = xstrdup(addr);
}

/* One element: "Name <addr>", "addr" or an alias. */
static int
cp_addr_one(const char *el, char ***v, size_t *n, char **cause)
{
	const char	*lt, *gt;
	char		*addr, **al = NULL;
	size_t		 nal = 0, i;
	int		 r;

	if ((lt = strrchr(el, '<')) != NULL) {
		if ((gt = strchr(lt, '>')) == NULL) {
			*cause = xasprintf("no closing '>' in: %s", el);
			return -1;
		}
		addr = cp_addr_trim(lt + 1, (size_t)(gt - lt - 1));
	} else
		addr = xstrdup(el);
	if (strchr(addr, '@') == NULL && lt == NULL &&
	    addrbook_alias != NULL) {
		r = addrbook_alias(tui.cf, addr, &al, &nal, cause);
		if (r == -1) {
			free(addr);
			return -1;
		}
		if (r == 1) {
			for (i = 0; i < nal; i++)
				cp_addr_push(v, n, al[i]);
			tui_compose_addr_free(al, nal);
			free(addr);
			return 0;
		}
	}
	if (!addr_valid(addr)) {
		*cause = xasprintf(strchr(addr, '@') == NULL ?
		    "not an address or an alias: %s" :
		    "not a valid address: %s", addr);
		free(addr);
		return -1;
	}
	cp_addr_push(v, n, addr);
	free(addr);
	return 0;
}

/* The whole line into addresses; -1 with *cause at the first bad one. */
static int
cp_addr_parse(const char *text, char ***v, size_t *n, char **cause)
{
	const char	*p = text, *q;
	char		*el;
	int		 quote = 0, angle = 0;

	*v = NULL;
	*n = 0;
	for (q = p;; q++) {
		if (*q == '"')
			quote = !quote;
		else if (!quote && *q == '<')
			angle = 1;
		else if (!quote && *q == '>')
			angle = 0;
		if (*q != '\0' && (quote || angle || *q != ','))
			continue;
		el = cp_addr_trim(p, (size_t)(q - p));
		if (*el != '\0' && cp_addr_one(el, v, n, cause) == -1) {
			free(el);
			tui_compose_addr_free(*v, *n);
			*v = NULL;
			*n = 0;
			return -1;
		}
		free(el);
		if (*q == '\0')
			break;
		p = q + 1;
	}
	return 0;
}

/* A line just above the prompt (the status bar's row) while it is open:
 * candidates, or what is wrong with the line. The prompt's own redraw
 * refreshes the screen. */
static void
cp_addr_note(const char *text, int error)
{
	tui_putfill(LINES - 2, 0, COLS, text,
	    tui_attr(error ? TC_ERROR : TC_STATUS));
}

/* What completing to entry e puts in the line. */
static char *
cp_addr_choice(const struct addrbook_entry *e)
{
	if (e->alias != NULL)
		return xstrdup(e->alias);
	if (addrbook_format != NULL)
		return addrbook_format(e);
	return xstrdup(e->addr);
}

/* The key a candidate is typed by, to extend the prefix with. */
static const char *
cp_addr_key(const struct addrbook_entry *e)
{
	return e->alias != NULL ? e->alias : e->addr;
}

static char *
cp_addr_complete(const char *text, void *arg)
{
	struct tui_account	*ta = arg;
	struct addrbook_entry	*e = NULL;
	struct buf		 b;
	char			*head, *prefix, *cause = NULL, *with = NULL;
	size_t			 last, i, common;
	int			 n;

	if (addrbook_complete == NULL) {
		cp_addr_note(" no address book in this build", 1);
		return NULL;
	}
	last = cp_addr_last(text);
	prefix = cp_addr_trim(text + last, strlen(text + last));
	if (*prefix == '\0') {
		free(prefix);
		return NULL;
	}
	n = addrbook_complete(tui.cf, tui_account_trust(ta),
	    tui_account_cache(ta), prefix, CP_ADDR_CANDIDATES, &e, &cause);
	if (n == -1) {
		buf_init(&b);
		buf_addf(&b, " %s", cause != NULL ? cause : "no address book");
		cp_addr_note(b.data, 1);
		buf_free(&b);
		free(cause);
		free(prefix);
		return NULL;
	}
	if (n == 0) {
		buf_init(&b);
		buf_addf(&b, " nothing known starts with \"%s\"", prefix);
		cp_addr_note(b.data, 0);
		buf_free(&b);
		free(prefix);
		return NULL;
	}
	if (n == 1)
		with = cp_addr_choice(&e[0]);
	else {
		/* the candidates' common start, if it goes further */
		common = strlen(cp_addr_key(&e[0]));
		for (i = 1; i < (size_t)n; i++) {
			const char	*k = cp_addr_key(&e[i]);
			size_t		 j;

			for (j = 0; j < common && k[j] != '\0' &&
			    tolower((unsigned char)k[j]) == tolower(
			    (unsigned char)cp_addr_key(&e[0])[j]); j++)
				;
			common = j;
		}
		if (common > strlen(prefix) && strncasecmp(cp_addr_key(&e[0]),
		    prefix, strlen(prefix)) == 0)
			with = xstrndup(cp_addr_key(&e[0]), common);
		buf_init(&b);
		buf_adds(&b, " ");
		for (i = 0; i < (size_t)n; i++) {
			char	*c = cp_addr_choice(&e[i]);

			buf_addf(&b, "%s%s", i > 0 ? " | " : "", c);
			free(c);
		}
		cp_addr_note(b.data, 0);
		buf_free(&b);
	}
	addrbook_free(e, (size_t)n);
	free(prefix);
	if (with == NULL)
		return NULL;
	head = xstrndup(text, last);
	buf_init(&b);
	buf_addf(&b, "%s%s%s", head, last > 0 ? " " : "", with);
	free(head);
	free(with);
	return buf_take(&b);
}

int
tui_compose_addr_ask(struct tui_account *ta, const char *question,
    const char *init, char ***v, size_t *n)
{
	char	*text, *cause = NULL, *again = NULL;

	for (;;) {
		text = tui_prompt(question, again != NULL ? again : init, 0,
		    cp_addr_complete, ta);
		free(again);
		again = NULL;
		if (text == NULL)
			return 0;
		if (cp_addr_parse(text, v, n, &cause) == 0) {
			free(text);
			return 1;
		}
		/* said above the prompt, which comes back to mend it */
		{
			char	*line = xasprintf(" %s", cause);

			cp_addr_note(line, 1);
			free(line);
		}
		free(cause);
		cause = NULL;
		again = text;
	}
}
