/*
 * tui-attach.c: the pager's list of attachments: the parts of a message
 * not shown as text (the display model's attachment lines), to save, to
 * open with mailcap (src/mailcap.c) or to pipe to a command. It owns the
 * list and the cursor; the message is the pager's, which stays below.
 * Also the pager's pipe (tui_pager_pipe()).
 *
 * Decoded content comes from the opened model, never from the server
 * again: decrypted attachments exist only there. It must never write
 * outside the directory a person chose (a part's name is made safe, the
 * file opened with O_NOFOLLOW and O_EXCL), never overwrite without
 * asking, never open anything but a regular file (file-save.h: a FIFO
 * would hang the interface), and never give a part's name or type to the shell but as an
 * inert word (mailcap_command()).
 */
#include <sys/stat.h>

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "file-save.h"
#include "mailcap.h"
#include "message.h"
#include "mime-body.h"
#include "mime-parse.h"
#include "strsafe.h"
#include "tui.h"
#include "tui-pager.h"
#include "xmalloc.h"

#define ATTACH_NAME_MAX	120	/* bytes of a saved file's name */

struct attach {
	struct tui_account	 *acct;
	struct message		 *msg;
	const struct view_line	**lines;	/* the parts' lines */
	size_t			  n;
	size_t			  cur, top;
	char			  title[64];
};

/* ---- names ------------------------------------------------------------- */

/* A code point that must not be in a file name shown to a person. */
static int
attach_bad_cp(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0x61c ||
	    cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029 ||
	    cp == 0xfeff;
}

/*
 * A file name from a part's name: no '/' or '\', no controls or bidi
 * controls, no leading dots or blanks, no "..", at most ATTACH_NAME_MAX
 * bytes; "attachment" when nothing is left. Allocated.
 */
static char *
attach_safe_name(const char *name)
{
	struct buf	 b;
	uint32_t	 cp;
	size_t		 len, n;
	const char	*s;
	int		 bad;

	buf_init(&b);
	if (name == NULL)
		name = "";
	len = strlen(name);
	for (s = name; len > 0; s += n, len -= n) {
		bad = 0;
		if ((n = strsafe_utf8_decode(s, len, &cp)) == 0) {
			n = 1;
			bad = 1;
		} else if (cp == '/' || cp == '\\' || attach_bad_cp(cp))
			bad = 1;
		if (bad)
			cp = '_';
		if (cp == '.' && (b.len == 0 || b.data[b.len - 1] == '.'))
			continue;	/* no leading dot, no ".." */
		if ((cp == ' ' || cp == '_') && b.len == 0)
			continue;
		if (b.len + n > ATTACH_NAME_MAX)
			break;
		if (bad)
			buf_addc(&b, '_');
		else
			buf_add(&b, s, n);
	}
	while (b.len > 0 && (b.data[b.len - 1] == ' ' ||
	    b.data[b.len - 1] == '.'))
		b.len--;
	if (b.len == 0)
		buf_adds(&b, "attachment");
	buf_addc(&b, '\0');
	return buf_take(&b);
}

static const struct mime_part *
attach_part(struct attach *a)
{
	return a->n == 0 ? NULL : a->lines[a->cur]->part;
}

/* The decoded content of the part under the cursor. */
static int
attach_content(struct attach *a, struct buf *out)
{
	const struct mime_part	*part = attach_part(a);

	if (part == NULL) {
		tui_error("no attachment here");
		return -1;
	}
	mime_body_decode(part, out);
	return 0;
}

static void
attach_wipe(struct buf *b)
{
	if (b->data != NULL)
		explicit_bzero(b->data, b->cap);
	buf_free(b);
}

static int
attach_write(int fd, const char *data, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		if ((n = write(fd, data, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += n;
		len -= n;
	}
	return 0;
}

/* ---- save -------------------------------------------------------------- */

/* What was typed: a directory (then the part's name in it) or a file. */
static void
attach_target(const char *typed, const char *safe, char **dir, char **name)
{
	const char	*home = getenv("HOME"), *slash;
	char		*path;
	struct stat	 sb;

	if (typed[0] == '~' && (typed[1] == '/' || typed[1] == '\0') &&
	    home != NULL)
		path = xasprintf("%s%s", home, typed + 1);
	else
		path = xstrdup(typed);
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		*dir = path;
		*name = xstrdup(safe);
		return;
	}
	if ((slash = strrchr(path, '/')) == NULL) {
		*dir = xstrdup(".");
		*name = attach_safe_name(path);
	} else {
		*dir = slash == path ? xstrdup("/") :
		    xstrndup(path, slash - path);
		*name = attach_safe_name(slash + 1);
	}
	free(path);
}

static void
attach_save(struct attach *a)
{
	const struct mime_part	*part = attach_part(a);
	struct buf		 data;
	const char		*kind;
	char			*safe, *typed, *dir, *name;
	char			*shown = NULL, *cause = NULL;
	int			 dfd = -1, fd = -1;

	if (part == NULL)
		return;
	safe = attach_safe_name(part->filename);
	typed = tui_prompt("Save to (a directory or a file): ", safe, 0,
	    tui_complete_path, NULL);
	if (typed == NULL || *typed == '\0') {
		free(safe);
		free(typed);
		return;
	}
	attach_target(typed, safe, &dir, &name);
	free(typed);
	free(safe);

	buf_init(&data);
	if (attach_content(a, &data) == -1)
		goto out;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY)) == -1) {
		tui_error("%s: %s", dir, strerror(errno));
		goto out;
	}
	shown = xasprintf("%s/%s", dir, name);
	fd = file_save_open(dfd, name, shown, O_CREAT | O_EXCL | O_NOFOLLOW,
	    0600, &cause);
	if (fd == -1 && errno == EEXIST) {
		free(cause);
		cause = NULL;
		/* a FIFO, a device, a link: not worth a question */
		if ((kind = file_save_kind(dfd, name)) != NULL) {
			tui_error("%s is not a regular file (%s): not saved",
			    shown, kind);
			goto out;
		}
		if (!tui_yesno("%s exists: overwrite it?", shown)) {
			tui_message("not saved");
			goto out;
		}
		fd = file_save_open(dfd, name, shown, O_NOFOLLOW | O_TRUNC, 0,
		    &cause);
	}
	if (fd == -1) {
		tui_error("%s: not saved", cause);
		goto out;
	}
	if (attach_write(fd, data.data, data.len) == -1 || fsync(fd) == -1) {
		tui_error("%s/%s: %s", dir, name, strerror(errno));
		goto out;
	}
	tui_message("saved %zu bytes to %s/%s", data.len, dir, name);
out:
	if (fd != -1)
		close(fd);
	if (dfd != -1)
		close(dfd);
	attach_wipe(&data);
	free(shown);
	free(cause);
	free(dir);
	free(name);
}

/* ---- open with mailcap -------------------------------------------------- */

/* "part" and the name's extension, if it is a plain one. */
static char *
attach_temp_name(const struct mime_part *part)
{
	const char	*dot = part->filename != NULL ?
			    strrchr(part->filename, '.') : NULL;
	size_t		 i;

	if (dot == NULL || strlen(dot + 1) == 0 || strlen(dot + 1) > 8)
		return xstrdup("part");
	for (i = 1; dot[i] != '\0'; i++) {
		if (!((dot[i] >= 'a' && dot[i] <= 'z') ||
		    (dot[i] >= 'A' && dot[i] <= 'Z') ||
		    (dot[i] >= '0' && dot[i] <= '9')))
			return xstrdup("part");
	}
	return xasprintf("part%s", dot);
}

static void
attach_open(struct attach *a)
{
	const struct mime_part	*part = attach_part(a);
	struct mailcap_entry	 e;
	struct buf		 data;
	const char		*tmp = getenv("TMPDIR");
	const char		**params = NULL;
	char			*type, *dir = NULL, *file = NULL, *cmd = NULL;
	char			*run = NULL, *name;
	size_t			 i;
	int			 fd = -1, in, rc;

	if (part == NULL)
		return;
	type = xasprintf("%s/%s", part->type, part->subtype);
	buf_init(&data);
	if (!mailcap_find(type, 0, &e)) {
		tui_error("no mailcap entry for %s (~/.mailcap, /etc/mailcap)",
		    type);
		goto out;
	}
	if (attach_content(a, &data) == -1)
		goto out;

	dir = xasprintf("%s/steedmail-XXXXXX", tmp != NULL && *tmp != '\0' ?
	    tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		tui_error("%s: %s", dir, strerror(errno));
		free(dir);
		dir = NULL;
		goto out;
	}
	name = attach_temp_name(part);
	file = xasprintf("%s/%s", dir, name);
	free(name);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1 || attach_write(fd, data.data, data.len) == -1) {
		tui_error("%s: %s", file, strerror(errno));
		goto out;
	}
	close(fd);
	fd = -1;

	params = xcalloc(part->nparams + 1, sizeof *params);
	for (i = 0; i < part->nparams; i++)
		params[i] = xasprintf("%s=%s", part->params[i].name,
		    part->params[i].value != NULL ? part->params[i].value : "");
	cmd = mailcap_command(&e, file, type, params, part->nparams, &in);
	/* copiousoutput: text to read, through the pager of $PAGER. */
	if (e.copiousoutput)
		run = xasprintf("%s | ${PAGER:-more}", cmd);
	else
		run = xstrdup(cmd);
	rc = tui_run_program(run, in ? data.data : NULL, in ? data.len : 0,
	    !e.needsterminal && !e.copiousoutput);
	if (rc == -1)
		tui_error("cannot run: %s", run);
	else if (rc != 0)
		tui_error("%s: exit %d", e.view, rc);
	tui_dirty();
out:
	if (fd != -1)
		close(fd);
	if (file != NULL) {
		/* The content may be decrypted: gone before anything else. */
		if ((fd = open(file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)) != -1) {
			if (data.len > 0) {
				memset(data.data, 0, data.len);
				(void)attach_write(fd, data.data, data.len);
			}
			close(fd);
		}
		unlink(file);
	}
	if (dir != NULL)
		rmdir(dir);
	if (params != NULL) {
		for (i = 0; i < part->nparams; i++)
			free((char *)params[i]);
		free(params);
	}
	free(cmd);
	free(run);
	free(file);
	free(dir);
	free(type);
	mailcap_entry_free(&e);
	attach_wipe(&data);
}

/* ---- pipe -------------------------------------------------------------- */

void
tui_pager_pipe(const char *what, const char *data, size_t len)
{
	char	*cmd, *q;
	int	 rc;

	q = xasprintf("Pipe %s to: ", what);
	cmd = tui_prompt(q, NULL, 0, NULL, NULL);
	free(q);
	if (cmd == NULL || *cmd == '\0') {
		free(cmd);
		return;
	}
	rc = tui_run_program(cmd, data != NULL ? data : "", len, 1);
	if (rc == -1)
		tui_error("cannot run: %s", cmd);
	else if (rc != 0)
		tui_error("%s: exit %d", cmd, rc);
	free(cmd);
	tui_dirty();
}

/* ---- the screen -------------------------------------------------------- */

static void
attach_draw(struct tui_screen *sc)
{
	struct attach	*a = sc->data;
	int		 rows = tui_rows(), y;
	size_t		 i;

	if (a->cur < a->top)
		a->top = a->cur;
	if (a->cur >= a->top + rows)
		a->top = a->cur - rows + 1;
	for (y = 0; y < rows; y++) {
		i = a->top + y;
		if (i >= a->n) {
			tui_putfill(TUI_FIRST_ROW + y, 0, COLS,
			    i == 0 && y == 0 ? "(no attachments)" : "",
			    tui_attr(TC_NORMAL));
			continue;
		}
		tui_putfill(TUI_FIRST_ROW + y, 0, COLS, a->lines[i]->text,
		    tui_attr(i == a->cur ? TC_SELECTED : TC_NORMAL));
	}
}

static void
attach_status(struct tui_screen *sc, struct buf *out)
{
	struct attach	*a = sc->data;

	buf_addf(out, "%zu attachment%s | Enter open, s save, | pipe, q back",
	    a->n, a->n == 1 ? "" : "s");
}

static int
attach_action(struct tui_screen *sc, enum tui_action act, int key)
{
	struct attach	*a = sc->data;
	struct buf	 data;

	(void)key;
	switch (act) {
	case TA_QUIT:
	case TA_BACK:
		tui_pop();
		return 1;
	case TA_UP:
	case TA_LINE_UP:
		if (a->cur > 0)
			a->cur--;
		break;
	case TA_DOWN:
	case TA_LINE_DOWN:
		if (a->cur + 1 < a->n)
			a->cur++;
		break;
	case TA_TOP:
		a->cur = 0;
		break;
	case TA_BOTTOM:
		a->cur = a->n > 0 ? a->n - 1 : 0;
		break;
	case TA_SELECT:
	case TA_OPEN:
		attach_open(a);
		break;
	case TA_SAVE:
		attach_save(a);
		break;
	case TA_PIPE:
		buf_init(&data);
		if (attach_content(a, &data) == 0)
			tui_pager_pipe("the attachment", data.data, data.len);
		attach_wipe(&data);
		break;
	default:
		return 0;
	}
	tui_dirty();
	return 1;
}

static void
attach_event(struct tui_screen *sc, struct tui_event *ev)
{
	(void)sc;
	(void)ev;
}

static void
attach_free(struct tui_screen *sc)
{
	struct attach	*a = sc->data;

	free(a->lines);
	free(a);
	free(sc);
}

struct tui_screen *
tui_attach_new(struct tui_account *acct, struct message *msg)
{
	const struct view_lines	*vl = message_lines(msg);
	struct tui_screen	*sc;
	struct attach		*a;
	size_t			 i;

	a = xcalloc(1, sizeof *a);
	a->acct = acct;
	a->msg = msg;
	for (i = 0; i < vl->n; i++) {
		if (vl->v[i].role != VIEW_ATTACHMENT || vl->v[i].part == NULL)
			continue;
		a->lines = xreallocarray(a->lines, a->n + 1,
		    sizeof *a->lines);
		a->lines[a->n++] = &vl->v[i];
	}
	snprintf(a->title, sizeof a->title, "attachments");

	sc = xcalloc(1, sizeof *sc);
	sc->title = a->title;
	sc->map = TM_ATTACH;
	sc->draw = attach_draw;
	sc->action = attach_action;
	sc->event = attach_event;
	sc->status = attach_status;
	sc->free = attach_free;
	sc->data = a;
	return sc;
}
