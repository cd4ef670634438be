/*
 * config-write.c: one setting changed in the configuration file (see
 * config-write.h), for the setup wizard. It reads the lines the way
 * config.c does (trimmed; "#" comments; "[account NAME]" sections; "key =
 * value") only to find where the setting goes; every line it does not
 * change is copied byte for byte. It never prints and never validates a
 * value beyond what would break the file's syntax.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "account/config-write.h"
#include "atomic.h"
#include "buf.h"
#include "config.h"
#include "xmalloc.h"

#define CONFIG_WRITE_MAX	(1024 * 1024)	/* a config file, not data */

/* One line of the file: its text and its end ("\n", "\r\n" or ""). */
struct config_write_line {
	const char	*p;
	size_t		 len;	/* without the end */
	size_t		 end;	/* bytes of the end */
};

/* Where the setting goes, found by config_write_find(). */
struct config_write_spot {
	int	section;	/* the section is there (or global) */
	size_t	replace;	/* the line setting key, or SIZE_MAX */
	size_t	after;		/* add after this line, SIZE_MAX: at 0 */
};

static int
config_write_read(const char *path, struct buf *b, char **cause)
{
	char	chunk[8192];
	ssize_t	n;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return 0;
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || b->len + n > CONFIG_WRITE_MAX) {
			*cause = xasprintf("%s: %s", path, n == -1 ?
			    strerror(errno) : "too large for a configuration");
			close(fd);
			return -1;
		}
		buf_add(b, chunk, n);
	}
	close(fd);
	if (b->len > 0 && memchr(b->data, '\0', b->len) != NULL) {
		*cause = xasprintf("%s: holds a NUL byte", path);
		return -1;
	}
	return 0;
}

static struct config_write_line *
config_write_split(const char *s, size_t len, size_t *n)
{
	struct config_write_line	*v = NULL;
	const char			*nl;
	size_t				 off = 0, l;

	*n = 0;
	while (off < len) {
		v = xreallocarray(v, *n + 1, sizeof *v);
		nl = memchr(s + off, '\n', len - off);
		l = nl != NULL ? (size_t)(nl - (s + off)) : len - off;
		v[*n].p = s + off;
		v[*n].end = nl != NULL ? 1 : 0;
		if (nl != NULL && l > 0 && s[off + l - 1] == '\r') {
			l--;
			v[*n].end = 2;
		}
		v[*n].len = l;
		off += l + v[*n].end;
		(*n)++;
	}
	return v;
}

/* The line's text, trimmed as config.c trims it (allocated). */
static char *
config_write_trim(const struct config_write_line *l)
{
	const char	*s = l->p, *e = l->p + l->len;

	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	return xstrndup(s, e - s);
}

/* Is t (trimmed) the header of section account? */
static int
config_write_is_section(const char *t, const char *account)
{
	const char	*p, *e;
	size_t		 len = strlen(account);

	if (strncmp(t, "[", 1) != 0 || (e = strchr(t, ']')) == NULL)
		return 0;
	for (p = t + 1; isspace((unsigned char)*p); p++)
		;
	if (strncmp(p, "account", 7) != 0 || !isspace((unsigned char)p[7]))
		return 0;
	for (p += 8; isspace((unsigned char)*p); p++)
		;
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	return (size_t)(e - p) == len && strncmp(p, account, len) == 0;
}

/* Does t (trimmed) set key? */
static int
config_write_sets(const char *t, const char *key)
{
	const char	*eq, *e;

	if ((eq = strchr(t, '=')) == NULL)
		return 0;
	for (e = eq; e > t && isspace((unsigned char)e[-1]); e--)
		;
	return (size_t)(e - t) == strlen(key) && strncmp(t, key,
	    e - t) == 0;
}

/*
 * A new setting goes after the last setting of its section (a comment
 * just above the next section belongs to that one); in a section without
 * any, right after its header; in a global part without any, after the
 * comment block that opens the file.
 */
static void
config_write_find(const struct config_write_line *v, size_t n,
    const char *account, const char *key, struct config_write_spot *s)
{
	size_t	i;
	int	in = account == NULL, lead = 1;
	char	*t;

	s->section = in;
	s->replace = SIZE_MAX;
	s->after = SIZE_MAX;
	for (i = 0; i < n; i++) {
		t = config_write_trim(&v[i]);
		if (*t != '#')
			lead = 0;
		if (*t == '[') {
			in = account != NULL &&
			    config_write_is_section(t, account);
			if (in && !s->section) {
				s->section = 1;
				s->after = i;
			}
		} else if (in && *t != '\0' && *t != '#') {
			s->after = i;
			if (s->replace == SIZE_MAX && config_write_sets(t, key))
				s->replace = i;
		} else if (in && lead)
			s->after = i;
		free(t);
	}
}

char *
config_write_value(const char *value)
{
	struct buf	 b;
	const char	*p;
	size_t		 len = strlen(value);

	if (len > 0 && !isspace((unsigned char)value[0]) &&
	    !isspace((unsigned char)value[len - 1]) && value[0] != '"' &&
	    strpbrk(value, "\"\\#") == NULL)
		return xstrdup(value);
	buf_init(&b);
	buf_addc(&b, '"');
	for (p = value; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			buf_addc(&b, '\\');
		buf_addc(&b, *p);
	}
	buf_addc(&b, '"');
	return buf_take(&b);
}

static int
config_write_check(const char *account, const char *key, const char *value,
    char **cause)
{
	enum config_scope	 scope;
	const char		*p;
	size_t			 i;

	scope = account != NULL ? CONFIG_ACCOUNT : CONFIG_GLOBAL;
	for (i = 0; i < config_nsettings; i++) {
		if (strcmp(config_settings[i].name, key) == 0 &&
		    config_settings[i].scope == scope)
			break;
	}
	if (i == config_nsettings) {
		*cause = xasprintf("\"%s\" is not %s setting", key,
		    account != NULL ? "an account" : "a global");
		return -1;
	}
	if (account != NULL) {
		for (p = account; *p != '\0'; p++)
			if (!isalnum((unsigned char)*p) && strchr("._-", *p)
			    == NULL)
				break;
		if (*account == '\0' || *p != '\0') {
			*cause = xstrdup("bad account name (use letters, "
			    "digits, '.', '_' and '-')");
			return -1;
		}
	}
	if (strpbrk(value, "\r\n") != NULL) {
		*cause = xasprintf("%s: the value holds a line break", key);
		return -1;
	}
	return 0;
}

/* Write b to path, whole or not at all (atomic.h). */
static int
config_write_replace(const char *path, const struct buf *b, char **cause)
{
	return atomic_write(path, b->data != NULL ? b->data : "", b->len,
	    cause);
}

int
config_write_set(const char *path, const char *account, const char *key,
    const char *value, char **cause)
{
	struct config_write_line	*v;
	struct config_write_spot	 s;
	struct buf			 in, out;
	const char			*nl;
	char				*q;
	size_t				 n, i;
	int				 rc;

	if (config_write_check(account, key, value, cause) == -1)
		return -1;
	buf_init(&in);
	if (config_write_read(path, &in, cause) == -1) {
		buf_free(&in);
		return -1;
	}
	v = config_write_split(in.data, in.len, &n);
	config_write_find(v, n, account, key, &s);
	/* New lines end as the file's first line does. */
	nl = n > 0 && v[0].end == 2 ? "\r\n" : "\n";
	q = config_write_value(value);
	buf_init(&out);
	for (i = 0; i < n; i++) {
		if (i == s.replace)
			buf_addf(&out, "%s = %s", key, q);
		else
			buf_add(&out, v[i].p, v[i].len);
		if (v[i].end > 0)
			buf_add(&out, v[i].p + v[i].len, v[i].end);
		else if (s.replace == SIZE_MAX && (i == s.after ||
		    !s.section))
			buf_adds(&out, nl);	/* a last line without one */
		if (s.section && s.replace == SIZE_MAX && i == s.after)
			buf_addf(&out, "%s = %s%s", key, q, nl);
	}
	if (s.section && s.replace == SIZE_MAX && s.after == SIZE_MAX) {
		/* Global, with nothing before the first section. */
		buf_reset(&out);
		buf_addf(&out, "%s = %s%s", key, q, nl);
		if (in.len > 0)
			buf_add(&out, in.data, in.len);
	}
	if (!s.section)
		buf_addf(&out, "%s[account %s]%s%s = %s%s", out.len > 0 ?
		    nl : "", account, nl, key, q, nl);
	rc = config_write_replace(path, &out, cause);
	free(q);
	free(v);
	buf_free(&out);
	buf_free(&in);
	return rc;
}
