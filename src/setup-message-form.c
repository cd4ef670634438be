/*
 * setup-message-form.c: the form of an Autocrypt Setup Message
 * (setup-message.h): setup codes made and read back, and a message
 * checked (its header, its sender, its attachment, the armor with
 * Passphrase-Format and Passphrase-Begin) before gpg sees any of it.
 * Knows nothing of keys or gpg; setup-message.c does the rest. Never
 * prints: what is wrong comes back as a cause naming it.
 */
#include <sys/random.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "addr-list.h"
#include "mime-parse.h"
#include "setup-message.h"
#include "xmalloc.h"

#define SETUP_MESSAGE_END	"-----END PGP MESSAGE-----"

int
setup_message_code(char code[SETUP_CODE_SIZE], char **cause)
{
	unsigned char	 r[64];
	size_t		 i, have = 0, used = 0;
	ssize_t		 n;
	int		 digits = 0;

	while (digits < 36) {
		if (used == have) {
			if ((n = getrandom(r, sizeof r, 0)) == -1) {
				if (errno == EINTR)
					continue;
				*cause = xasprintf("no random numbers: %s",
				    strerror(errno));
				explicit_bzero(r, sizeof r);
				return -1;
			}
			have = n;
			used = 0;
			continue;
		}
		/* 250 is the largest multiple of 10 below 256: no bias. */
		if (r[used] >= 250) {
			used++;
			continue;
		}
		i = digits + digits / 4;
		if (digits > 0 && digits % 4 == 0)
			code[i - 1] = '-';
		code[i] = '0' + r[used++] % 10;
		digits++;
	}
	code[SETUP_CODE_SIZE - 1] = '\0';
	explicit_bzero(r, sizeof r);
	return 0;
}

int
setup_message_code_norm(const char *in, char code[SETUP_CODE_SIZE])
{
	int	digits = 0;

	for (; *in != '\0'; in++) {
		if (*in == '-' || *in == ' ' || *in == '\t' || *in == '\r' ||
		    *in == '\n')
			continue;
		if (*in < '0' || *in > '9' || digits == 36)
			goto bad;
		if (digits > 0 && digits % 4 == 0)
			code[digits + digits / 4 - 1] = '-';
		code[digits + digits / 4] = *in;
		digits++;
	}
	if (digits != 36)
		goto bad;
	code[SETUP_CODE_SIZE - 1] = '\0';
	return 0;
bad:
	explicit_bzero(code, SETUP_CODE_SIZE);
	return -1;
}

/* One line of text from *p (before end), without its line end. */
static int
setup_message_line(const char **p, const char *end, const char **line,
    size_t *len)
{
	const char	*nl;

	if (*p >= end)
		return 0;
	*line = *p;
	if ((nl = memchr(*p, '\n', end - *p)) == NULL)
		nl = end;
	*len = nl - *p;
	*p = nl < end ? nl + 1 : end;
	while (*len > 0 && ((*line)[*len - 1] == '\r' ||
	    (*line)[*len - 1] == ' ' || (*line)[*len - 1] == '\t'))
		(*len)--;
	return 1;
}

static int
setup_message_is(const char *line, size_t len, const char *s)
{
	return len == strlen(s) && memcmp(line, s, len) == 0;
}

/* A line of radix-64 (or the checksum line, "=" and four of them). */
static int
setup_message_base64(const char *line, size_t len)
{
	size_t	i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++) {
		if ((line[i] >= 'A' && line[i] <= 'Z') ||
		    (line[i] >= 'a' && line[i] <= 'z') ||
		    (line[i] >= '0' && line[i] <= '9') ||
		    line[i] == '+' || line[i] == '/' || line[i] == '=')
			continue;
		return 0;
	}
	return 1;
}

int
setup_message_armor(const char *text, size_t len, struct buf *out,
    char begin[3], char **cause)
{
	const char	*p = text, *end = text + len, *line, *v;
	size_t		 n, start = out->len, body = 0;
	int		 format = 0, inarmor = 0;

	begin[0] = '\0';
	while (setup_message_line(&p, end, &line, &n)) {
		if (setup_message_is(line, n, SETUP_MESSAGE_BEGIN)) {
			inarmor = 1;
			break;
		}
	}
	if (!inarmor) {
		*cause = xstrdup("no \"" SETUP_MESSAGE_BEGIN "\" line in the "
		    "attachment");
		goto bad;
	}
	buf_adds(out, SETUP_MESSAGE_BEGIN "\n\n");
	/* The armor headers, up to the empty line. */
	for (;;) {
		if (!setup_message_line(&p, end, &line, &n)) {
			*cause = xstrdup("the armor ends in its headers");
			goto bad;
		}
		if (n == 0)
			break;
		if ((v = memchr(line, ':', n)) == NULL || v + 1 == line + n ||
		    v[1] != ' ') {
			*cause = xstrdup("an armor header line is not "
			    "\"Name: value\"");
			goto bad;
		}
		v += 2;
		if ((size_t)(v - line) == sizeof "Passphrase-Format: " - 1 &&
		    strncasecmp(line, "Passphrase-Format: ", v - line) == 0) {
			if (format++ || !setup_message_is(v, line + n - v,
			    "numeric9x4")) {
				*cause = xstrdup("Passphrase-Format is not "
				    "numeric9x4 (once)");
				goto bad;
			}
		} else if ((size_t)(v - line) == sizeof "Passphrase-Begin: " -
		    1 && strncasecmp(line, "Passphrase-Begin: ", v - line) ==
		    0) {
			if (begin[0] != '\0' || line + n - v != 2 ||
			    v[0] < '0' || v[0] > '9' || v[1] < '0' ||
			    v[1] > '9') {
				*cause = xstrdup("Passphrase-Begin is not two "
				    "digits (once)");
				goto bad;
			}
			begin[0] = v[0];
			begin[1] = v[1];
			begin[2] = '\0';
		}
	}
	if (!format || begin[0] == '\0') {
		*cause = xstrdup(!format ? "no Passphrase-Format header" :
		    "no Passphrase-Begin header");
		goto bad;
	}
	/* The radix-64 lines, up to the END line. */
	for (;;) {
		if (!setup_message_line(&p, end, &line, &n)) {
			*cause = xstrdup("no \"" SETUP_MESSAGE_END "\" line");
			goto bad;
		}
		if (setup_message_is(line, n, SETUP_MESSAGE_END))
			break;
		if (!setup_message_base64(line, n)) {
			*cause = xstrdup("the armor holds a line that is not "
			    "radix-64");
			goto bad;
		}
		buf_add(out, line, n);
		buf_addc(out, '\n');
		body++;
	}
	if (body == 0) {
		*cause = xstrdup("the armor is empty");
		goto bad;
	}
	buf_adds(out, SETUP_MESSAGE_END "\n");
	while (setup_message_line(&p, end, &line, &n)) {
		if (setup_message_is(line, n, SETUP_MESSAGE_BEGIN)) {
			*cause = xstrdup("more than one PGP MESSAGE in the "
			    "attachment");
			goto bad;
		}
	}
	return 0;
bad:
	out->len = start;
	begin[0] = '\0';
	return -1;
}

int
setup_message_parse(const struct account *a, const void *raw, size_t len,
    struct buf *out, char begin[3], char **cause)
{
	struct mime_msg		*m;
	struct mime_part	*p, *found = NULL;
	struct buf		 dec;
	char			*v, *from = NULL;
	int			 rc = -1;

	if ((m = mime_parse_copy(raw, len, cause)) == NULL)
		return -1;
	buf_init(&dec);
	v = mime_header_get(&m->root->header, SETUP_MESSAGE_HEADER, NULL);
	if (v == NULL) {
		*cause = xstrdup("not an Autocrypt Setup Message (no "
		    SETUP_MESSAGE_HEADER " header)");
		goto out;
	}
	if (strcmp(v, "v1") != 0) {
		*cause = xasprintf("an Autocrypt Setup Message of version "
		    "\"%.40s\", not v1", v);
		goto out;
	}
	from = addr_list_from(&m->root->header);
	if (from == NULL) {
		*cause = xstrdup("the setup message has not one From address");
		goto out;
	}
	if (!addr_list_same(from, a->address)) {
		*cause = xasprintf("the setup message is from %.200s, not "
		    "from %s: only a message from the account's own address "
		    "is accepted", from, a->address);
		goto out;
	}
	for (p = m->root; p != NULL; p = mime_part_next(p)) {
		if (!mime_part_is(p, "application", "autocrypt-setup"))
			continue;
		if (found != NULL) {
			*cause = xstrdup("the setup message has more than one "
			    SETUP_MESSAGE_TYPE " part");
			goto out;
		}
		found = p;
	}
	if (found == NULL) {
		*cause = xstrdup("the setup message has no "
		    SETUP_MESSAGE_TYPE " part");
		goto out;
	}
	if (mime_cte_decode(found->cte, &dec, found->body,
	    found->bodylen) != 0) {
		*cause = xstrdup("the setup message's attachment is not "
		    "properly encoded");
		goto out;
	}
	if (setup_message_armor(dec.data, dec.len, out, begin, cause) == -1)
		goto out;
	rc = 0;
out:
	free(from);
	free(v);
	buf_free(&dec);
	mime_msg_free(m);
	return rc;
}

int
setup_message_check(const struct account *a, const void *raw, size_t len,
    char begin[3], char **cause)
{
	struct buf	armor;
	int		rc;

	buf_init(&armor);
	rc = setup_message_parse(a, raw, len, &armor, begin, cause);
	buf_free(&armor);
	return rc;
}

