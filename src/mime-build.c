/*
 * mime-build.c: outgoing messages (see mime-build.h). Called by the
 * compose and send commands with what the user typed; hands back the bytes
 * to submit, and never prints.
 *
 * Everything the user gave is checked before a byte is written: a header
 * value with CR or LF in it is refused (the command line relies on this to
 * stop header injection), addresses must look like local@domain, the text
 * must be UTF-8. The format (see doc/mime.md): CRLF line ends, lines of at
 * most 76 characters in headers, text/plain; charset=utf-8 in 7bit when
 * the text is ASCII with short lines and quoted-printable otherwise, never
 * format=flowed; attachments in base64 inside multipart/mixed.
 */
#include <sys/random.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "charset.h"
#include "mime-build.h"
#include "mime-cte.h"
#include "rfc2047.h"
#include "rfc2231.h"
#include "xmalloc.h"

#define MIME_BUILD_LINE		76	/* header lines are folded to this */
#define MIME_BUILD_MAX_WORD	900	/* no header line can hold more */
#define MIME_BUILD_MAX_TEXT	998	/* SMTP's line limit, CRLF aside */

static const struct {
	const char	*ext;
	const char	*type;
} mime_build_types[] = {
	{ "asc",	"text/plain" },
	{ "bz2",	"application/x-bzip2" },
	{ "c",		"text/plain" },
	{ "csv",	"text/csv" },
	{ "diff",	"text/x-diff" },
	{ "doc",	"application/msword" },
	{ "docx",	"application/vnd.openxmlformats-officedocument."
			"wordprocessingml.document" },
	{ "gif",	"image/gif" },
	{ "gz",		"application/gzip" },
	{ "h",		"text/plain" },
	{ "htm",	"text/html" },
	{ "html",	"text/html" },
	{ "ics",	"text/calendar" },
	{ "jpeg",	"image/jpeg" },
	{ "jpg",	"image/jpeg" },
	{ "json",	"application/json" },
	{ "md",		"text/markdown" },
	{ "mp3",	"audio/mpeg" },
	{ "mp4",	"video/mp4" },
	{ "odp",	"application/vnd.oasis.opendocument.presentation" },
	{ "ods",	"application/vnd.oasis.opendocument.spreadsheet" },
	{ "odt",	"application/vnd.oasis.opendocument.text" },
	{ "ogg",	"audio/ogg" },
	{ "patch",	"text/x-diff" },
	{ "pdf",	"application/pdf" },
	{ "png",	"image/png" },
	{ "ppt",	"application/vnd.ms-powerpoint" },
	{ "pptx",	"application/vnd.openxmlformats-officedocument."
			"presentationml.presentation" },
	{ "svg",	"image/svg+xml" },
	{ "tar",	"application/x-tar" },
	{ "tgz",	"application/gzip" },
	{ "tif",	"image/tiff" },
	{ "tiff",	"image/tiff" },
	{ "txt",	"text/plain" },
	{ "webp",	"image/webp" },
	{ "xls",	"application/vnd.ms-excel" },
	{ "xlsx",	"application/vnd.openxmlformats-officedocument."
			"spreadsheetml.sheet" },
	{ "xml",	"application/xml" },
	{ "xz",		"application/x-xz" },
	{ "zip",	"application/zip" },
	{ "zst",	"application/zstd" },
};

static const char *mime_build_days[] = {
	"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"
};
static const char *mime_build_months[] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
};

const char *
mime_build_type(const char *path)
{
	const char	*base, *dot;
	size_t		 i;

	base = strrchr(path, '/');
	base = base == NULL ? path : base + 1;
	if ((dot = strrchr(base, '.')) == NULL || dot == base)
		return "application/octet-stream";
	for (i = 0; i < sizeof mime_build_types / sizeof *mime_build_types;
	    i++) {
		if (strcasecmp(dot + 1, mime_build_types[i].ext) == 0)
			return mime_build_types[i].type;
	}
	return "application/octet-stream";
}

static void
mime_build_random(void *p, size_t len)
{
	ssize_t	n;
	size_t	done = 0;

	while (done < len) {
		n = getrandom((char *)p + done, len - done, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			fatal("getrandom: %s", strerror(errno));
		done += n;
	}
}

static char *
mime_build_hex(size_t nbytes)
{
	unsigned char	 r[32];
	char		*s;
	size_t		 i;

	if (nbytes > sizeof r)
		nbytes = sizeof r;
	mime_build_random(r, nbytes);
	s = xmalloc(2 * nbytes + 1);
	for (i = 0; i < nbytes; i++)
		snprintf(s + 2 * i, 3, "%02x", r[i]);
	return s;
}

char *
mime_build_message_id(const char *addr)
{
	const char	*at;
	char		*hex, *id;

	at = addr == NULL ? NULL : strrchr(addr, '@');
	hex = mime_build_hex(16);
	id = xasprintf("<%s@%s>", hex,
	    at != NULL && at[1] != '\0' ? at + 1 : "localhost");
	free(hex);
	return id;
}

char *
mime_build_date(time_t t)
{
	struct tm	tm;
	long		off;
	char		sign = '+';

	if (localtime_r(&t, &tm) == NULL)
		fatal("localtime_r failed");
	off = tm.tm_gmtoff / 60;
	if (off < 0) {
		sign = '-';
		off = -off;
	}
	return xasprintf("%s, %d %s %04d %02d:%02d:%02d %c%02ld%02ld",
	    mime_build_days[tm.tm_wday % 7], tm.tm_mday,
	    mime_build_months[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, sign, off / 60, off % 60);
}

int
mime_build_check_value(const char *what, const char *value, char **cause)
{
	if (value != NULL && strpbrk(value, "\r\n") != NULL) {
		*cause = xasprintf("%s: line breaks are not allowed in a "
		    "header", what);
		return -1;
	}
	return 0;
}

/* A value whose unbroken runs are too long for any header line. */
static int
mime_build_check_words(const char *what, const char *value, char **cause)
{
	size_t	run = 0;

	for (; *value != '\0'; value++) {
		run = (*value == ' ' || *value == '\t') ? 0 : run + 1;
		if (run > MIME_BUILD_MAX_WORD) {
			*cause = xasprintf("%s: a word is too long to fit on "
			    "a header line", what);
			return -1;
		}
	}
	return 0;
}

static int
mime_build_atext(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return 1;
	return c != '\0' && strchr("!#$%&'*+-/=?^_`{|}~", c) != NULL;
}

/* local@domain, dot-atoms both, ASCII: what we can write without quoting. */
static int
mime_build_check_addr(const char *what, const char *addr, char **cause)
{
	const char	*at, *p;

	if (mime_build_check_value(what, addr, cause) != 0)
		return -1;
	if (addr == NULL || *addr == '\0') {
		*cause = xasprintf("%s: no address", what);
		return -1;
	}
	if (strlen(addr) > 254 || (at = strrchr(addr, '@')) == NULL ||
	    at == addr || at[1] == '\0' || *addr == '.' || at[-1] == '.' ||
	    at[1] == '.' || addr[strlen(addr) - 1] == '.')
		goto bad;
	for (p = addr; p < at; p++) {
		if (!mime_build_atext(*p) && !(*p == '.' && p[1] != '.'))
			goto bad;
	}
	for (p = at + 1; *p != '\0'; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' ||
		    (*p == '.' && p[1] != '.')))
			goto bad;
	}
	return 0;

bad:
	*cause = xasprintf("%s: \"%s\" is not an address steedmail can use "
	    "(local@domain, in ASCII)", what, addr);
	return -1;
}

static int
mime_build_check_name(const char *what, const char *name, char **cause)
{
	if (name == NULL)
		return 0;
	if (mime_build_check_value(what, name, cause) != 0)
		return -1;
	if (!charset_utf8_valid(name, strlen(name))) {
		*cause = xasprintf("%s: the name is not valid UTF-8", what);
		return -1;
	}
	return 0;
}

static int
mime_build_check_list(const char *what, const struct mime_addr *a, size_t n,
    char **cause)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (mime_build_check_name(what, a[i].name, cause) != 0 ||
		    mime_build_check_addr(what, a[i].addr, cause) != 0)
			return -1;
	}
	return 0;
}

/* An ASCII-only message id list, In-Reply-To or References. */
static int
mime_build_check_ids(const char *what, const char *v, char **cause)
{
	const unsigned char	*p;

	if (v == NULL)
		return 0;
	if (mime_build_check_value(what, v, cause) != 0)
		return -1;
	for (p = (const unsigned char *)v; *p != '\0'; p++) {
		if (*p < 0x20 || *p > 0x7e) {
			*cause = xasprintf("%s: only printable ASCII is "
			    "allowed", what);
			return -1;
		}
	}
	return mime_build_check_words(what, v, cause);
}

static int
mime_build_check(const struct mime_out *m, char **cause)
{
	if (mime_build_check_name("From", m->from.name, cause) != 0 ||
	    mime_build_check_addr("From", m->from.addr, cause) != 0 ||
	    mime_build_check_list("To", m->to, m->nto, cause) != 0 ||
	    mime_build_check_list("Cc", m->cc, m->ncc, cause) != 0 ||
	    mime_build_check_list("Bcc", m->bcc, m->nbcc, cause) != 0 ||
	    mime_build_check_ids("In-Reply-To", m->in_reply_to, cause) != 0 ||
	    mime_build_check_ids("References", m->references, cause) != 0 ||
	    mime_build_check_ids("Message-ID", m->message_id, cause) != 0)
		return -1;
	if (m->subject != NULL) {
		if (mime_build_check_value("Subject", m->subject, cause) != 0)
			return -1;
		if (!charset_utf8_valid(m->subject, strlen(m->subject))) {
			*cause = xstrdup("Subject: not valid UTF-8");
			return -1;
		}
	}
	if (m->body != NULL && !charset_utf8_valid(m->body, strlen(m->body))) {
		*cause = xstrdup("the message text is not valid UTF-8");
		return -1;
	}
	return 0;
}

/*
 * Write "Name: value" CRLF, folded before white space so that lines stay
 * within MIME_BUILD_LINE where the words allow (and always within 998:
 * the words were checked).
 */
static void
mime_build_field(struct buf *out, const char *name, const char *value)
{
	struct buf	 v;
	const char	*p = value, *q, *t, *end;
	size_t		 col, n;

	while (*p == ' ' || *p == '\t')
		p++;
	n = strlen(p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	/* The space after the colon may take a fold too. */
	buf_init(&v);
	buf_addc(&v, ' ');
	buf_add(&v, p, n);
	buf_adds(out, name);
	buf_addc(out, ':');
	col = strlen(name) + 1;
	q = v.data;
	end = v.data + (n > 0 ? v.len : 0);
	while (q < end) {
		t = q;
		while (t < end && (*t == ' ' || *t == '\t'))
			t++;
		while (t < end && *t != ' ' && *t != '\t')
			t++;
		if (col + (t - q) > MIME_BUILD_LINE && (*q == ' ' ||
		    *q == '\t')) {
			buf_add(out, "\r\n", 2);
			col = 0;
		}
		buf_add(out, q, t - q);
		col += t - q;
		q = t;
	}
	buf_add(out, "\r\n", 2);
	buf_free(&v);
}

/* A copy without leading and trailing white space, which mean nothing. */
static char *
mime_build_trim(const char *s)
{
	size_t	n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return xstrndup(s, n);
}

/*
 * Does text need encoded words to go into a header? Non-ASCII and
 * controls do, and so does a literal "=?"; and a word too long to fold
 * within MIME_BUILD_LINE, since encoded words can be split anywhere.
 */
static int
mime_build_needs_2047(const char *s)
{
	const unsigned char	*p;
	size_t			 run = 0;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p >= 0x7f || (*p < 0x20 && *p != '\t'))
			return 1;
		run = (*p == ' ' || *p == '\t') ? 0 : run + 1;
		if (run > MIME_BUILD_LINE - 16)
			return 1;
	}
	return strstr(s, "=?") != NULL;
}

/* A display name as a phrase: atoms, a quoted string or encoded words. */
static void
mime_build_phrase(struct buf *out, const char *name)
{
	const unsigned char	*p;
	char			*enc;
	int			 atoms = 1;

	if (mime_build_needs_2047(name)) {
		enc = rfc2047_encode(name, MIME_BUILD_LINE, RFC2047_PHRASE);
		buf_adds(out, enc);
		free(enc);
		return;
	}
	for (p = (const unsigned char *)name; *p != '\0'; p++) {
		if (!mime_build_atext(*p) && *p != ' ')
			atoms = 0;
	}
	if (atoms && *name != ' ' && name[strlen(name) - 1] != ' ') {
		buf_adds(out, name);
		return;
	}
	buf_addc(out, '"');
	for (p = (const unsigned char *)name; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			buf_addc(out, '\\');
		buf_addc(out, (char)*p);
	}
	buf_addc(out, '"');
}

static void
mime_build_mailbox(struct buf *out, const struct mime_addr *a)
{
	char	*name;

	name = mime_build_trim(a->name != NULL ? a->name : "");
	if (*name == '\0')
		buf_adds(out, a->addr);
	else {
		mime_build_phrase(out, name);
		buf_addf(out, " <%s>", a->addr);
	}
	free(name);
}

static void
mime_build_list(struct buf *out, const char *field,
    const struct mime_addr *a, size_t n)
{
	struct buf	v;
	size_t		i;

	if (n == 0)
		return;
	buf_init(&v);
	for (i = 0; i < n; i++) {
		if (i > 0)
			buf_adds(&v, ", ");
		mime_build_mailbox(&v, &a[i]);
	}
	mime_build_field(out, field, v.data);
	buf_free(&v);
}

int
mime_build_headers(const struct mime_out *m, struct buf *out, char **cause)
{
	struct buf	 from;
	char		*s, *subject;

	if (mime_build_check(m, cause) != 0)
		return -1;

	s = mime_build_date(m->date != 0 ? m->date : time(NULL));
	mime_build_field(out, "Date", s);
	free(s);

	buf_init(&from);
	mime_build_mailbox(&from, &m->from);
	mime_build_field(out, "From", from.data);
	buf_free(&from);
	mime_build_list(out, "To", m->to, m->nto);
	mime_build_list(out, "Cc", m->cc, m->ncc);

	subject = mime_build_trim(m->subject != NULL ? m->subject : "");
	if (*subject != '\0') {
		if (mime_build_needs_2047(subject))
			s = rfc2047_encode(subject, strlen("Subject: "),
			    RFC2047_TEXT);
		else
			s = xstrdup(subject);
		mime_build_field(out, "Subject", s);
		free(s);
	}
	free(subject);

	if (m->message_id != NULL)
		mime_build_field(out, "Message-ID", m->message_id);
	else {
		s = mime_build_message_id(m->from.addr);
		mime_build_field(out, "Message-ID", s);
		free(s);
	}
	if (m->in_reply_to != NULL && *m->in_reply_to != '\0')
		mime_build_field(out, "In-Reply-To", m->in_reply_to);
	if (m->references != NULL && *m->references != '\0')
		mime_build_field(out, "References", m->references);
	if (m->extra != NULL)
		buf_adds(out, m->extra);
	buf_adds(out, "MIME-Version: 1.0\r\n");
	return 0;
}

/*
 * The text part: line ends made CRLF (a lone CR counts as one), then 7bit
 * if that is ASCII with lines SMTP accepts, else quoted-printable.
 */
static void
mime_build_text(struct buf *out, const char *body)
{
	struct buf	 t;
	const char	*p;
	size_t		 col = 0, maxcol = 0;
	int		 ascii = 1;

	buf_init(&t);
	for (p = body != NULL ? body : ""; *p != '\0'; p++) {
		if (*p == '\r' || *p == '\n') {
			if (*p == '\r' && p[1] == '\n')
				p++;
			buf_add(&t, "\r\n", 2);
			col = 0;
			continue;
		}
		if ((unsigned char)*p >= 0x80)
			ascii = 0;
		buf_addc(&t, *p);
		if (++col > maxcol)
			maxcol = col;
	}
	if (t.len > 0 && t.data[t.len - 1] != '\n')
		buf_add(&t, "\r\n", 2);

	buf_adds(out, "Content-Type: text/plain; charset=utf-8\r\n");
	if (ascii && maxcol <= MIME_BUILD_MAX_TEXT) {
		buf_adds(out, "Content-Transfer-Encoding: 7bit\r\n\r\n");
		buf_add(out, t.data == NULL ? "" : t.data, t.len);
	} else {
		buf_adds(out, "Content-Transfer-Encoding: "
		    "quoted-printable\r\n\r\n");
		mime_cte_qp_encode(out, t.data, t.len);
	}
	buf_free(&t);
}

/* Read a whole regular file. */
static int
mime_build_read(const char *path, struct buf *data, char **cause)
{
	struct stat	 st;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		*cause = xasprintf("%s: not a regular file", path);
		goto fail;
	}
	if (buf_read_fd(data, fd, MIME_BUILD_MAX_FILE) == -1) {
		if (errno == EFBIG)
			*cause = xasprintf("%s: larger than %lu MB", path,
			    MIME_BUILD_MAX_FILE / (1024 * 1024));
		else
			*cause = xasprintf("%s: %s", path, strerror(errno));
		goto fail;
	}
	close(fd);
	return 0;

fail:
	close(fd);
	return -1;
}

static int
mime_build_file(struct buf *out, const char *path, char **cause)
{
	struct buf	 data, name;
	const char	*base;
	char		*dummy;

	buf_init(&data);
	if (mime_build_read(path, &data, cause) != 0) {
		buf_free(&data);
		return -1;
	}
	base = strrchr(path, '/');
	base = base == NULL ? path : base + 1;
	buf_init(&name);
	if (charset_to_utf8("utf-8", base, strlen(base), &name, NULL,
	    &dummy) != 0)
		free(dummy);	/* cannot happen for UTF-8 */
	if (name.data == NULL || *name.data == '\0') {
		buf_reset(&name);
		buf_adds(&name, "attachment");
	}

	buf_addf(out, "Content-Type: %s", mime_build_type(path));
	rfc2231_encode(out, "name", name.data);
	buf_adds(out, "\r\nContent-Disposition: attachment");
	rfc2231_encode(out, "filename", name.data);
	buf_adds(out, "\r\nContent-Transfer-Encoding: base64\r\n\r\n");
	mime_cte_base64_encode(out, data.data == NULL ? "" : data.data,
	    data.len, 76);
	buf_free(&data);
	buf_free(&name);
	return 0;
}

/* A type/subtype made of token characters only, else a safe default. */
static const char *
mime_build_blob_type(const char *t)
{
	const char	*p;
	int		 slash = 0;

	for (p = t != NULL ? t : ""; *p != '\0'; p++) {
		if (*p == '/')
			slash++;
		else if (*p <= ' ' || *p >= 0x7f || strchr("()<>@,;:\\\"[]?="
		    , *p) != NULL)
			break;
	}
	if (t == NULL || *p != '\0' || slash != 1 || *t == '/' ||
	    p[-1] == '/')
		return "application/octet-stream";
	return t;
}

static void
mime_build_blob(struct buf *out, const struct mime_blob *b)
{
	const char	*type = mime_build_blob_type(b->type);
	const char	*p, *e = b->data + b->len;
	struct buf	 name;
	char		*dummy;
	int		 eight = 0;

	buf_init(&name);
	if (b->name == NULL || charset_to_utf8("utf-8", b->name,
	    strlen(b->name), &name, NULL, &dummy) != 0 || name.data == NULL ||
	    *name.data == '\0') {
		buf_reset(&name);
		buf_adds(&name, "attachment");
	}
	buf_addf(out, "Content-Type: %s", type);
	rfc2231_encode(out, "name", name.data);
	buf_adds(out, "\r\nContent-Disposition: attachment");
	rfc2231_encode(out, "filename", name.data);
	if (strcasecmp(type, "message/rfc822") != 0) {
		buf_adds(out, "\r\nContent-Transfer-Encoding: base64\r\n\r\n");
		mime_cte_base64_encode(out, b->len > 0 ? b->data : "", b->len,
		    76);
		buf_free(&name);
		return;
	}
	for (p = b->data; p < e; p++)
		eight |= (unsigned char)*p >= 0x80;
	buf_addf(out, "\r\nContent-Transfer-Encoding: %s\r\n\r\n",
	    eight ? "8bit" : "7bit");
	/* The message as it is, its line ends made CRLF. */
	for (p = b->data; p < e; p++) {
		if (*p == '\r' || *p == '\n') {
			if (*p == '\r' && p + 1 < e && p[1] == '\n')
				p++;
			buf_add(out, "\r\n", 2);
		} else if (*p != '\0')
			buf_addc(out, *p);
	}
	if (b->len > 0 && e[-1] != '\n' && e[-1] != '\r')
		buf_add(out, "\r\n", 2);
	buf_free(&name);
}

int
mime_build_entity(const struct mime_out *m, struct buf *out, char **cause)
{
	char	*boundary, *hex;
	size_t	 i;

	if (mime_build_check(m, cause) != 0)
		return -1;
	if (m->nattachments == 0 && m->nblobs == 0) {
		mime_build_text(out, m->body);
		return 0;
	}
	/* "=_" occurs in neither base64 nor quoted-printable output. */
	hex = mime_build_hex(16);
	boundary = xasprintf("=_steedmail_%s", hex);
	free(hex);
	buf_addf(out, "Content-Type: multipart/mixed;\r\n boundary=\"%s\"\r\n"
	    "\r\n", boundary);
	/*
	 * Each part ends in CRLF, and the CRLF before a delimiter belongs to
	 * the delimiter (RFC 2046 5.1.1): write one more, so that the text
	 * keeps its last line break.
	 */
	buf_addf(out, "--%s\r\n", boundary);
	mime_build_text(out, m->body);
	for (i = 0; i < m->nattachments; i++) {
		buf_addf(out, "\r\n--%s\r\n", boundary);
		if (mime_build_file(out, m->attachments[i], cause) != 0) {
			free(boundary);
			return -1;
		}
	}
	for (i = 0; i < m->nblobs; i++) {
		buf_addf(out, "\r\n--%s\r\n", boundary);
		mime_build_blob(out, &m->blobs[i]);
	}
	buf_addf(out, "\r\n--%s--\r\n", boundary);
	free(boundary);
	return 0;
}

int
mime_build(const struct mime_out *m, struct buf *out, char **cause)
{
	if (mime_build_headers(m, out, cause) != 0)
		return -1;
	return mime_build_entity(m, out, cause);
}
