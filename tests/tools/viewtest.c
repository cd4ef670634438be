/*
 * viewtest.c: run the engine's view_render() on a message file and print
 * what it returns, for tests/shell/hostile.sh. With -t, print the part tree
 * instead (section, type, flags, body size), one part a line, through
 * strsafe() like everything else. With -l, print the display model
 * (view_lines()): "ROLE QUOTE INNER|TEXT", one line of the model a line.
 *
 * usage: viewtest [-t | -l] FILE
 * Exit 0 on success, 1 if view_render() refused the message, 2 on a usage
 * or read error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "mime-parse.h"
#include "strsafe.h"
#include "view.h"

static int
viewtest_read(const char *path, struct buf *b)
{
	FILE	*f;
	char	 chunk[65536];
	size_t	 n;

	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "viewtest: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(b, chunk, n);
	if (ferror(f)) {
		fprintf(stderr, "viewtest: %s: read error\n", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	buf_add(b, "", 0);
	return 0;
}

static void
viewtest_tree(struct mime_msg *m, struct buf *out)
{
	struct mime_part	*p;

	for (p = m->root; p != NULL; p = mime_part_next(p)) {
		buf_addf(out, "%d ", p->depth);
		strsafe_add(out, p->section, strlen(p->section), 0);
		buf_addc(out, ' ');
		strsafe_add(out, p->type, strlen(p->type), 0);
		buf_addc(out, '/');
		strsafe_add(out, p->subtype, strlen(p->subtype), 0);
		buf_addf(out, " flags=0x%02x children=%zu body=%zu\n",
		    p->flags, p->nchildren, p->bodylen);
	}
	buf_addf(out, "parts=%zu cut=%d\n", m->nparts, m->cut);
}

static void
viewtest_lines(struct mime_msg *m, struct buf *out)
{
	struct view_hooks	h;
	struct view_lines	l;
	size_t			i;

	memset(&h, 0, sizeof h);
	memset(&l, 0, sizeof l);
	view_lines(m, &h, &l);
	for (i = 0; i < l.n; i++)
		buf_addf(out, "%s %d %d|%s\n", view_role_name(l.v[i].role),
		    l.v[i].quote, l.v[i].inner, l.v[i].text);
	view_lines_free(&l);
}

int
main(int argc, char **argv)
{
	struct buf	 raw, out;
	struct mime_msg	*m;
	char		*cause;
	int		 tree = 0, lines = 0, rc = 0;

	if (argc == 3 && strcmp(argv[1], "-t") == 0) {
		tree = 1;
		argv++;
		argc--;
	} else if (argc == 3 && strcmp(argv[1], "-l") == 0) {
		lines = 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: viewtest [-t | -l] FILE\n");
		return 2;
	}
	buf_init(&raw);
	buf_init(&out);
	if (viewtest_read(argv[1], &raw) != 0)
		return 2;
	if (tree || lines) {
		if ((m = mime_parse_copy(raw.data, raw.len, &cause)) == NULL)
			rc = 1;
		else {
			if (tree)
				viewtest_tree(m, &out);
			else
				viewtest_lines(m, &out);
			mime_msg_free(m);
		}
	} else if (view_render(raw.data, raw.len, &out, &cause) != 0)
		rc = 1;
	if (rc != 0) {
		fprintf(stderr, "viewtest: %s\n", cause);
		free(cause);
	} else if (fwrite(out.data, 1, out.len, stdout) != out.len ||
	    fflush(stdout) != 0) {
		fprintf(stderr, "viewtest: write error\n");
		rc = 2;
	}
	buf_free(&raw);
	buf_free(&out);
	return rc;
}
