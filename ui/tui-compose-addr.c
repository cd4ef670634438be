/*
 * tui-compose-addr.c: the compose screen's recipient prompts (t, c, b).
 * It owns reading a typed list ("Bob <bob@x>, carol@y, team") into plain
 * addresses, aliases expanded, and the Tab completion of its last element
 * from the address book (addrbook.h: the alias file, the trust store's
 * correspondents, the senders the header cache has seen; local SQLite on
 * the interface thread's own handles, fast), joined by what query-command
 * answers (tui-query.c: on a thread of its own; the prompt looks for the
 * answer while it waits for keys, and shows it when it comes). Called by
 * tui-compose.c only.
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

#define CP_ADDR_CANDIDATES	6	/* shown when several match */

/* query-command's answer for the prompt that is open: one at a time. */
static struct tui_query	*cp_query;
static int		 cp_query_shown;

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
	if (strchr(addr, '@') == NULL && lt == NULL) {
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
	return addrbook_format(e);
}

/* The key a candidate is typed by, to extend the prefix with. */
static const char *
cp_addr_key(const struct addrbook_entry *e)
{
	return e->alias != NULL ? e->alias : e->addr;
}

/*
 * query-command's matches for prefix after the n local ones in *e, each
 * address once, up to CP_ADDR_CANDIDATES in all. *pending: asked, no
 * answer yet. The query starts here the first time a prefix is seen.
 */
static int
cp_addr_query(const char *prefix, struct addrbook_entry **e, int n,
    int *pending)
{
	const struct addrbook_entry	*q;
	const char			*msg, *cause;
	int				 nq, i, j;

	*pending = 0;
	if (tui.cf->query_command == NULL)
		return n;
	if (cp_query == NULL || strcmp(tui_query_what(cp_query), prefix) != 0) {
		tui_query_unref(cp_query);
		cp_query = tui_query_start(prefix);
		cp_query_shown = 0;
	}
	if (!tui_query_done(cp_query)) {
		*pending = 1;
		return n;
	}
	nq = tui_query_result(cp_query, &q, &msg, &cause);
	for (i = 0; i < nq && n < CP_ADDR_CANDIDATES; i++) {
		for (j = 0; j < n; j++)
			if (strcasecmp((*e)[j].addr, q[i].addr) == 0)
				break;
		if (j < n)
			continue;
		*e = xreallocarray(*e, (size_t)n + 1, sizeof **e);
		memset(&(*e)[n], 0, sizeof **e);
		(*e)[n].addr = xstrdup(q[i].addr);
		(*e)[n].name = q[i].name != NULL ? xstrdup(q[i].name) : NULL;
		(*e)[n].source = "query";
		n++;
	}
	return n;
}

/* The candidates' line above the prompt. */
static void
cp_addr_show(struct addrbook_entry *e, int n, const char *prefix,
    int pending)
{
	struct buf	 b;
	int		 i;

	buf_init(&b);
	if (n == 0 && pending)
		buf_addf(&b, " nothing known yet; asking query-command for "
		    "\"%s\"...", prefix);
	else if (n == 0)
		buf_addf(&b, " nothing known starts with \"%s\"", prefix);
	else {
		buf_adds(&b, " ");
		for (i = 0; i < n; i++) {
			char	*c = cp_addr_choice(&e[i]);

			buf_addf(&b, "%s%s", i > 0 ? " | " : "", c);
			free(c);
		}
		if (pending)
			buf_adds(&b, " | asking query-command...");
	}
	cp_addr_note(b.data, 0);
	buf_free(&b);
}

/* While the prompt waits for a key: query-command's answer came. */
static void
cp_addr_tick(void *arg)
{
	struct tui_account	*ta = arg;
	struct addrbook_entry	*e = NULL;
	char			*cause = NULL;
	int			 n, pending = 0;

	if (cp_query == NULL || cp_query_shown || !tui_query_done(cp_query))
		return;
	cp_query_shown = 1;
	n = addrbook_complete(tui.cf, tui_account_trust(ta),
	    tui_account_cache(ta), tui_query_what(cp_query),
	    CP_ADDR_CANDIDATES, &e, &cause);
	free(cause);
	if (n < 0)
		n = 0;
	n = cp_addr_query(tui_query_what(cp_query), &e, n, &pending);
	{
		const struct addrbook_entry	*q;
		const char			*msg, *why = NULL;

		if (n == 0 && tui_query_result(cp_query, &q, &msg, &why) < 0) {
			char	*line = xasprintf(" query-command: %s",
			    why != NULL ? why : "failed");

			cp_addr_note(line, 1);
			free(line);
		} else
			cp_addr_show(e, n, tui_query_what(cp_query), 0);
	}
	addrbook_free(e, (size_t)n);
}

static char *
cp_addr_complete(const char *text, void *arg)
{
	struct tui_account	*ta = arg;
	struct addrbook_entry	*e = NULL;
	struct buf		 b;
	char			*head, *prefix, *cause = NULL, *with = NULL;
	size_t			 last, i, common;
	int			 n, pending = 0;

	last = cp_addr_last(text);
	prefix = cp_addr_trim(text + last, strlen(text + last));
	if (*prefix == '\0') {
		free(prefix);
		return NULL;
	}
	n = addrbook_complete(tui.cf, tui_account_trust(ta),
	    tui_account_cache(ta), prefix, CP_ADDR_CANDIDATES, &e, &cause);
	if (n >= 0)
		n = cp_addr_query(prefix, &e, n, &pending);
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
		cp_addr_show(e, 0, prefix, pending);
		free(e);
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
		cp_addr_show(e, n, prefix, pending);
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
		text = tui_prompt_tick(question, again != NULL ? again : init,
		    0, cp_addr_complete, cp_addr_tick, ta);
		free(again);
		again = NULL;
		tui_query_unref(cp_query);
		cp_query = NULL;
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
