/*
 * fuzz-mime.c: a message's MIME part tree (mime_parse) and the display
 * model built from it (view_lines), as --view and the pager build them
 * before any crypto: every part visited, every section looked up again,
 * every line checked against the model's promises: terminal-safe, one
 * line, and message text never carries the view's own mark.
 */
#include "fuzz.h"

#include "mime-parse.h"
#include "view.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct mime_msg		*m;
	struct mime_part	*p;
	struct view_hooks	 hooks;
	struct view_lines	 lines;
	struct buf		 out;
	char			*cause = NULL, *v;
	size_t			 i;

	if ((m = mime_parse_copy((const char *)data, len, &cause)) == NULL) {
		free(cause);
		return 0;
	}
	for (p = m->root; p != NULL; p = mime_part_next(p)) {
		if ((v = mime_part_param(p, "filename")) != NULL)
			free(v);
		if ((v = mime_part_param(p, "boundary")) != NULL)
			free(v);
		(void)mime_part_is(p, "text", "plain");
		if (p->section != NULL && p->section[0] != '\0')
			FUZZ_ASSERT(mime_msg_section(m, p->section) != NULL);
	}

	memset(&hooks, 0, sizeof hooks);
	memset(&lines, 0, sizeof lines);
	view_lines(m, &hooks, &lines);
	for (i = 0; i < lines.n; i++) {
		const char	*t = lines.v[i].text;

		FUZZ_ASSERT(t != NULL && strchr(t, '\n') == NULL);
		FUZZ_ASSERT(fuzz_terminal_safe(t, strlen(t)));
		if (lines.v[i].role == VIEW_TEXT ||
		    lines.v[i].role == VIEW_HEADER)
			FUZZ_ASSERT(strstr(t, VIEW_MARK) == NULL);
	}
	buf_init(&out);
	view_lines_render(&lines, &out);
	buf_free(&out);
	view_lines_free(&lines);
	mime_msg_free(m);
	return 0;
}
