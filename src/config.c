/*
 * config.c: reading the configuration file described in steedmail.conf(5).
 *
 * The format is line based: "# comment", "key = value", "[account NAME]".
 * A value runs to the end of the line, trimmed; a value in double quotes
 * may hold leading or trailing blanks and the escapes \" and \\. Every
 * error names the file and line and stops the load: a mail client that
 * guesses what a broken setting meant may send mail somewhere unintended.
 * Unknown settings are errors for the same reason.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "addr.h"
#include "buf.h"
#include "color.h"
#include "config.h"
#include "dns-update.h"
#include "log.h"
#include "paths.h"
#include "strsafe.h"
#include "xmalloc.h"

#define CONFIG_LINE_MAX	4096

struct config_parser {
	const char	*file;
	int		 line;
	struct config	*cf;
	struct account	*acct;		/* current section, or NULL */
	struct account	**tail;
	unsigned char	 seen[64];	/* settings set in this section */
	char		*cause;
	int		 depth;		/* of source lines */
	int		 npasswords;	/* password lines read */
};

#define CONFIG_SOURCE_DEPTH	8

static int	config_read_lines(struct config_parser *, FILE *);

static int
config_error(struct config_parser *p, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	free(p->cause);
	p->cause = xasprintf("%s:%d: %s", p->file, p->line, msg);
	free(msg);
	return -1;
}

static void
config_warn(struct config *cf, char *msg)
{
	cf->warnings = xreallocarray(cf->warnings, cf->nwarnings + 1,
	    sizeof *cf->warnings);
	cf->warnings[cf->nwarnings++] = msg;
}

const char *
config_type_name(enum config_type t)
{
	switch (t) {
	case CONFIG_STRING:		return "text";
	case CONFIG_SECRET:		return "secret text";
	case CONFIG_COMMAND:		return "command";
	case CONFIG_ADDRESS:		return "address";
	case CONFIG_IMAP_URL:		return "IMAP URL";
	case CONFIG_SMTP_URL:		return "SMTP URL";
	case CONFIG_PATH:		return "file name";
	case CONFIG_FINGERPRINT:	return "SHA-256 fingerprint";
	case CONFIG_ACCOUNT_ID:		return "account name";
	case CONFIG_KEY_ID:		return "key fingerprint";
	case CONFIG_BOOL:		return "yes or no";
	case CONFIG_SECONDS:		return "seconds";
	case CONFIG_CHOICE:		return "one of a list of words";
	case CONFIG_LIST:		return "text, repeatable";
	}
	return "?";
}

static int
config_has_controls(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

static int
config_valid_id(const char *s)
{
	if (*s == '\0' || strlen(s) > 64)
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && strchr("._-", *s) == NULL)
			return 0;
	return 1;
}

/* scheme://host[:port] with no user, path or query. */
static int
config_parse_url(struct config_parser *p, const char *key, const char *v,
    enum config_type type, struct config_url *url)
{
	const char	*tls_scheme, *plain_scheme, *rest, *end, *colon;
	unsigned	 tls_port, plain_port;
	unsigned long	 port;
	char		*ep;
	size_t		 n;

	if (type == CONFIG_IMAP_URL) {
		tls_scheme = "imaps"; plain_scheme = "imap";
		tls_port = 993; plain_port = 143;
	} else {
		tls_scheme = "smtps"; plain_scheme = "smtp";
		tls_port = 465; plain_port = 587;
	}
	n = strlen(tls_scheme);
	if (strncmp(v, tls_scheme, n) == 0 && strncmp(v + n, "://", 3) == 0) {
		url->tls = CONFIG_TLS_IMPLICIT;
		url->port = tls_port;
		rest = v + n + 3;
	} else if (strncmp(v, plain_scheme, n - 1) == 0 &&
	    strncmp(v + n - 1, "://", 3) == 0) {
		url->tls = CONFIG_TLS_STARTTLS;
		url->port = plain_port;
		rest = v + n + 2;
	} else
		return config_error(p, "%s must start with %s:// or %s://",
		    key, tls_scheme, plain_scheme);

	if (*rest == '[') {		/* [IPv6 literal] */
		if ((end = strchr(rest, ']')) == NULL)
			return config_error(p, "%s: missing ] in address", key);
		url->host = xstrndup(rest + 1, end - rest - 1);
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] != '\0' && colon == NULL)
			return config_error(p, "%s: unexpected text after ]",
			    key);
	} else {
		end = rest + strcspn(rest, ":/?#@");
		if (*end != '\0' && *end != ':')
			return config_error(p, "%s: only scheme://host[:port] "
			    "is allowed (set the login with \"user\")", key);
		url->host = xstrndup(rest, end - rest);
		colon = *end == ':' ? end : NULL;
	}
	if (*url->host == '\0')
		return config_error(p, "%s: no host name", key);
	if (strspn(url->host, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:") != strlen(url->host))
		return config_error(p, "%s: bad host name", key);
	if (colon != NULL) {
		errno = 0;
		port = strtoul(colon + 1, &ep, 10);
		if (colon[1] == '\0' || *ep != '\0' || port == 0 ||
		    port > 65535 || errno != 0)
			return config_error(p, "%s: bad port number \"%s\"",
			    key, colon + 1);
		url->port = (unsigned)port;
	}
	return 0;
}

/* 64 hex digits, optionally in pairs separated by colons. */
static int
config_parse_fingerprint(const char *v, char **out)
{
	char	hex[65];
	size_t	n = 0;

	for (; *v != '\0'; v++) {
		if (*v == ':')
			continue;
		if (!isxdigit((unsigned char)*v) || n == 64)
			return -1;
		hex[n++] = (char)tolower((unsigned char)*v);
	}
	if (n != 64)
		return -1;
	hex[n] = '\0';
	*out = xstrdup(hex);
	return 0;
}

/* A key fingerprint as gpg prints it, spaces allowed; kept upper-case. */
static int
config_parse_keyid(const char *v, char **out)
{
	char	hex[65];
	size_t	n = 0;

	for (; *v != '\0'; v++) {
		if (*v == ' ')
			continue;
		if (!isxdigit((unsigned char)*v) || n == 64)
			return -1;
		hex[n++] = (char)toupper((unsigned char)*v);
	}
	if (n != 40 && n != 64)
		return -1;
	hex[n] = '\0';
	*out = xstrdup(hex);
	return 0;
}

static char *
config_expand_path(const char *v)
{
	if (v[0] == '~' && v[1] == '/')
		return xasprintf("%s%s", paths_home(), v + 1);
	return xstrdup(v);
}

/* A whole number of seconds, 1 to 3600. */
static int
config_parse_seconds(struct config_parser *p, const char *key, const char *v,
    int *out)
{
	char	*end;
	long	 n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (*v < '0' || *v > '9' || *end != '\0' || errno != 0 || n < 1 ||
	    n > 3600)
		return config_error(p, "%s: expected seconds, from 1 to 3600",
		    key);
	*out = (int)n;
	return 0;
}

/* Is v one of the '|'-separated words of list? */
static int
config_choice(const char *list, const char *v)
{
	size_t	n = strlen(v);
	const char *w;

	for (w = list; w != NULL; w = strchr(w, '|'), w = w ? w + 1 : NULL) {
		if (strncmp(w, v, n) == 0 && (w[n] == '|' || w[n] == '\0'))
			return 1;
	}
	return 0;
}

/* A repeatable setting: one more line at the end of its list. */
static int
config_list_add(char ***list, const char *v)
{
	size_t	*n = (size_t *)(list + 1);

	*list = xreallocarray(*list, *n + 1, sizeof **list);
	(*list)[(*n)++] = xstrdup(v);
	return 0;
}

/*
 * A color line: kept when color_parse() takes it; one it skips (a mutt
 * object steedmail does not draw) is a warning, so that a mutt theme
 * loads; a wrong one is an error.
 */
static int
config_color(struct config_parser *p, char ***list, const char *v)
{
	struct color_line	 cl;
	char			*why;
	int			 rc;

	if ((rc = color_parse(v, &cl, &why)) == -1) {
		config_error(p, "color: %s", why);
		free(why);
		return -1;
	}
	if (rc == 1) {
		config_warn(p->cf, xasprintf("%s:%d: color: %s", p->file,
		    p->line, why));
		free(why);
		return 0;
	}
	return config_list_add(list, v);
}

/* The settings of text whose form one module knows (dns-update.h). */
int
config_duration(const char *v, long long *secs, char **why)
{
	char		*end;
	long long	 n, unit = 1;

	errno = 0;
	n = strtoll(v, &end, 10);
	if (*end == 'm')
		unit = 60;
	else if (*end == 'h')
		unit = 3600;
	else if (*end == 'd')
		unit = 24 * 3600;
	if (unit != 1)
		end++;
	if (*v < '0' || *v > '9' || *end != '\0' || errno != 0 || n < 1 ||
	    n > 365 * 24 * 3600 / unit) {
		*why = xstrdup("expected a duration: seconds, or a number "
		    "and m, h or d (30m, 12h, 2d), at most 365 days");
		return -1;
	}
	*secs = n * unit;
	return 0;
}

static int
config_check_duration(const char *v, char **why)
{
	long long	secs;

	return config_duration(v, &secs, why);
}

long long
config_dns_wait(const struct config *cf)
{
	long long	 secs;
	char		*why = NULL;

	if (cf == NULL || cf->dns_wait == NULL ||
	    config_duration(cf->dns_wait, &secs, &why) == -1) {
		free(why);
		return CONFIG_DNS_WAIT_DEFAULT;
	}
	return secs;
}

static int
config_check_form(struct config_parser *p, const struct config_setting *s,
    const char *v)
{
	int	(*check)(const char *, char **) = NULL;
	char	*why;
	int	 rc;

	if (strcmp(s->name, "dns-update-server") == 0)
		check = dns_update_check_server;
	else if (strcmp(s->name, "dns-update-key") == 0)
		check = dns_update_check_key;
	else if (strcmp(s->name, "dns-update-zone") == 0)
		check = dns_update_check_zone;
	else if (strcmp(s->name, "dns-wait") == 0)
		check = config_check_duration;
	if (check == NULL || check(v, &why) == 0)
		return 0;
	rc = config_error(p, "%s: %s", s->name, why);
	free(why);
	return rc;
}

/* Validate value v for setting s and store it. */
static int
config_set(struct config_parser *p, const struct config_setting *s,
    const char *v)
{
	void	*base = s->scope == CONFIG_GLOBAL ?
		    (void *)p->cf : (void *)p->acct;
	char	**field = (char **)((char *)base + s->offset);

	if (*v == '\0')
		return config_error(p, "%s: empty value", s->name);
	if (config_has_controls(v))
		return config_error(p, "%s: control characters in value",
		    s->name);

	switch (s->type) {
	case CONFIG_IMAP_URL:
	case CONFIG_SMTP_URL:
		return config_parse_url(p, s->name, v, s->type,
		    (struct config_url *)((char *)base + s->offset));
	case CONFIG_ADDRESS:
		if (!addr_valid(v))
			return config_error(p, "%s: \"%s\" is not a mail "
			    "address of the form local@domain", s->name, v);
		break;
	case CONFIG_ACCOUNT_ID:
		if (!config_valid_id(v))
			return config_error(p, "%s: bad account name \"%s\"",
			    s->name, v);
		break;
	case CONFIG_FINGERPRINT:
		if (config_parse_fingerprint(v, field) == -1)
			return config_error(p, "%s: expected a SHA-256 "
			    "fingerprint (64 hex digits)", s->name);
		return 0;
	case CONFIG_PATH:
		*field = config_expand_path(v);
		return 0;
	case CONFIG_KEY_ID:
		if (config_parse_keyid(v, field) == -1)
			return config_error(p, "%s: expected a key fingerprint "
			    "(40 or 64 hex digits, spaces allowed)", s->name);
		return 0;
	case CONFIG_BOOL:
		if (strcmp(v, "yes") == 0)
			*(int *)field = 1;
		else if (strcmp(v, "no") == 0)
			*(int *)field = 0;
		else
			return config_error(p, "%s: expected yes or no",
			    s->name);
		return 0;
	case CONFIG_SECONDS:
		return config_parse_seconds(p, s->name, v, (int *)field);
	case CONFIG_CHOICE:
		if (!config_choice(s->metavar, v))
			return config_error(p, "%s: expected one of %s",
			    s->name, s->metavar);
		break;
	case CONFIG_LIST:
		if (strcmp(s->name, "color") == 0)
			return config_color(p, (char ***)field, v);
		return config_list_add((char ***)field, v);
	case CONFIG_STRING:
	case CONFIG_SECRET:
	case CONFIG_COMMAND:
		if (config_check_form(p, s, v) == -1)
			return -1;
		break;
	}
	*field = xstrdup(v);
	return 0;
}

/* Unquote a value in place; return -1 on a broken quoted string. */
static int
config_unquote(struct config_parser *p, char *v)
{
	char	*in, *out;

	if (*v != '"')
		return 0;
	for (in = v + 1, out = v; *in != '"'; in++) {
		if (*in == '\0')
			return config_error(p, "missing closing quote");
		if (*in == '\\') {
			in++;
			if (*in != '"' && *in != '\\')
				return config_error(p, "bad escape in quoted "
				    "value (only \\\" and \\\\ are allowed)");
		}
		*out++ = *in;
	}
	for (in++; *in != '\0'; in++)
		if (!isspace((unsigned char)*in))
			return config_error(p, "text after closing quote");
	*out = '\0';
	return 0;
}

static char *
config_trim(char *s)
{
	char	*e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Is the domain of address zone or under it? */
static int
config_in_zone(const char *address, const char *zone)
{
	const char	*d = strrchr(address, '@');
	size_t		 dl, zl = strlen(zone);

	if (zl > 0 && zone[zl - 1] == '.')
		zl--;
	if (d == NULL)
		return 0;
	dl = strlen(++d);
	if (dl < zl || strncasecmp(d + dl - zl, zone, zl) != 0)
		return 0;
	return dl == zl || d[dl - zl - 1] == '.';
}

/* Check the account that just ended, and give it its defaults. */
static int
config_end_account(struct config_parser *p)
{
	struct account	*a = p->acct;
	size_t		 i;
	int		 line = p->line;

	if (a == NULL)
		return 0;
	p->line = a->line;
	for (i = 0; i < config_nsettings; i++) {
		const struct config_setting *s = &config_settings[i];
		if (s->scope == CONFIG_ACCOUNT && s->required && !p->seen[i])
			return config_error(p, "account %s has no \"%s\" "
			    "setting", a->id, s->name);
	}
	if ((a->password != NULL) + (a->password_command != NULL) +
	    (a->password_file != NULL) > 1)
		return config_error(p, "account %s has more than one of "
		    "\"password\", \"password-command\" and "
		    "\"password-file\"; keep one", a->id);
	if ((a->dns_update_server == NULL) != (a->dns_update_key == NULL))
		return config_error(p, "account %s has \"%s\" but no \"%s\"; "
		    "--publish needs both", a->id, a->dns_update_server ?
		    "dns-update-server" : "dns-update-key",
		    a->dns_update_server ? "dns-update-key" :
		    "dns-update-server");
	if (a->dns_update_zone != NULL &&
	    !config_in_zone(a->address, a->dns_update_zone))
		return config_error(p, "account %s: dns-update-zone %s does "
		    "not hold the address's domain", a->id,
		    a->dns_update_zone);
	if (a->user == NULL)
		a->user = xstrdup(a->address);
	p->line = line;
	return 0;
}

static int
config_section(struct config_parser *p, char *line)
{
	char		*end, *id;
	struct account	*a;

	if ((end = strchr(line, ']')) == NULL)
		return config_error(p, "missing ] in section header");
	if (*config_trim(end + 1) != '\0')
		return config_error(p, "text after section header");
	*end = '\0';
	line = config_trim(line + 1);
	if (strncmp(line, "account", 7) != 0 ||
	    !isspace((unsigned char)line[7]))
		return config_error(p, "unknown section \"[%s]\" (expected "
		    "[account NAME])", line);
	id = config_trim(line + 8);
	if (!config_valid_id(id))
		return config_error(p, "bad account name \"%s\" (use letters, "
		    "digits, '.', '_' and '-')", id);
	for (a = p->cf->accounts; a != NULL; a = a->next)
		if (strcmp(a->id, id) == 0)
			return config_error(p, "account %s is defined twice "
			    "(first at line %d)", id, a->line);
	if (config_end_account(p) == -1)
		return -1;

	a = xcalloc(1, sizeof *a);
	a->id = xstrdup(id);
	a->file = xstrdup(p->file);
	a->line = p->line;
	*p->tail = a;
	p->tail = &a->next;
	p->acct = a;
	p->cf->naccounts++;
	memset(p->seen, 0, sizeof p->seen);
	return 0;
}

/*
 * "source FILE": FILE's lines read here, as if they stood in place of
 * this one (a secrets file, a theme). A relative name is from the
 * directory of the file that names it; a directory is refused at the
 * source line. Errors name FILE and its line, and where FILE was named.
 */
static int
config_source(struct config_parser *p, const char *v)
{
	struct config_parser	 sub;
	struct stat		 sb;
	const char		*slash;
	char			*path;
	FILE			*f;
	int			 rc;

	if (*v == '\0')
		return config_error(p, "source: empty value");
	if (p->depth >= CONFIG_SOURCE_DEPTH)
		return config_error(p, "source: more than %d files deep (a "
		    "file that sources itself?)", CONFIG_SOURCE_DEPTH);
	if (v[0] != '/' && v[0] != '~' &&
	    (slash = strrchr(p->file, '/')) != NULL)
		path = xasprintf("%.*s/%s", (int)(slash - p->file), p->file, v);
	else
		path = config_expand_path(v);
	if ((f = fopen(path, "r")) == NULL) {
		rc = config_error(p, "source: %s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		rc = config_error(p, "source: %s: is a directory", path);
		fclose(f);
		free(path);
		return rc;
	}
	sub = *p;
	sub.file = path;
	sub.line = 0;
	sub.depth = p->depth + 1;
	sub.cause = NULL;
	rc = config_read_lines(&sub, f);
	/* a file of secrets others can read, as for the main file */
	if (rc == 0 && sub.npasswords > p->npasswords &&
	    fstat(fileno(f), &sb) == 0 && (sb.st_mode & 077) != 0)
		config_warn(p->cf, xasprintf("%s holds a password but can be "
		    "read by others (mode %03o); run: chmod 600 %s", path,
		    (unsigned)(sb.st_mode & 0777), path));
	p->npasswords = sub.npasswords;
	fclose(f);
	/* the section it ended in goes on in this file */
	p->acct = sub.acct;
	p->tail = sub.tail;
	memcpy(p->seen, sub.seen, sizeof p->seen);
	/* the error where it is, and where that file was named */
	if (rc == -1) {
		free(p->cause);
		p->cause = xasprintf("%s (sourced at %s:%d)", sub.cause,
		    p->file, p->line);
		free(sub.cause);
	}
	free(path);
	return rc;
}

static int
config_assignment(struct config_parser *p, char *line)
{
	char				*eq, *key, *value;
	const struct config_setting	*s;
	enum config_scope		 scope;
	size_t				 i;

	if ((eq = strchr(line, '=')) == NULL)
		return config_error(p, "expected \"key = value\" or "
		    "\"[account NAME]\"");
	*eq = '\0';
	key = config_trim(line);
	value = config_trim(eq + 1);
	if (config_unquote(p, value) == -1)
		return -1;
	if (strcmp(key, "source") == 0)
		return config_source(p, value);

	scope = p->acct != NULL ? CONFIG_ACCOUNT : CONFIG_GLOBAL;
	for (i = 0; i < config_nsettings; i++) {
		s = &config_settings[i];
		if (strcmp(s->name, key) == 0 && s->scope == scope)
			break;
	}
	if (i == config_nsettings) {
		for (i = 0; i < config_nsettings; i++)
			if (strcmp(config_settings[i].name, key) == 0)
				break;
		if (i == config_nsettings) {
			char *safe = strsafe(key, 0);
			config_error(p, "unknown setting \"%s\"", safe);
			free(safe);
			return -1;
		}
		if (scope == CONFIG_ACCOUNT)
			return config_error(p, "\"%s\" is a global setting: "
			    "put it before the first [account] section", key);
		return config_error(p, "\"%s\" belongs in an [account NAME] "
		    "section", key);
	}
	if (p->seen[i] && s->type != CONFIG_LIST)
		return config_error(p, "\"%s\" is set twice", key);
	p->seen[i] = 1;
	if (config_set(p, s, value) == -1)
		return -1;
	if (p->acct != NULL && strcmp(s->name, "password") == 0) {
		p->acct->password_line = p->line;
		p->npasswords++;
	}
	log_msg(LOG_TRACE, "config: %s%s%s = %s",
	    p->acct != NULL ? p->acct->id : "", p->acct != NULL ? "." : "",
	    key, s->type == CONFIG_SECRET ? "(secret)" : value);
	return 0;
}

/*
 * mutt's form of the lines a theme or another file holds, "color OBJECT
 * FG BG" without "=": read as "color = OBJECT FG BG".
 */
static int
config_command(struct config_parser *p, char *line)
{
	static const char	*cmds[] = { "color", "source" };
	char			 buf[CONFIG_LINE_MAX + 4];
	size_t			 i, n;

	for (i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		n = strlen(cmds[i]);
		if (strncmp(line, cmds[i], n) != 0 ||
		    (line[n] != ' ' && line[n] != '\t'))
			continue;
		if (line[n + strspn(line + n, " \t")] == '=')
			return 0;
		snprintf(buf, sizeof buf, "%s =%s", cmds[i], line + n);
		return config_assignment(p, buf) == -1 ? -1 : 1;
	}
	return 0;
}

static int
config_parse_line(struct config_parser *p, char *line)
{
	int	rc;

	line = config_trim(line);
	if (*line == '\0' || *line == '#')
		return 0;
	if (*line == '[')
		return config_section(p, line);
	if ((rc = config_command(p, line)) != 0)
		return rc == -1 ? -1 : 0;
	return config_assignment(p, line);
}

/* Passwords in a file others can read are a risk worth a warning. */
static void
config_check_mode(struct config *cf, FILE *f)
{
	struct stat	 sb;
	struct account	*a;

	for (a = cf->accounts; a != NULL; a = a->next)
		if (a->password != NULL)
			break;
	if (a == NULL || fstat(fileno(f), &sb) == -1)
		return;
	if ((sb.st_mode & 077) != 0)
		config_warn(cf, xasprintf("%s holds a password but can be "
		    "read by others (mode %03o); run: chmod 600 %s",
		    cf->path, (unsigned)(sb.st_mode & 0777), cf->path));
}

static int
config_read_lines(struct config_parser *p, FILE *f)
{
	char	line[CONFIG_LINE_MAX + 2];
	size_t	n;

	while (fgets(line, sizeof line, f) != NULL) {
		p->line++;
		n = strlen(line);
		if (n == sizeof line - 1 && line[n - 1] != '\n')
			return config_error(p, "line longer than %d bytes",
			    CONFIG_LINE_MAX);
		if ((n == 0 || line[n - 1] != '\n') && !feof(f))
			return config_error(p, "NUL byte in line");
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n > 0 && line[n - 1] == '\r')
			line[--n] = '\0';
		if (config_parse_line(p, line) == -1)
			return -1;
	}
	if (ferror(f))
		return config_error(p, "read error: %s", strerror(errno));
	return 0;
}

static int
config_parse_file(struct config_parser *p, FILE *f)
{
	if (config_read_lines(p, f) == -1)
		return -1;
	p->line++;
	return config_end_account(p);
}

struct config *
config_load(const char *path, char **cause)
{
	struct config_parser	 p;
	struct config		*cf;
	struct account		*a;
	FILE			*f;
	int			 optional = path == NULL;

	memset(&p, 0, sizeof p);
	cf = xcalloc(1, sizeof *cf);
	cf->path = path != NULL ? xstrdup(path) : paths_config_file();
	p.cf = cf;
	p.file = cf->path;
	p.tail = &cf->accounts;

	if ((f = fopen(cf->path, "r")) == NULL) {
		if (optional && errno == ENOENT) {
			log_msg(LOG_INFO, "config: %s does not exist",
			    cf->path);
			return cf;
		}
		*cause = xasprintf("%s: %s", cf->path, strerror(errno));
		config_free(cf);
		return NULL;
	}
	if (config_parse_file(&p, f) == -1)
		goto fail;
	if (cf->default_account != NULL) {
		for (a = cf->accounts; a != NULL; a = a->next)
			if (strcmp(a->id, cf->default_account) == 0)
				break;
		if (a == NULL) {
			p.line = 0;
			config_error(&p, "default-account: no account named "
			    "%s", cf->default_account);
			goto fail;
		}
	}
	config_check_mode(cf, f);
	fclose(f);
	log_msg(LOG_INFO, "config: loaded %s, %zu account(s)", cf->path,
	    cf->naccounts);
	return cf;

fail:
	fclose(f);
	*cause = p.cause;
	config_free(cf);
	return NULL;
}

struct account *
config_account(struct config *cf, const char *id, char **cause)
{
	struct account	*a;

	if (cf->accounts == NULL) {
		*cause = xasprintf("no account is configured in %s", cf->path);
		return NULL;
	}
	if (id == NULL)
		id = cf->default_account;
	if (id == NULL)
		return cf->accounts;
	for (a = cf->accounts; a != NULL; a = a->next)
		if (strcmp(a->id, id) == 0)
			return a;
	*cause = xasprintf("no account named \"%s\" in %s", id, cf->path);
	return NULL;
}

char **
config_audit(const struct config *cf, size_t *n)
{
	const struct account	*a;
	char			**lines = NULL;

	*n = 0;
	for (a = cf->accounts; a != NULL; a = a->next) {
		if (a->password == NULL)
			continue;
		lines = xreallocarray(lines, *n + 1, sizeof *lines);
		lines[(*n)++] = xasprintf("%s:%d: account %s keeps its "
		    "password in clear (password = ...); steedmail --setup "
		    "keeps it encrypted to the account's key (password-file), "
		    "or let a command give it (password-command)",
		    a->file != NULL ? a->file : cf->path, a->password_line,
		    a->id);
	}
	return lines;
}

static void
config_free_account(struct account *a)
{
	free(a->id);
	free(a->file);
	free(a->name);
	free(a->address);
	free(a->imap.host);
	free(a->smtp.host);
	free(a->user);
	freezero_str(a->password);
	free(a->password_command);
	free(a->password_file);
	free(a->auth);
	free(a->oauth2_token_file);
	free(a->oauth2_token_url);
	free(a->oauth2_device_url);
	free(a->oauth2_auth_url);
	free(a->oauth2_scope);
	free(a->oauth2_client_id);
	freezero_str(a->oauth2_client_secret);
	free(a->oauth2_mechanism);
	free(a->sent_copy);
	free(a->sent_folder);
	free(a->trash_folder);
	free(a->drafts_folder);
	free(a->archive_folder);
	free(a->ca_file);
	free(a->cert_fingerprint);
	free(a->key);
	free(a->smime_key);
	free(a->dns_update_server);
	freezero_str(a->dns_update_key);
	free(a->dns_update_zone);
	free(a);
}

void
config_free(struct config *cf)
{
	struct account	*a, *next;
	size_t		 i;

	if (cf == NULL)
		return;
	for (a = cf->accounts; a != NULL; a = next) {
		next = a->next;
		config_free_account(a);
	}
	for (i = 0; i < cf->nwarnings; i++)
		free(cf->warnings[i]);
	free(cf->warnings);
	free(cf->path);
	free(cf->default_account);
	free(cf->alias_file);
	free(cf->new_mail_command);
	free(cf->query_command);
	free(cf->provider_dir);
	free(cf->ca_file);
	free(cf->gnupg_home);
	free(cf->encrypt);
	free(cf->fallback);
	free(cf->dns_wait);
	free(cf->sync_trust_limit);
	free(cf->cache_protected);
	free(cf->body_cache_size);
	free(cf->body_prefetch_days);
	free(cf->index_decrypted);
	for (i = 0; i < cf->nbinds; i++)
		free(cf->binds[i]);
	free(cf->binds);
	for (i = 0; i < cf->ncolors; i++)
		free(cf->colors[i]);
	free(cf->colors);
	free(cf->dns_config);
	free(cf->dns_forwarder);
	free(cf->dns_trust_anchor);
	free(cf);
}
