/*
 * trust-file.c: the text of a trust store export (trust-move.h; the
 * format is doc/trust.md's "Moving the trust store"), written and parsed.
 * Line by line: a version line, then per address a "peer" line, its
 * "pin", "key" and "event" lines and "end". The parser is strict (a file
 * edited by hand or damaged is refused with its line, never half read)
 * and knows nothing of the store. Callers: trust-move.c's users, the
 * unit tests. Never prints.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trust-move.h"
#include "xmalloc.h"

#define TRUST_FILE_MAX_LINE	65536

/* The key=value fields of a pin and a key line, in the order written. */
static const char *trust_file_pin_fields[] = {
	"pinned", "changed", "changed-by", "conflict", NULL
};
static const char *trust_file_key_fields[] = {
	"proto", "sources", "first-seen", "last-seen", "last-sig",
	"dns-confirmed", "messages", "decision", "revoked", "expired", NULL
};

static void
trust_file_fpr(struct buf *out, const char *name, const char *fpr)
{
	buf_addf(out, " %s=%s", name, fpr != NULL ? fpr : "-");
}

/* History text: backslash, CR, LF and other controls escaped. */
static void
trust_file_escape(struct buf *out, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			buf_adds(out, "\\\\");
		else if (*s == '\n')
			buf_adds(out, "\\n");
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			buf_addf(out, "\\x%02x", (unsigned char)*s);
		else
			buf_addc(out, *s);
	}
}

static char *
trust_file_sources(unsigned sources)
{
	struct buf	b;
	int		i;

	buf_init(&b);
	for (i = 0; i < TRUST_SRC_COUNT; i++) {
		if (sources & (1u << i)) {
			if (b.len > 0)
				buf_addc(&b, ',');
			buf_adds(&b, trust_source_name(i));
		}
	}
	if (b.len == 0)
		buf_adds(&b, "none");
	return buf_take(&b);
}

void
trust_move_write(const struct trust_move *m, time_t now, struct buf *out)
{
	const struct trust_move_peer	*p;
	const struct trust_move_key	*k;
	const struct trust_move_pin	*pin;
	size_t				 i, j;
	char				*src;
	int				 n;

	buf_addf(out, "%s %d\n", TRUST_MOVE_MAGIC, TRUST_MOVE_VERSION);
	buf_addf(out, "# steedmail's trust store, %zu address%s, written %s "
	    "(UTC); the format is in doc/trust.md\n", m->npeers,
	    m->npeers == 1 ? "" : "es", trust_date(now));
	for (i = 0; i < m->npeers; i++) {
		p = &m->peers[i];
		buf_addf(out, "peer %s\n", p->addr);
		for (n = 0; n < TRUST_NPROTO; n++) {
			pin = &p->pins[n];
			if (!pin->present)
				continue;
			buf_addf(out, "pin %s", trust_proto_name(n));
			trust_file_fpr(out, "pinned", pin->pinned);
			trust_file_fpr(out, "changed", pin->changed);
			buf_addf(out, " changed-by=%s", pin->changed == NULL ?
			    "-" : pin->signed_change ? "signature" : "claim");
			trust_file_fpr(out, "conflict", pin->conflict);
			buf_addc(out, '\n');
		}
		for (j = 0; j < p->nkeys; j++) {
			k = &p->keys[j];
			src = trust_file_sources(k->sources);
			buf_addf(out, "key %s proto=%s sources=%s first-seen=%lld "
			    "last-seen=%lld last-sig=%lld dns-confirmed=%lld "
			    "messages=%ld decision=%s revoked=%d expired=%d\n",
			    k->fpr, k->proto, src, (long long)k->first_seen,
			    (long long)k->last_seen, (long long)k->last_sig,
			    (long long)k->dns_confirmed, k->messages,
			    k->decision, k->revoked != 0, k->expired != 0);
			free(src);
		}
		for (j = 0; j < p->nevents; j++) {
			buf_addf(out, "event %lld ",
			    (long long)p->events[j].when);
			trust_file_escape(out, p->events[j].what);
			buf_addc(out, '\n');
		}
		buf_adds(out, "end\n");
	}
}

/* The parser's place in the text. */
struct trust_file_in {
	const char	*name;
	size_t		 line;
	char		**cause;
};

static int __attribute__((format(printf, 2, 3)))
trust_file_bad(struct trust_file_in *in, const char *fmt, ...)
{
	va_list	 ap;
	char	*what;

	va_start(ap, fmt);
	what = xvasprintf(fmt, ap);
	va_end(ap);
	*in->cause = xasprintf("%s:%zu: %s", in->name, in->line, what);
	free(what);
	return -1;
}

/* A fingerprint (40 or 64 hex digits, made upper case) or "-" (NULL). */
static int
trust_file_get_fpr(struct trust_file_in *in, const char *name,
    const char *v, char **fpr)
{
	size_t	n = strlen(v), i;

	*fpr = NULL;
	if (strcmp(v, "-") == 0)
		return 0;
	if (n != 40 && n != 64)
		return trust_file_bad(in, "%s: not a fingerprint", name);
	for (i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)v[i]))
			return trust_file_bad(in, "%s: not a fingerprint",
			    name);
	}
	*fpr = xstrdup(v);
	for (i = 0; i < n; i++)
		(*fpr)[i] = (char)toupper((unsigned char)(*fpr)[i]);
	return 0;
}

static int
trust_file_get_num(struct trust_file_in *in, const char *name,
    const char *v, long long max, long long *out)
{
	char		*end;
	long long	 n;

	errno = 0;
	if (!isdigit((unsigned char)*v) || (n = strtoll(v, &end, 10), errno) ||
	    *end != '\0' || n > max)
		return trust_file_bad(in, "%s: not a number from 0 to %lld",
		    name, max);
	*out = n;
	return 0;
}

/*
 * Split "name=value name=value ..." (words separated by one space) into
 * values in the order of fields; each field exactly once, no other.
 */
static int
trust_file_fields(struct trust_file_in *in, char *s, const char **fields,
    char **values)
{
	char	*w, *eq;
	int	 i, n;

	for (n = 0; fields[n] != NULL; n++)
		values[n] = NULL;
	while ((w = strsep(&s, " ")) != NULL) {
		if (*w == '\0')
			return trust_file_bad(in, "two spaces in a row");
		if ((eq = strchr(w, '=')) == NULL)
			return trust_file_bad(in, "\"%.40s\" is not name=value",
			    w);
		*eq = '\0';
		for (i = 0; i < n; i++) {
			if (strcmp(fields[i], w) == 0)
				break;
		}
		if (i == n)
			return trust_file_bad(in, "unknown field \"%.40s\"", w);
		if (values[i] != NULL)
			return trust_file_bad(in, "%s given twice", w);
		values[i] = eq + 1;
	}
	for (i = 0; i < n; i++) {
		if (values[i] == NULL)
			return trust_file_bad(in, "no %s", fields[i]);
	}
	return 0;
}

static int
trust_file_pin(struct trust_file_in *in, struct trust_move_peer *p, char *s)
{
	struct trust_move_pin	*pin;
	char			*proto, *v[5];
	int			 i;

	proto = strsep(&s, " ");
	if ((i = trust_proto_index(proto)) == -1)
		return trust_file_bad(in, "unknown protocol \"%.20s\"", proto);
	pin = &p->pins[i];
	if (pin->present)
		return trust_file_bad(in, "a second %s pin", proto);
	if (s == NULL)
		return trust_file_bad(in, "a pin without fields");
	if (trust_file_fields(in, s, trust_file_pin_fields, v) == -1)
		return -1;
	pin->present = 1;
	if (trust_file_get_fpr(in, "pinned", v[0], &pin->pinned) == -1 ||
	    trust_file_get_fpr(in, "changed", v[1], &pin->changed) == -1 ||
	    trust_file_get_fpr(in, "conflict", v[3], &pin->conflict) == -1)
		return -1;
	if (strcmp(v[2], pin->changed == NULL ? "-" : "signature") == 0)
		pin->signed_change = pin->changed != NULL;
	else if (pin->changed == NULL || strcmp(v[2], "claim") != 0)
		return trust_file_bad(in, "changed-by: \"signature\" or "
		    "\"claim\" with a changed key, else \"-\"");
	return 0;
}

static int
trust_file_source_list(struct trust_file_in *in, char *s, unsigned *mask)
{
	char	*w;
	int	 i;

	*mask = 0;
	if (strcmp(s, "none") == 0)
		return 0;
	while ((w = strsep(&s, ",")) != NULL) {
		for (i = 0; i < TRUST_SRC_COUNT; i++) {
			if (strcmp(w, trust_source_name(i)) == 0)
				break;
		}
		if (i == TRUST_SRC_COUNT)
			return trust_file_bad(in, "unknown source \"%.40s\"", w);
		*mask |= 1u << i;
	}
	return 0;
}

static int
trust_file_key(struct trust_file_in *in, struct trust_move_peer *p, char *s)
{
	static const char	*decisions[] = { "none", "accepted",
				    "rejected", "verified", NULL };
	struct trust_move_key	*k;
	long long		 n[6], flag[2];
	char			*fpr, *v[10];
	size_t			 j;
	int			 i;

	if (trust_file_get_fpr(in, "key", strsep(&s, " "), &fpr) == -1)
		return -1;
	if (fpr == NULL)
		return trust_file_bad(in, "a key without a fingerprint");
	for (j = 0; j < p->nkeys; j++) {
		if (strcmp(p->keys[j].fpr, fpr) == 0) {
			trust_file_bad(in, "key %s given twice", fpr);
			free(fpr);
			return -1;
		}
	}
	p->keys = xreallocarray(p->keys, p->nkeys + 1, sizeof *p->keys);
	k = &p->keys[p->nkeys++];
	memset(k, 0, sizeof *k);
	k->fpr = fpr;
	if (s == NULL)
		return trust_file_bad(in, "a key without fields");
	if (trust_file_fields(in, s, trust_file_key_fields, v) == -1)
		return -1;
	if (trust_proto_index(v[0]) == -1)
		return trust_file_bad(in, "unknown protocol \"%.20s\"", v[0]);
	snprintf(k->proto, sizeof k->proto, "%s", v[0]);
	if (trust_file_source_list(in, v[1], &k->sources) == -1)
		return -1;
	for (i = 0; i < 5; i++) {
		if (trust_file_get_num(in, trust_file_key_fields[2 + i],
		    v[2 + i], i == 4 ? 2147483647LL : 253402300799LL,
		    &n[i]) == -1)
			return -1;
	}
	k->first_seen = n[0];
	k->last_seen = n[1];
	k->last_sig = n[2];
	k->dns_confirmed = n[3];
	k->messages = n[4];
	for (i = 0; decisions[i] != NULL; i++) {
		if (strcmp(v[7], decisions[i]) == 0)
			break;
	}
	if (decisions[i] == NULL)
		return trust_file_bad(in, "unknown decision \"%.20s\"", v[7]);
	snprintf(k->decision, sizeof k->decision, "%s", v[7]);
	for (i = 0; i < 2; i++) {
		if (trust_file_get_num(in, trust_file_key_fields[8 + i],
		    v[8 + i], 1, &flag[i]) == -1)
			return -1;
	}
	k->revoked = flag[0];
	k->expired = flag[1];
	return 0;
}

static int
trust_file_event(struct trust_file_in *in, struct trust_move_peer *p,
    char *s)
{
	struct trust_move_event	*e;
	struct buf		 b;
	long long		 when;
	char			*w, hex[3];

	w = strsep(&s, " ");
	if (trust_file_get_num(in, "event", w, 253402300799LL, &when) == -1)
		return -1;
	if (s == NULL || *s == '\0')
		return trust_file_bad(in, "an event without text");
	buf_init(&b);
	for (; *s != '\0'; s++) {
		if (*s != '\\') {
			buf_addc(&b, *s);
			continue;
		}
		s++;
		if (*s == '\\')
			buf_addc(&b, '\\');
		else if (*s == 'n')
			buf_addc(&b, '\n');
		else if (*s == 'x' && isxdigit((unsigned char)s[1]) &&
		    isxdigit((unsigned char)s[2]) && (hex[0] = s[1], hex[1] =
		    s[2], hex[2] = '\0', strtoul(hex, NULL, 16) != 0)) {
			buf_addc(&b, (char)strtoul(hex, NULL, 16));
			s += 2;
		} else {
			buf_free(&b);
			return trust_file_bad(in, "a bad escape in an event");
		}
	}
	p->events = xreallocarray(p->events, p->nevents + 1,
	    sizeof *p->events);
	e = &p->events[p->nevents++];
	e->when = when;
	e->what = buf_take(&b);
	return 0;
}

/* The pins name keys of the peer, of their own protocol. */
static int
trust_file_check_peer(struct trust_file_in *in, struct trust_move_peer *p)
{
	const char	*fprs[3];
	size_t		 j;
	int		 i, n;

	for (i = 0; i < TRUST_NPROTO; i++) {
		fprs[0] = p->pins[i].pinned;
		fprs[1] = p->pins[i].changed;
		fprs[2] = p->pins[i].conflict;
		for (n = 0; n < 3; n++) {
			if (fprs[n] == NULL)
				continue;
			for (j = 0; j < p->nkeys; j++) {
				if (strcmp(p->keys[j].fpr, fprs[n]) == 0 &&
				    strcmp(p->keys[j].proto,
				    trust_proto_name(i)) == 0)
					break;
			}
			if (j == p->nkeys)
				return trust_file_bad(in, "the %s pin of %s "
				    "names %s, which is not one of its %s keys",
				    trust_proto_name(i), p->addr, fprs[n],
				    trust_proto_name(i));
		}
	}
	return 0;
}

static int
trust_file_peer(struct trust_file_in *in, struct trust_move *m, char *s)
{
	struct trust_move_peer	*p;
	char			*addr;
	size_t			 i;

	if (s == NULL || strchr(s, ' ') != NULL ||
	    (addr = trust_store_addr(s)) == NULL)
		return trust_file_bad(in, "\"peer\" wants one address");
	for (i = 0; i < strlen(addr); i++) {
		if ((unsigned char)addr[i] <= ' ' || addr[i] == 0x7f) {
			free(addr);
			return trust_file_bad(in, "\"peer\" wants one "
			    "address");
		}
	}
	for (i = 0; i < m->npeers; i++) {
		if (strcasecmp(m->peers[i].addr, addr) == 0) {
			free(addr);
			return trust_file_bad(in, "%s given twice", s);
		}
	}
	m->peers = xreallocarray(m->peers, m->npeers + 1, sizeof *m->peers);
	p = &m->peers[m->npeers++];
	memset(p, 0, sizeof *p);
	p->addr = addr;
	return 0;
}

/* One line (NUL-terminated, no line end); *peer: inside a peer block. */
static int
trust_file_line(struct trust_file_in *in, struct trust_move *m, char *s,
    int *peer)
{
	char	*word;

	word = strsep(&s, " ");
	if (strcmp(word, "peer") == 0) {
		if (*peer)
			return trust_file_bad(in, "\"peer\" before \"end\"");
		*peer = 1;
		return trust_file_peer(in, m, s);
	}
	if (!*peer)
		return trust_file_bad(in, "\"%.20s\" outside a peer", word);
	if (strcmp(word, "end") == 0) {
		if (s != NULL)
			return trust_file_bad(in, "\"end\" takes nothing");
		*peer = 0;
		return trust_file_check_peer(in, &m->peers[m->npeers - 1]);
	}
	if (s == NULL)
		return trust_file_bad(in, "\"%.20s\" without fields", word);
	if (strcmp(word, "pin") == 0)
		return trust_file_pin(in, &m->peers[m->npeers - 1], s);
	if (strcmp(word, "key") == 0)
		return trust_file_key(in, &m->peers[m->npeers - 1], s);
	if (strcmp(word, "event") == 0)
		return trust_file_event(in, &m->peers[m->npeers - 1], s);
	return trust_file_bad(in, "unknown line \"%.20s\"", word);
}

int
trust_move_parse(const char *text, size_t len, const char *name,
    struct trust_move *m, char **cause)
{
	struct trust_file_in	 in = { name, 0, cause };
	const char		*p = text, *end = text + len, *nl;
	char			*line, want[64];
	size_t			 n;
	int			 peer = 0, version = 0, rc = 0;

	memset(m, 0, sizeof *m);
	snprintf(want, sizeof want, "%s %d", TRUST_MOVE_MAGIC,
	    TRUST_MOVE_VERSION);
	while (rc == 0 && p < end) {
		in.line++;
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		n = nl - p;
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n > TRUST_FILE_MAX_LINE || memchr(p, '\0', n) != NULL) {
			rc = trust_file_bad(&in, n > TRUST_FILE_MAX_LINE ?
			    "a line too long" : "a NUL byte");
			break;
		}
		line = xstrndup(p, n);
		p = nl < end ? nl + 1 : end;
		if (!version) {
			if (strncmp(line, TRUST_MOVE_MAGIC " ",
			    sizeof TRUST_MOVE_MAGIC) != 0)
				rc = trust_file_bad(&in, "not a trust store "
				    "export of steedmail");
			else if (strcmp(line, want) != 0)
				rc = trust_file_bad(&in, "version \"%.20s\" "
				    "(this steedmail reads %d)",
				    line + sizeof TRUST_MOVE_MAGIC,
				    TRUST_MOVE_VERSION);
			version = 1;
		} else if (*line != '\0' && *line != '#')
			rc = trust_file_line(&in, m, line, &peer);
		free(line);
	}
	if (rc == 0 && !version) {
		in.line = 1;
		rc = trust_file_bad(&in, "empty");
	}
	else if (rc == 0 && peer) {
		in.line++;
		rc = trust_file_bad(&in, "the file ends inside a peer (no "
		    "\"end\")");
	}
	if (rc == -1)
		trust_move_free(m);
	return rc;
}

void
trust_move_free(struct trust_move *m)
{
	struct trust_move_peer	*p;
	size_t			 i, j;
	int			 n;

	for (i = 0; i < m->npeers; i++) {
		p = &m->peers[i];
		free(p->addr);
		for (n = 0; n < TRUST_NPROTO; n++) {
			free(p->pins[n].pinned);
			free(p->pins[n].changed);
			free(p->pins[n].conflict);
		}
		for (j = 0; j < p->nkeys; j++)
			free(p->keys[j].fpr);
		free(p->keys);
		for (j = 0; j < p->nevents; j++)
			free(p->events[j].what);
		free(p->events);
	}
	free(m->peers);
	memset(m, 0, sizeof *m);
}
