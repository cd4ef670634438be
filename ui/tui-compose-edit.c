/*
 * tui-compose-edit.c: the compose screen's text in a person's editor
 * ($VISUAL, else $EDITOR, else vi), and taking the quote out of a reply
 * that must go in clear. It owns the private directory the text is
 * written to (0700, under $XDG_RUNTIME_DIR or $TMPDIR; the file 0600),
 * removed with whatever the editor left there. The editor runs through
 * tui_run_program(), which leaves curses and comes back. Called by
 * tui-compose.c only. It never throws text away: an editor that fails
 * leaves the text as the file holds it, or as it was.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "tui.h"
#include "tui-compose.h"
#include "xmalloc.h"

#define CP_EDIT_MAX	(64UL * 1024 * 1024)	/* text read back, at most */

/* A private directory for the text: 0700, made by mkdtemp(). */
static char *
cp_edit_dir(void)
{
	const char	*base;
	char		*tmpl;
	struct stat	 sb;

	base = getenv("XDG_RUNTIME_DIR");
	if (base == NULL || *base != '/' || stat(base, &sb) != 0 ||
	    !S_ISDIR(sb.st_mode) || access(base, W_OK) != 0)
		base = getenv("TMPDIR");
	if (base == NULL || *base != '/' || access(base, W_OK) != 0)
		base = "/tmp";
	tmpl = xasprintf("%s/steedmail-XXXXXX", base);
	if (mkdtemp(tmpl) == NULL) {
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

/* The directory and everything in it (the editor's backups, swap files). */
static void
cp_edit_rmdir(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	char		*p;

	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			p = xasprintf("%s/%s", dir, de->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

/* 'text' for sh -c. */
static void
cp_edit_quote(struct buf *b, const char *s)
{
	buf_addc(b, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addc(b, *s);
	}
	buf_addc(b, '\'');
}

static int
cp_edit_write(const char *path, const char *text)
{
	size_t	 len = text != NULL ? strlen(text) : 0, off = 0;
	ssize_t	 w;
	int	 fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1)
		return -1;
	while (off < len) {
		w = write(fd, text + off, len - off);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	return close(fd);
}

int
tui_compose_edit(char **body, char **why)
{
	const char	*ed;
	char		*dir, *path = NULL, *text;
	struct buf	 cmd, got;
	int		 st, read_ok;

	*why = NULL;
	if ((ed = getenv("VISUAL")) == NULL || *ed == '\0')
		if ((ed = getenv("EDITOR")) == NULL || *ed == '\0')
			ed = "vi";
	if ((dir = cp_edit_dir()) == NULL) {
		*why = xasprintf("no private directory for the text: %s",
		    strerror(errno));
		return -1;
	}
	path = xasprintf("%s/message.txt", dir);
	if (cp_edit_write(path, *body) == -1) {
		*why = xasprintf("cannot write the text to %s: %s", path,
		    strerror(errno));
		cp_edit_rmdir(dir);
		free(path);
		free(dir);
		return -1;
	}
	/* exec: the editor is tui_run_program()'s own child, so that its
	 * stop (Ctrl-Z) is seen there and not lost in a shell between */
	buf_init(&cmd);
	buf_adds(&cmd, "exec ");
	buf_adds(&cmd, ed);		/* the editor may have arguments */
	buf_addc(&cmd, ' ');
	cp_edit_quote(&cmd, path);
	st = tui_run_program(cmd.data, NULL, 0, 0);
	buf_free(&cmd);

	buf_init(&got);
	read_ok = buf_read_file(&got, path, CP_EDIT_MAX) == 0;
	cp_edit_rmdir(dir);
	free(path);
	free(dir);
	text = got.len > 0 ? buf_take(&got) : NULL;
	buf_free(&got);

	if (st == 0 && read_ok) {
		free(*body);
		*body = text;
		return 0;
	}
	/* the editor failed: keep what it left, if anything changed */
	if (read_ok && text != NULL && (*body == NULL ||
	    strcmp(text, *body) != 0)) {
		free(*body);
		*body = text;
	} else
		free(text);
	if (st == -1)
		*why = xstrdup("the editor did not finish (it was killed or "
		    "could not run); the text is kept");
	else
		*why = xasprintf("the editor failed (status %d); the text is "
		    "kept", st);
	return -1;
}
