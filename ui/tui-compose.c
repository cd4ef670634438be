/*
 * tui-compose.c: the compose screen. It owns a draft while it is written:
 * the header rows (From, To, Cc, Bcc, Subject) edited in prompts, the
 * security line with one row per recipient that needs a word, the list
 * of attachments (add, remove, rename, type), the first lines of the text
 * (written in $EDITOR, tui-compose-edit.c), and the toggles for encrypt,
 * sign and S/MIME. tui-write.c, tui-drafts.c and tui-outbox.c open it
 * (tui_compose_new()); it leaves by sending, postponing
 * (tui-compose-send.c) or being thrown away, which asks first: Escape and
 * q never drop a message silently. It draws through tui-draw.c only and
 * holds no policy: what the security line says is draft_preview()'s.
 */
#include <sys/stat.h>

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "clock.h"
#include "draft.h"
#include "mime-build.h"
#include "tui.h"
#include "tui-compose.h"
#include "xmalloc.h"

#define CP_LABEL_W	9	/* "Subject: " */
#define CP_RCPT_ROWS	4	/* recipients with a word, at most */
#define CP_RCPT_LINES	2	/* rows for each of them, at most */
#define CP_SECURITY_ROWS 3	/* rows for the security line, at most */
#define CP_ADDR_ROWS	2	/* rows for To, Cc and Bcc, at most */
#define CP_ATTACH_ROWS	5	/* attachments shown, at most */
#define CP_TYPE_X	42	/* an attachment's type, when the name fits */

/* ---- drawing ----------------------------------------------------------- */

static int	cp_wrapped(int, int, int, const char *, int, int, int, int);

static void
cp_field(int y, const char *label, const char *value)
{
	tui_putfill(y, 0, CP_LABEL_W, label, tui_attr(TC_HEADER_NAME));
	tui_putfill(y, CP_LABEL_W, COLS - CP_LABEL_W, value != NULL ? value :
	    "", tui_attr(TC_HEADER));
}

/* An address field, on more than one row when it must; the next row. */
static int
cp_list_field(int y, const char *label, char *const *v, size_t n, int last)
{
	char	*s = tui_compose_addr_join(v, n);

	tui_putfill(y, 0, CP_LABEL_W, label, tui_attr(TC_HEADER_NAME));
	y = cp_wrapped(y, CP_LABEL_W, COLS - CP_LABEL_W, s,
	    tui_attr(TC_HEADER), last, CP_ADDR_ROWS, 0);
	free(s);
	return y;
}

/* "12 KB" */
static void
cp_size(char *out, size_t len, size_t n)
{
	if (n < 1024)
		snprintf(out, len, "%zu bytes", n);
	else if (n < 1024 * 1024)
		snprintf(out, len, "%zu KB", (n + 1023) / 1024);
	else
		snprintf(out, len, "%.1f MB", (double)n / (1024 * 1024));
}

/* A recipient's key state worth a word in the compose line. */
static const char *
cp_state_word(enum trust_state st)
{
	switch (st) {
	case TRUST_KEY_CHANGED:
		return "key changed: sending asks first";
	case TRUST_REVOKED:
	case TRUST_EXPIRED:
	case TRUST_CONFLICT:
		return verdict_trust(st)->word;
	default:
		return NULL;
	}
}

/*
 * Where to break text that is wider than w: after the last space that
 * leaves at most w columns before it; 0 when it fits, or has no space.
 */
static size_t
cp_break(const char *text, int w)
{
	const char	*sp;
	char		*head;
	size_t		 at = 0;
	int		 fits;

	if (tui_width(text) <= w)
		return 0;
	for (sp = strchr(text, ' '); sp != NULL; sp = strchr(sp + 1, ' ')) {
		head = xstrndup(text, sp - text);
		fits = tui_width(head) <= w;
		free(head);
		if (!fits)
			break;
		at = sp - text;
	}
	return at;
}

/*
 * text on rows from y, columns x to x + w, broken after words; the rows
 * after the first start indent columns further in, and the columns left
 * of them are cleared. At most rows rows and none at or below last: what
 * does not fit ends at a word with "...". Returns the next row.
 */
static int
cp_wrapped(int y, int x, int w, const char *text, int attr, int last,
    int rows, int indent)
{
	const char	*p = text, *more = tui_utf8 ? "\u2026" : "...";
	char		*head;
	size_t		 at;
	int		 cx, cw, n;

	if (y + rows < last)
		last = y + rows;
	for (n = 0; y < last; n++, y++) {
		cx = n == 0 ? x : x + indent;
		cw = n == 0 ? w : w - indent;
		if (n > 0)
			tui_putfill(y, 0, cx, "", tui_attr(TC_NORMAL));
		if ((at = cp_break(p, cw)) == 0) {
			tui_putfill(y, cx, cw, p, attr);
			return y + 1;
		}
		if (y + 1 == last) {
			/* the last row: up to a word, and the mark */
			if ((at = cp_break(p, cw - tui_width(more) - 1)) == 0)
				at = strcspn(p, " ");
			head = xasprintf("%.*s %s", (int)at, p, more);
		} else
			head = xstrndup(p, at);
		tui_putfill(y, cx, cw, head, attr);
		free(head);
		p += at + 1;
	}
	return y;
}

/* The security line and the recipients that need a word; the next row. */
static int
cp_draw_security(struct compose *c, int y, int last)
{
	const struct draft_preview	*p = c->shown;
	struct buf			 b;
	size_t				 i, shown = 0, more = 0;
	enum tui_color			 col = TC_IND_WARN;
	const char			*word;
	int				 second = 0, w = COLS - CP_LABEL_W - 1;

	buf_init(&b);
	if (c->d->nto + c->d->ncc + c->d->nbcc == 0)
		buf_adds(&b, "(no recipient yet)");
	else if (p == NULL && c->shown_error != NULL) {
		buf_addf(&b, "%s", c->shown_error);
		col = TC_IND_BAD;
	} else if (p == NULL)
		buf_adds(&b, "looking up...");
	else {
		/* a lookup still running comes first: the line after it is
		 * only what is known so far, and may be cut */
		if (tui_compose_looking(c))
			buf_adds(&b, "looking up... | ");
		buf_addf(&b, "%s | sign: %s | %s", p->line != NULL ?
		    p->line : "?", p->sign ? "yes" : "no",
		    p->smime ? "S/MIME" : "OpenPGP");
		/* too long: the decision on this row, signing and the
		 * protocol on a row of their own below it */
		if (tui_width(b.data) > COLS - CP_LABEL_W - 1) {
			buf_reset(&b);
			if (tui_compose_looking(c))
				buf_adds(&b, "looking up... | ");
			buf_adds(&b, p->line != NULL ? p->line : "?");
			second = 1;
		}
		if (p->action == POLICY_REFUSE_SEND || p->action ==
		    POLICY_HOLD || p->nchanged > 0 || p->nrevoked > 0)
			col = TC_IND_BAD;
		else if (p->encrypt)
			col = TC_IND_GOOD;
	}
	if (c->enc == CP_ENCRYPT_ALWAYS)
		buf_adds(&b, " [E: always]");
	else if (c->enc == CP_ENCRYPT_NEVER)
		buf_adds(&b, " [E: never]");
	/* "Security:" is a column wider than the other labels */
	tui_putfill(y, 0, CP_LABEL_W + 1, "Security:", tui_attr(TC_HEADER_NAME));
	/* a line too long for the row goes on below it, broken after words:
	 * "held: ..." must be read to its end */
	y = cp_wrapped(y, CP_LABEL_W + 1, w, b.data, tui_attr(col), last,
	    CP_SECURITY_ROWS, 0);
	buf_free(&b);
	if (p == NULL)
		return y;
	if (second && y < last) {
		buf_init(&b);
		buf_addf(&b, "sign: %s | %s", p->sign ? "yes" : "no",
		    p->smime ? "S/MIME" : "OpenPGP");
		tui_putfill(y++, CP_LABEL_W + 1, COLS - CP_LABEL_W - 1,
		    b.data, tui_attr(TC_NORMAL));
		buf_free(&b);
	}
	for (i = 0; i < p->n; i++) {
		const struct draft_preview_rcpt	*r = &p->rcpts[i];

		word = cp_state_word(r->state);
		if (r->has_key && word == NULL)
			continue;
		if (shown == CP_RCPT_ROWS || y >= last) {
			more++;
			continue;
		}
		buf_init(&b);
		if (!r->has_key)
			buf_addf(&b, "%s: no key%s%s%s", r->addr,
			    r->why != NULL ? " (" : "", r->why != NULL ?
			    r->why : "", r->why != NULL ? ")" : "");
		else
			buf_addf(&b, "%s: %s", r->addr, word);
		tui_putfill(y, 0, CP_LABEL_W + 2, "", tui_attr(TC_NORMAL));
		y = cp_wrapped(y, CP_LABEL_W + 2, COLS - CP_LABEL_W - 2,
		    b.data, tui_attr(word != NULL ? TC_IND_BAD : TC_IND_WARN),
		    last, CP_RCPT_LINES, 2);
		buf_free(&b);
		shown++;
	}
	if (more > 0 && y < last) {
		char	line[64];

		snprintf(line, sizeof line, "  and %zu more", more);
		tui_putfill(y++, CP_LABEL_W, COLS - CP_LABEL_W, line,
		    tui_attr(TC_IND_WARN));
	}
	return y;
}

static size_t
cp_nattach(const struct compose *c)
{
	return c->d->nattach + c->d->nblobs;
}

/* Attachment i (paths first, then those held in memory): its shown name,
 * type and size. */
static void
cp_attach_info(const struct compose *c, size_t i, const char **name,
    const char **type, size_t *size)
{
	const struct draft	*d = c->d;
	struct stat		 sb;
	const char		*slash;

	if (i < d->nattach) {
		slash = strrchr(d->attach[i], '/');
		*name = slash != NULL ? slash + 1 : d->attach[i];
		*type = mime_build_type(d->attach[i]);
		*size = stat(d->attach[i], &sb) == 0 ? (size_t)sb.st_size : 0;
		return;
	}
	i -= d->nattach;
	*name = d->blobs[i].name != NULL ? d->blobs[i].name : "(no name)";
	*type = d->blobs[i].type;
	*size = d->blobs[i].len;
}

static int
cp_draw_attachments(struct compose *c, int y, int last)
{
	size_t		 n = cp_nattach(c), i, first = 0, size;
	const char	*name, *type;
	char		 line[64], sz[32];

	if (n == 0)
		return y;
	snprintf(line, sizeof line, "Attachments (%zu):", n);
	tui_putfill(y++, 0, COLS, line, tui_attr(TC_HEADER_NAME));
	if (c->cursor >= CP_ATTACH_ROWS)
		first = c->cursor - CP_ATTACH_ROWS + 1;
	for (i = first; i < n && i < first + CP_ATTACH_ROWS && y < last; i++) {
		int	attr = tui_attr(i == c->cursor ? TC_SELECTED : TC_PART);
		int	x;

		cp_attach_info(c, i, &name, &type, &size);
		cp_size(sz, sizeof sz, size);
		/* columns: index, name, type, size at the right */
		snprintf(line, sizeof line, "%3zu", i + 1);
		tui_putfill(y, 0, COLS, "", attr);
		tui_put(y, 1, 3, line, attr);
		x = tui_put(y, 5, CP_TYPE_X - 7, name, attr) + 5;
		if (x < CP_TYPE_X)
			x = CP_TYPE_X;
		else
			x += 2;
		tui_put(y, x, COLS - 12 - x, type, attr);
		tui_put(y, COLS - 1 - tui_width(sz), tui_width(sz), sz, attr);
		y++;
	}
	return y;
}

/* The first lines of the text, dimmed: a preview, not an editor. */
static void
cp_draw_body(struct compose *c, int y, int last)
{
	const char	*p = c->d->body, *nl;
	char		*line;
	int		 attr = tui_attr(TC_NOTE);

	if (y >= last)
		return;
	if (p == NULL || *p == '\0') {
		tui_putfill(y, 0, COLS, "(e: edit the text)", attr);
		return;
	}
	tui_putfill(y++, 0, COLS, "---", attr);
	while (*p != '\0' && y < last) {
		nl = strchr(p, '\n');
		line = xstrndup(p, nl != NULL ? (size_t)(nl - p) : strlen(p));
		tui_putfill(y++, 0, COLS, line, attr);
		free(line);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
}

static void
cp_draw(struct tui_screen *s)
{
	struct compose		*c = s->data;
	const struct account	*a = c->d->a;
	char			*from;
	int			 y = TUI_FIRST_ROW, last = TUI_FIRST_ROW +
				    tui_rows();

	if (c->done) {
		/* sent or postponed: the loop is past this screen's event
		 * now, so it can go (see tui_compose_event()) */
		tui_pop();
		if (tui.top != NULL && tui.top->draw != NULL)
			tui.top->draw(tui.top);
		return;
	}
	from = a->name != NULL && *a->name != '\0' ?
	    xasprintf("%s <%s>", a->name, a->address) : xstrdup(a->address);
	cp_field(y++, "From:", from);
	free(from);
	y = cp_list_field(y, "To:", c->d->to, c->d->nto, last);
	y = cp_list_field(y, "Cc:", c->d->cc, c->d->ncc, last);
	y = cp_list_field(y, "Bcc:", c->d->bcc, c->d->nbcc, last);
	cp_field(y++, "Subject:", c->d->subject);
	y = cp_draw_security(c, y, last);
	if (cp_nattach(c) > 0 && y < last) {
		y++;
		y = cp_draw_attachments(c, y, last);
	}
	if (y < last)
		y++;
	cp_draw_body(c, y, last);
}

static void
cp_status(struct tui_screen *s, struct buf *b)
{
	struct compose	*c = s->data;

	if (c->send_job != 0)
		buf_adds(b, "Compose: sending...");
	else if (c->postpone_job != 0)
		buf_adds(b, "Compose: postponing...");
	else
		buf_adds(b, "y:send P:postpone e:edit t:To s:Subject a:attach "
		    "E:encrypt q:abort");
}

/* ---- headers ------------------------------------------------------------ */

/* Ask for a recipient list; 1 when it was answered, 0 when cancelled. */
static int
cp_edit_rcpts(struct compose *c, enum draft_field f)
{
	static const char *q[] = { "To: ", "Cc: ", "Bcc: " };
	char		***vp, **v, *init;
	size_t		  *np, n, i;

	switch (f) {
	case DRAFT_TO:
		vp = &c->d->to;
		np = &c->d->nto;
		break;
	case DRAFT_CC:
		vp = &c->d->cc;
		np = &c->d->ncc;
		break;
	default:
		vp = &c->d->bcc;
		np = &c->d->nbcc;
		break;
	}
	init = tui_compose_addr_join(*vp, *np);
	if (tui_compose_addr_ask(c->ta, q[f], init, &v, &n) != 1) {
		free(init);
		return 0;
	}
	free(init);
	tui_compose_addr_free(*vp, *np);
	*vp = NULL;
	*np = 0;
	for (i = 0; i < n; i++)
		draft_add(c->d, f, v[i]);
	tui_compose_addr_free(v, n);
	tui_compose_preview(c);
	return 1;
}

/* Ask for the Subject; 1 when it was answered, 0 when cancelled. */
static int
cp_edit_subject(struct compose *c)
{
	char	*s;

	if ((s = tui_prompt("Subject: ", c->d->subject, 0, NULL, NULL)) ==
	    NULL)
		return 0;
	draft_set_subject(c->d, *s != '\0' ? s : NULL);
	free(s);
	return 1;
}

/* F: the next account sends it. */
static void
cp_edit_from(struct compose *c)
{
	size_t	i;

	if (tui.naccounts < 2) {
		tui_message("only one account is configured");
		return;
	}
	for (i = 0; i < tui.naccounts; i++)
		if (tui.accounts[i] == c->ta)
			break;
	c->ta = tui.accounts[(i + 1) % tui.naccounts];
	c->d->a = tui_account_config(c->ta);
	tui_message("From: %s (F again: the next account)",
	    c->d->a->address);
	tui_compose_preview(c);
}

static void
cp_edit_text(struct compose *c)
{
	char	*why = NULL;

	if (tui_compose_edit(&c->d->body, &why) == -1) {
		tui_error("%s", why);
		free(why);
	}
	tui_dirty();
}

/* ---- attachments ------------------------------------------------------- */

static void
cp_attach(struct compose *c)
{
	char		*path, *name;
	const char	*slash;
	struct buf	 b;

	if ((path = tui_prompt("Attach file: ", NULL, 0, tui_complete_path,
	    NULL)) == NULL)
		return;
	if (*path == '\0') {
		free(path);
		return;
	}
	if (path[0] == '~' && path[1] == '/' && getenv("HOME") != NULL) {
		name = xasprintf("%s%s", getenv("HOME"), path + 1);
		free(path);
		path = name;
	}
	/* read now: the name and type may change before it goes */
	buf_init(&b);
	if (buf_read_file(&b, path, MIME_BUILD_MAX_FILE) == -1) {
		tui_error("cannot attach %s: %s", path, strerror(errno));
		buf_free(&b);
		free(path);
		return;
	}
	slash = strrchr(path, '/');
	draft_attach_data(c->d, slash != NULL ? slash + 1 : path,
	    mime_build_type(path), b.data != NULL ? b.data : "", b.len);
	c->cursor = cp_nattach(c) - 1;
	tui_message("attached %s", slash != NULL ? slash + 1 : path);
	buf_free(&b);
	free(path);
}

static void
cp_detach(struct compose *c)
{
	struct draft		*d = c->d;
	struct draft_blob	*bl;
	size_t			 i = c->cursor;

	if (cp_nattach(c) == 0) {
		tui_message("no attachment");
		return;
	}
	if (i < d->nattach) {
		free(d->attach[i]);
		memmove(&d->attach[i], &d->attach[i + 1],
		    (d->nattach - i - 1) * sizeof *d->attach);
		d->nattach--;
	} else {
		i -= d->nattach;
		bl = &d->blobs[i];
		free(bl->name);
		free(bl->type);
		free(bl->data);
		memmove(bl, bl + 1, (d->nblobs - i - 1) * sizeof *bl);
		d->nblobs--;
	}
	if (c->cursor > 0 && c->cursor >= cp_nattach(c))
		c->cursor--;
	tui_message("attachment removed");
}

/* The selected attachment as one held in memory (a path is read), so its
 * name and type can change; NULL after saying why not. */
static struct draft_blob *
cp_blob(struct compose *c)
{
	struct draft	*d = c->d;
	struct buf	 b;
	size_t		 i = c->cursor;
	const char	*slash;
	char		*path;

	if (cp_nattach(c) == 0) {
		tui_message("no attachment");
		return NULL;
	}
	if (i >= d->nattach)
		return &d->blobs[i - d->nattach];
	path = d->attach[i];
	buf_init(&b);
	if (buf_read_file(&b, path, MIME_BUILD_MAX_FILE) == -1) {
		tui_error("cannot read %s: %s", path, strerror(errno));
		buf_free(&b);
		return NULL;
	}
	slash = strrchr(path, '/');
	draft_attach_data(d, slash != NULL ? slash + 1 : path,
	    mime_build_type(path), b.data != NULL ? b.data : "", b.len);
	buf_free(&b);
	free(path);
	memmove(&d->attach[i], &d->attach[i + 1],
	    (d->nattach - i - 1) * sizeof *d->attach);
	d->nattach--;
	c->cursor = cp_nattach(c) - 1;
	return &d->blobs[d->nblobs - 1];
}

static void
cp_rename(struct compose *c)
{
	struct draft_blob	*bl;
	char			*s;

	if ((bl = cp_blob(c)) == NULL)
		return;
	if ((s = tui_prompt("Shown name: ", bl->name, 0, NULL, NULL)) ==
	    NULL)
		return;
	if (*s == '\0' || strchr(s, '/') != NULL) {
		tui_error("a name, without '/', please");
		free(s);
		return;
	}
	free(bl->name);
	bl->name = s;
}

/* "type/subtype" of the characters RFC 2045 tokens allow. */
static int
cp_type_ok(const char *t)
{
	const char	*slash = strchr(t, '/');
	const char	*p;

	if (slash == NULL || slash == t || slash[1] == '\0' ||
	    strchr(slash + 1, '/') != NULL)
		return 0;
	for (p = t; *p != '\0'; p++) {
		if (*p == '/')
			continue;
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("!#$&-^_.+", *p) !=
		    NULL))
			return 0;
	}
	return 1;
}

static void
cp_type(struct compose *c)
{
	struct draft_blob	*bl;
	char			*s;

	if ((bl = cp_blob(c)) == NULL)
		return;
	if ((s = tui_prompt("Type: ", bl->type, 0, NULL, NULL)) == NULL)
		return;
	if (!cp_type_ok(s)) {
		tui_error("not a type: %s (like text/plain)", s);
		free(s);
		return;
	}
	free(bl->type);
	bl->type = s;
}

/* ---- keys ------------------------------------------------------------ */

static void
cp_abort(struct compose *c)
{
	(void)c;
	if (tui_yesno("discard this message?"))
		tui_pop();
}

static int
cp_action(struct tui_screen *s, enum tui_action a, int key)
{
	struct compose	*c = s->data;

	(void)key;
	if (c->send_job != 0 || c->postpone_job != 0) {
		switch (a) {
		case TA_HELP:
		case TA_REDRAW:
			return 0;
		default:
			tui_message("%s: wait for it", c->send_job != 0 ?
			    "sending..." : "postponing...");
			return 1;
		}
	}
	switch (a) {
	case TA_SEND:
		tui_compose_send(c, 0);
		return 1;
	case TA_POSTPONE:
		tui_compose_postpone(c);
		return 1;
	case TA_ABORT:
	case TA_BACK:		/* Escape, i: never drop the message */
	case TA_QUIT:
		cp_abort(c);
		return 1;
	case TA_EDIT:
		cp_edit_text(c);
		return 1;
	case TA_EDIT_FROM:
		cp_edit_from(c);
		return 1;
	case TA_EDIT_TO:
		cp_edit_rcpts(c, DRAFT_TO);
		return 1;
	case TA_EDIT_CC:
		cp_edit_rcpts(c, DRAFT_CC);
		return 1;
	case TA_EDIT_BCC:
		cp_edit_rcpts(c, DRAFT_BCC);
		return 1;
	case TA_EDIT_SUBJECT:
		cp_edit_subject(c);
		return 1;
	case TA_ATTACH_FILE:
		cp_attach(c);
		return 1;
	case TA_DETACH:
		cp_detach(c);
		return 1;
	case TA_ATTACH_RENAME:
		cp_rename(c);
		return 1;
	case TA_ATTACH_TYPE:
		cp_type(c);
		return 1;
	case TA_UP:
		if (c->cursor > 0)
			c->cursor--;
		return 1;
	case TA_DOWN:
		if (c->cursor + 1 < cp_nattach(c))
			c->cursor++;
		return 1;
	case TA_TOGGLE_ENCRYPT:
		c->enc = (c->enc + 1) % 3;
		tui_message("encrypt: %s", c->enc == CP_ENCRYPT_POLICY ?
		    "as the settings say" : c->enc == CP_ENCRYPT_ALWAYS ?
		    "always (or not sent)" : "never (sent in clear)");
		tui_compose_preview(c);
		return 1;
	case TA_TOGGLE_SIGN:
		c->nosign = !c->nosign;
		tui_message("sign: %s", c->nosign ? "no (encrypted mail is "
		    "still signed inside)" : "when a key is there");
		tui_compose_preview(c);
		return 1;
	case TA_TOGGLE_SMIME:
		c->smime = !c->smime;
		tui_message("%s", c->smime ? "S/MIME" : "OpenPGP");
		tui_compose_preview(c);
		return 1;
	case TA_NEXT_ACCOUNT:
		tui_message("F chooses the account this message is sent "
		    "from");
		return 1;
	case TA_REPLY:
	case TA_GROUP_REPLY:
	case TA_LIST_REPLY:
	case TA_FORWARD:
	case TA_COMPOSE:
	case TA_RECALL:
		tui_message("one message at a time: P postpones this one");
		return 1;
	default:
		return 0;
	}
}

static void
cp_event(struct tui_screen *s, struct tui_event *ev)
{
	(void)tui_compose_event(s->data, ev);
}

static void
cp_free(struct tui_screen *s)
{
	struct compose	*c = s->data;

	tui_compose_send_free(c);
	/* a send or a postpone still reads the draft: leave it to them */
	if (c->send_job == 0 && c->postpone_job == 0)
		draft_free(c->d);
	free(c->resumed);
	free(c);
	free(s);
}

/*
 * m without autoedit, as mutt asks: To, then Subject, then the editor,
 * each once the screen is drawn. Between To and Subject the screen is
 * shown with its security line (for up to 1.5 s while the lookup runs),
 * so the writer knows before writing whether the message will be
 * encrypted. An empty answer goes on; Escape stops asking and leaves the
 * compose screen as it is.
 */
static int
cp_ready(struct tui_screen *s)
{
	struct compose	*c = s->data;

	switch (c->ask) {
	case CP_ASK_TO:
		c->ask = CP_ASK_NONE;
		if (!cp_edit_rcpts(c, DRAFT_TO))
			return 1;
		c->ask = CP_ASK_SUBJECT;
		c->asked_at = clock_ms();
		return 1;
	case CP_ASK_SUBJECT:
		if (tui_compose_looking(c) && clock_ms() - c->asked_at < 1500)
			return 0;
		c->ask = CP_ASK_NONE;
		if (!cp_edit_subject(c))
			return 1;
		c->ask = CP_ASK_EDIT;
		return 1;
	case CP_ASK_EDIT:
		c->ask = CP_ASK_NONE;
		cp_edit_text(c);
		return 1;
	default:
		s->ready = NULL;	/* nothing more to ask */
		return 0;
	}
}

struct tui_screen *
tui_compose_new(struct tui_account *ta, struct draft *d, const char *resumed,
    int edit_first)
{
	struct tui_screen	*s = xcalloc(1, sizeof *s);
	struct compose		*c = xcalloc(1, sizeof *c);
	size_t			 i;

	c->ta = ta;
	c->d = d;
	if (d->a == NULL)
		d->a = tui_account_config(ta);
	c->resumed = resumed != NULL ? xstrdup(resumed) : NULL;
	/* the accounts are the interface's: find d's sender among them */
	for (i = 0; i < tui.naccounts; i++)
		if (tui_account_config(tui.accounts[i]) == d->a)
			c->ta = tui.accounts[i];
	s->title = "compose";
	s->map = TM_COMPOSE;
	s->draw = cp_draw;
	s->action = cp_action;
	s->event = cp_event;
	s->status = cp_status;
	s->free = cp_free;
	s->data = c;
	tui_compose_preview(c);
	if (edit_first == TUI_COMPOSE_ASK) {
		c->ask = CP_ASK_TO;
		s->ready = cp_ready;
	} else if (edit_first)
		cp_edit_text(c);
	return s;
}
