/*
 * tui-outbox.c: the outbox screen (placeholder until it lands) and the
 * outbox count of the status bar.
 */
#include <dirent.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "outbox.h"
#include "tui.h"
#include "tui-outbox.h"
#include "xmalloc.h"

#define TUI_OUTBOX_RECOUNT_MS	5000	/* others may queue too */

static atomic_uint	tui_outbox_gen = 1;

void
tui_outbox_changed(void)
{
	atomic_fetch_add(&tui_outbox_gen, 1);
}

/* Files named *ext in dir. */
static size_t
tui_outbox_files(const char *dir, const char *ext)
{
	DIR		*d;
	struct dirent	*de;
	size_t		 n = 0, len, elen = strlen(ext);

	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (de->d_name[0] != '.' && len > elen &&
		    strcmp(de->d_name + len - elen, ext) == 0)
			n++;
	}
	closedir(d);
	return n;
}

void
tui_outbox_count(size_t *queued, size_t *failed)
{
	static unsigned	 gen;
	static int64_t	 when;
	static size_t	 q, f;
	int64_t		 now = clock_ms();
	char		*dir, *fdir, *cause = NULL;

	if (gen != atomic_load(&tui_outbox_gen) ||
	    now - when >= TUI_OUTBOX_RECOUNT_MS) {
		gen = atomic_load(&tui_outbox_gen);
		when = now;
		q = f = 0;
		if ((dir = outbox_dir(&cause)) != NULL) {
			fdir = xasprintf("%s/failed", dir);
			q = tui_outbox_files(dir, ".env");
			f = tui_outbox_files(fdir, ".eml");
			free(fdir);
			free(dir);
		}
		free(cause);
	}
	*queued = q;
	*failed = f;
}

struct tui_screen *
tui_outbox_new(struct tui_account *ta)
{
	(void)ta;
	tui_message("not yet: the outbox screen");
	return NULL;
}
