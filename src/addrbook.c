/*
 * addrbook.c: the addresses a person may mean while typing a recipient
 * (addrbook.h): the alias file read here, in mutt's form, then the trust
 * store's correspondents (trust_store_match()) and the header cache's
 * senders (cache_senders()), merged, each address once. Caller: the
 * compose screen's address prompts, on a worker or on the interface
 * thread (it reads only local files). Read-only; never prints. A line of
 * the alias file that is not an alias is skipped, never fatal.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "addr.h"
#include "addrbook.h"
#include "buf.h"
#include "cache.h"
#include "charset.h"
#include "log.h"
#include "paths.h"
#include "trust-store.h"
#include "xmalloc.h"

#define ADDRBOOK_MAX_FILE	(4 * 1024 * 1024)

/* One alias of the file: its name and addresses with their names. */
struct addrbook_def {
	char	 *name;
	char	**addrs;
	char	**names;	/* each NULL or a display name */
	size_t	  n;
};

static void
addrbook_def_clear(struct addrbook_def *d)
{
	size_t	j;

	for (j = 0; j < d->n; j++) {
		free(d->addrs[j]);
		free(d->names[j]);
	}
	free(d->addrs);
	free(d->names);
	free(d->name);
	memset(d, 0, sizeof *d);
}

static void
addrbook_defs_free(struct addrbook_def *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		addrbook_def_clear(&v[i]);
	free(v);
}

static int
addrbook_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* s without blanks around it, in place. */
static char *
addrbook_trim(char *s)
{
	size_t	len;

	while (addrbook_space(*s))
		s++;
	len = strlen(s);
	while (len > 0 && addrbook_space(s[len - 1]))
		s[--len] = '\0';
	return s;
}

/* A display name: its quotes and backslashes taken off; NULL if empty. */
static char *
addrbook_name(const char *s)
{
	struct buf	b;
	int		quoted = 0;

	buf_init(&b);
	for (; *s != '\0'; s++) {
		if (*s == '"') {
			quoted = !quoted;
			continue;
		}
		if (*s == '\\' && quoted && s[1] != '\0')
			s++;
		buf_addc(&b, *s);
	}
	if (b.len == 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_take(&b);
}

/* One item of an address list: "Name <a@x>" or "a@x". 0, or -1 if bad. */
static int
addrbook_item(char *item, char **addr, char **name)
{
	char	*lt, *gt;

	*addr = *name = NULL;
	item = addrbook_trim(item);
	if ((lt = strrchr(item, '<')) != NULL) {
		if ((gt = strchr(lt, '>')) == NULL ||
		    *addrbook_trim(gt + 1) != '\0')
			return -1;
		*gt = '\0';
		*lt = '\0';
		*addr = xstrdup(addrbook_trim(lt + 1));
		*name = addrbook_name(addrbook_trim(item));
	} else
		*addr = xstrdup(item);
	if (!addr_valid(*addr)) {
		free(*addr);
		free(*name);
		*addr = *name = NULL;
		return -1;
	}
	return 0;
}

/*
 * The addresses of one alias, "a@x, Name <b@y>, "Last, First" <c@z>":
 * split at commas outside quotes and angle brackets, the comment after an
 * unquoted '#' dropped. -1 if any item is bad or there is none.
 */
static int
addrbook_list(char *s, struct addrbook_def *d)
{
	char	*p, *start = s, *addr, *name;
	int	 quoted = 0, angle = 0, end = 0;

	for (p = s; !end; p++) {
		if (*p == '\\' && quoted && p[1] != '\0') {
			p++;
			continue;
		}
		if (*p == '"')
			quoted = !quoted;
		else if (!quoted && *p == '<')
			angle = 1;
		else if (!quoted && *p == '>')
			angle = 0;
		else if (!quoted && !angle && *p == '#' && (p == s ||
		    addrbook_space(p[-1])))
			*p = '\0';
		if (*p != '\0' && (quoted || angle || *p != ','))
			continue;
		end = *p == '\0';
		*p = '\0';
		if (*addrbook_trim(start) == '\0' && end && d->n > 0)
			break;
		if (addrbook_item(start, &addr, &name) == -1)
			return -1;
		d->addrs = xreallocarray(d->addrs, d->n + 1, sizeof *d->addrs);
		d->names = xreallocarray(d->names, d->n + 1, sizeof *d->names);
		d->addrs[d->n] = addr;
		d->names[d->n++] = name;
		start = p + 1;
	}
	return quoted || angle ? -1 : 0;
}

/* One line: 1 and *d for an alias, 0 for a blank or comment, -1 bad. */
static int
addrbook_line(char *line, struct addrbook_def *d)
{
	char	*p, *name;

	memset(d, 0, sizeof *d);
	line = addrbook_trim(line);
	if (*line == '\0' || *line == '#')
		return 0;
	if (strncmp(line, "alias", 5) != 0 || !addrbook_space(line[5]))
		return -1;
	p = line + 5;
	for (;;) {
		while (addrbook_space(*p))
			p++;
		name = p;
		while (*p != '\0' && !addrbook_space(*p))
			p++;
		if (*p == '\0' || name == p)
			return -1;
		*p++ = '\0';
		/* mutt's "-group NAME" before the alias: not used here. */
		if (strcmp(name, "-group") != 0)
			break;
		while (addrbook_space(*p))
			p++;
		while (*p != '\0' && !addrbook_space(*p))
			p++;
	}
	if (!charset_utf8_valid(p, strlen(p)) || addrbook_list(p, d) == -1) {
		addrbook_def_clear(d);
		return -1;
	}
	d->name = xstrdup(name);
	return 1;
}

/* The alias file's path: the setting, or the default beside the config. */
static char *
addrbook_path(const struct config *cf)
{
	if (cf != NULL && cf->alias_file != NULL)
		return xstrdup(cf->alias_file);
	return paths_config_path("aliases");
}

/*
 * Every alias of the file. A missing file has none; one that exists but
 * cannot be read is an error. Bad lines are skipped (and logged).
 */
static int
addrbook_read(const struct config *cf, struct addrbook_def **out, size_t *n,
    char **cause)
{
	struct buf		 b;
	struct addrbook_def	 d;
	char			*path, *line, *next;
	size_t			 lineno = 0, bad = 0;

	*out = NULL;
	*n = 0;
	path = addrbook_path(cf);
	buf_init(&b);
	if (buf_read_file(&b, path, ADDRBOOK_MAX_FILE) == -1) {
		buf_free(&b);
		if (errno == ENOENT) {
			free(path);
			return 0;
		}
		*cause = xasprintf("cannot read the alias file %s: %s", path,
		    errno == EFBIG ? "too big" : strerror(errno));
		free(path);
		return -1;
	}
	buf_addc(&b, '\0');
	for (line = b.data; line != NULL; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		switch (addrbook_line(line, &d)) {
		case 1:
			*out = xreallocarray(*out, *n + 1, sizeof **out);
			(*out)[(*n)++] = d;
			break;
		case -1:
			if (bad++ == 0)
				log_msg(LOG_INFO, "addrbook: %s:%zu: not an "
				    "alias, skipped", path, lineno);
			break;
		}
	}
	if (bad > 1)
		log_msg(LOG_INFO, "addrbook: %s: %zu lines skipped", path, bad);
	buf_free(&b);
	free(path);
	return 0;
}

/* Does a word of s (or s itself) start with prefix, any case? */
static int
addrbook_word_match(const char *s, const char *prefix, size_t len)
{
	const char	*p;

	if (s == NULL)
		return 0;
	for (p = s; *p != '\0'; p++) {
		if ((p == s || p[-1] == ' ' || p[-1] == '"' || p[-1] == '(' ||
		    p[-1] == '.' || p[-1] == '-') &&
		    strncasecmp(p, prefix, len) == 0)
			return 1;
	}
	return 0;
}

static int
addrbook_def_match(const struct addrbook_def *d, const char *prefix)
{
	size_t	len = strlen(prefix), i;

	if (strncasecmp(d->name, prefix, len) == 0)
		return 1;
	for (i = 0; i < d->n; i++) {
		if (strncasecmp(d->addrs[i], prefix, len) == 0 ||
		    addrbook_word_match(d->names[i], prefix, len))
			return 1;
	}
	return 0;
}

/* The list being built: each address once, the first source wins. */
struct addrbook_list {
	struct addrbook_entry	*v;
	size_t			 n, max;
};

static int
addrbook_has(const struct addrbook_list *l, const char *addr)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		if (strcasecmp(l->v[i].addr, addr) == 0)
			return 1;
	}
	return 0;
}

static void
addrbook_push(struct addrbook_list *l, const char *alias, const char *name,
    char *addr, const char *source)
{
	struct addrbook_entry	*e = &l->v[l->n++];

	e->alias = alias != NULL ? xstrdup(alias) : NULL;
	e->name = name != NULL ? xstrdup(name) : NULL;
	e->addr = addr;
	e->source = source;
}

static void
addrbook_aliases(struct addrbook_list *l, const struct addrbook_def *v,
    size_t nv, const char *prefix)
{
	struct buf	b;
	size_t		i, j;

	for (i = 0; i < nv && l->n < l->max; i++) {
		if (!addrbook_def_match(&v[i], prefix))
			continue;
		if (v[i].n == 1) {
			if (!addrbook_has(l, v[i].addrs[0]))
				addrbook_push(l, v[i].name, v[i].names[0],
				    xstrdup(v[i].addrs[0]), "alias");
			continue;
		}
		buf_init(&b);
		for (j = 0; j < v[i].n; j++)
			buf_addf(&b, "%s%s", j == 0 ? "" : ", ", v[i].addrs[j]);
		addrbook_push(l, v[i].name, NULL, buf_take(&b), "alias");
	}
}

/* A correspondent from the store or the cache, to be ranked. */
struct addrbook_cand {
	const char	*addr;
	const char	*name;
	const char	*source;
	long		 count;
	time_t		 last;
};

static int
addrbook_cand_cmp(const void *a, const void *b)
{
	const struct addrbook_cand *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->last != y->last)
		return x->last < y->last ? 1 : -1;
	return strcasecmp(x->addr, y->addr);
}

/* The store's and the cache's matches, merged and ranked, into l. */
static void
addrbook_seen(struct addrbook_list *l, struct trust_store *ts,
    struct cache *c, const char *prefix)
{
	struct trust_match	*tm = NULL;
	struct cache_sender	*cs = NULL;
	struct addrbook_cand	*v;
	char			*cause = NULL;
	size_t			 ntm = 0, ncs = 0, nv = 0, i, j;

	if (ts != NULL && trust_store_match(ts, prefix, l->max, &tm, &ntm,
	    &cause) == -1) {
		log_msg(LOG_INFO, "addrbook: %s", cause);
		free(cause);
		cause = NULL;
	}
	if (c != NULL && cache_senders(c, prefix, l->max, &cs, &ncs,
	    &cause) == -1) {
		log_msg(LOG_INFO, "addrbook: %s", cause);
		free(cause);
	}
	v = xcalloc(ntm + ncs + 1, sizeof *v);
	for (i = 0; i < ntm; i++) {
		v[nv].addr = tm[i].addr;
		v[nv].source = "trust store";
		v[nv].count = tm[i].messages;
		v[nv++].last = tm[i].last_seen;
	}
	for (i = 0; i < ncs; i++) {
		for (j = 0; j < ntm; j++) {
			if (strcasecmp(v[j].addr, cs[i].addr) == 0)
				break;
		}
		if (j < ntm) {
			/* Known to both: the store's, with the mail's name. */
			v[j].name = cs[i].name;
			if (cs[i].count > v[j].count)
				v[j].count = cs[i].count;
			if (cs[i].last > v[j].last)
				v[j].last = cs[i].last;
			continue;
		}
		v[nv].addr = cs[i].addr;
		v[nv].name = cs[i].name;
		v[nv].source = "mail seen";
		v[nv].count = cs[i].count;
		v[nv++].last = cs[i].last;
	}
	if (nv > 1)
		qsort(v, nv, sizeof *v, addrbook_cand_cmp);
	for (i = 0; i < nv && l->n < l->max; i++) {
		if (!addrbook_has(l, v[i].addr))
			addrbook_push(l, NULL, v[i].name, xstrdup(v[i].addr),
			    v[i].source);
	}
	free(v);
	trust_match_free(tm, ntm);
	cache_senders_free(cs, ncs);
}

int
addrbook_complete(const struct config *cf, struct trust_store *ts,
    struct cache *c, const char *prefix, size_t max,
    struct addrbook_entry **out, char **cause)
{
	struct addrbook_def	*defs;
	struct addrbook_list	 l;
	size_t			 ndefs;

	*out = NULL;
	if (addrbook_read(cf, &defs, &ndefs, cause) == -1)
		return -1;
	if (prefix == NULL)
		prefix = "";
	memset(&l, 0, sizeof l);
	l.max = max;
	l.v = xcalloc(max + 1, sizeof *l.v);
	addrbook_aliases(&l, defs, ndefs, prefix);
	addrbook_defs_free(defs, ndefs);
	if (l.n < max)
		addrbook_seen(&l, ts, c, prefix);
	*out = l.v;
	return (int)l.n;
}

void
addrbook_free(struct addrbook_entry *v, size_t n)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(v[i].alias);
		free(v[i].name);
		free(v[i].addr);
		free(v[i].other);
	}
	free(v);
}

int
addrbook_alias(const struct config *cf, const char *name, char ***addrs,
    size_t *n, char **cause)
{
	struct addrbook_def	*defs;
	size_t			 ndefs, i, j;
	int			 found = 0;

	*addrs = NULL;
	*n = 0;
	if (addrbook_read(cf, &defs, &ndefs, cause) == -1)
		return -1;
	for (i = 0; i < ndefs && !found; i++) {
		if (strcasecmp(defs[i].name, name) != 0)
			continue;
		*addrs = xcalloc(defs[i].n + 1, sizeof **addrs);
		for (j = 0; j < defs[i].n; j++)
			(*addrs)[j] = xstrdup(defs[i].addrs[j]);
		*n = defs[i].n;
		found = 1;
	}
	addrbook_defs_free(defs, ndefs);
	return found;
}

/* Must the display name be quoted in a header (RFC 5322 specials)? */
static int
addrbook_needs_quotes(const char *s)
{
	if (*s == ' ' || (*s != '\0' && s[strlen(s) - 1] == ' '))
		return 1;
	return strpbrk(s, "()<>[]:;@\\,.\"") != NULL;
}

char *
addrbook_format(const struct addrbook_entry *e)
{
	struct buf	 b;
	const char	*p;

	if (e->name == NULL || *e->name == '\0' || strchr(e->addr, ',') != NULL)
		return xstrdup(e->addr);
	if (!addrbook_needs_quotes(e->name))
		return xasprintf("%s <%s>", e->name, e->addr);
	buf_init(&b);
	buf_addc(&b, '"');
	for (p = e->name; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			buf_addc(&b, '\\');
		buf_addc(&b, *p);
	}
	buf_addf(&b, "\" <%s>", e->addr);
	return buf_take(&b);
}
