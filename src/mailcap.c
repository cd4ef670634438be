/*
 * mailcap.c: reading RFC 1524 mailcap files (mailcap.h) and filling in a
 * view command. It owns the parsing only: the pager's attachment screen
 * calls it and runs what it returns; the view may use it for an HTML
 * converter.
 *
 * It must never run anything (a test= field is skipped, not run), and
 * never put bytes from a message (a type, a parameter) into a command
 * other than as one inert shell word: only letters, digits and "._-+/="
 * get through, whatever quotes the mailcap line puts around them.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "mailcap.h"
#include "xmalloc.h"

#define MAILCAP_MAX_FIELDS	32

/* Does the entry's type (as written: "image/png", "image/ *", "image")
 * cover type? */
static int
mailcap_match(const char *pattern, const char *type)
{
	const char	*slash = strchr(pattern, '/');
	const char	*tslash = strchr(type, '/');
	size_t		 n;

	if (slash == NULL || strcmp(slash, "/*") == 0) {
		n = slash == NULL ? strlen(pattern) : (size_t)(slash - pattern);
		return tslash != NULL && (size_t)(tslash - type) == n &&
		    strncasecmp(pattern, type, n) == 0;
	}
	return strcasecmp(pattern, type) == 0;
}

/* A field with the blanks around it gone, "\;" made ';'. */
static char *
mailcap_field(const char *s, size_t len)
{
	struct buf	b;
	size_t		i;

	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	buf_init(&b);
	for (i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 1 < len && s[i + 1] == ';')
			i++;
		buf_addc(&b, s[i]);
	}
	buf_addc(&b, '\0');
	return buf_take(&b);
}

/* One logical line: fill e if it is an entry for type. */
static int
mailcap_line(const char *s, size_t len, const char *type, int flags,
    struct mailcap_entry *e)
{
	char	*f[MAILCAP_MAX_FIELDS];
	size_t	 nf = 0, i, start = 0;
	int	 ok = 0, term = 0, copious = 0, test = 0;

	for (i = 0; i <= len && nf < MAILCAP_MAX_FIELDS; i++) {
		if (i + 1 < len && s[i] == '\\') {
			i++;
			continue;
		}
		if (i == len || s[i] == ';') {
			f[nf++] = mailcap_field(s + start, i - start);
			start = i + 1;
		}
	}
	if (nf < 2 || *f[0] == '\0' || *f[1] == '\0' ||
	    !mailcap_match(f[0], type))
		goto out;
	for (i = 2; i < nf; i++) {
		if (strcasecmp(f[i], "needsterminal") == 0)
			term = 1;
		else if (strcasecmp(f[i], "copiousoutput") == 0)
			copious = 1;
		else if (strncasecmp(f[i], "test", 4) == 0 &&
		    (f[i][4] == '=' || isspace((unsigned char)f[i][4])))
			test = 1;
	}
	if (test || ((flags & MAILCAP_COPIOUS) && !copious))
		goto out;
	e->type = xstrdup(f[0]);
	e->view = xstrdup(f[1]);
	e->needsterminal = term;
	e->copiousoutput = copious;
	ok = 1;
out:
	for (i = 0; i < nf; i++)
		free(f[i]);
	return ok;
}

int
mailcap_parse(const char *text, size_t len, const char *type, int flags,
    struct mailcap_entry *e)
{
	struct buf	 line;
	const char	*p = text, *end = text + len, *q;
	int		 found = 0;

	memset(e, 0, sizeof *e);
	buf_init(&line);
	while (p < end && !found) {
		buf_reset(&line);
		/* A line ending in a backslash goes on on the next. */
		for (;;) {
			if ((q = memchr(p, '\n', end - p)) == NULL)
				q = end;
			if (q > p && q[-1] == '\\') {
				buf_add(&line, p, q - 1 - p);
				p = q < end ? q + 1 : end;
				if (p < end)
					continue;
			} else
				buf_add(&line, p, q - p);
			p = q < end ? q + 1 : end;
			break;
		}
		q = line.data;
		while (q != NULL && q < line.data + line.len &&
		    isspace((unsigned char)*q))
			q++;
		if (q == NULL || q == line.data + line.len || *q == '#')
			continue;
		found = mailcap_line(q, line.data + line.len - q, type, flags,
		    e);
	}
	buf_free(&line);
	return found;
}

static int
mailcap_file(const char *path, const char *type, int flags,
    struct mailcap_entry *e)
{
	struct buf	b;
	int		found = 0;

	buf_init(&b);
	if (buf_read_file(&b, path, MAILCAP_MAX_FILE) == 0 && b.len > 0)
		found = mailcap_parse(b.data, b.len, type, flags, e);
	buf_free(&b);
	return found;
}

int
mailcap_find(const char *type, int flags, struct mailcap_entry *e)
{
	const char	*list = getenv("MAILCAPS"), *home = getenv("HOME");
	char		*copy, *s, *path, *last;
	int		 found = 0;

	memset(e, 0, sizeof *e);
	if (list != NULL && *list != '\0') {
		copy = xstrdup(list);
		for (s = strtok_r(copy, ":", &last); s != NULL && !found;
		    s = strtok_r(NULL, ":", &last))
			found = mailcap_file(s, type, flags, e);
		free(copy);
		return found;
	}
	if (home != NULL && *home != '\0') {
		path = xasprintf("%s/.mailcap", home);
		found = mailcap_file(path, type, flags, e);
		free(path);
	}
	if (!found)
		found = mailcap_file("/etc/mailcap", type, flags, e);
	return found;
}

/* A value as one inert shell word. */
static void
mailcap_word(struct buf *out, const char *s, size_t len)
{
	size_t	i;

	if (len == 0)
		return;
	for (i = 0; i < len; i++) {
		if (isalnum((unsigned char)s[i]) || strchr("._-+/=", s[i]) !=
		    NULL)
			buf_addc(out, s[i]);
		else
			buf_addc(out, '_');
	}
}

static const char *
mailcap_param(const char **params, size_t n, const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (strncasecmp(params[i], name, len) == 0 &&
		    params[i][len] == '=')
			return params[i] + len + 1;
	}
	return "";
}

char *
mailcap_command(const struct mailcap_entry *e, const char *file,
    const char *type, const char **params, size_t nparams, int *stdin_)
{
	struct buf	 b;
	const char	*p = e->view, *v, *close;
	int		 file_used = 0;

	buf_init(&b);
	while (*p != '\0') {
		if (*p == '\\' && p[1] == '%') {
			buf_addc(&b, '%');
			p += 2;
		} else if (*p != '%') {
			buf_addc(&b, *p++);
		} else if (p[1] == 's') {
			if (file != NULL)
				mailcap_word(&b, file, strlen(file));
			file_used = 1;
			p += 2;
		} else if (p[1] == 't') {
			mailcap_word(&b, type, strlen(type));
			p += 2;
		} else if (p[1] == '{' &&
		    (close = strchr(p + 2, '}')) != NULL) {
			v = mailcap_param(params, nparams, p + 2,
			    close - (p + 2));
			mailcap_word(&b, v, strlen(v));
			p = close + 1;
		} else if (p[1] == '%') {
			buf_addc(&b, '%');
			p += 2;
		} else {
			buf_addc(&b, *p++);
		}
	}
	buf_addc(&b, '\0');
	if (stdin_ != NULL)
		*stdin_ = !file_used;
	return buf_take(&b);
}

void
mailcap_entry_free(struct mailcap_entry *e)
{
	free(e->type);
	free(e->view);
	memset(e, 0, sizeof *e);
}
