/*
 * frontend.c: the hooks of the calling thread (frontend.h), and what the
 * engine calls when it has none.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "frontend.h"
#include "xmalloc.h"

static _Thread_local const struct fe_hooks *fe_hooks;

const struct fe_hooks *
fe_set(const struct fe_hooks *h)
{
	const struct fe_hooks	*old = fe_hooks;

	fe_hooks = h;
	return old;
}

const struct fe_hooks *
fe_get(void)
{
	return fe_hooks;
}

char *
fe_secret(const char *prompt, char **cause)
{
	if (fe_hooks == NULL || fe_hooks->secret == NULL) {
		*cause = xstrdup("no way to ask for it here");
		return NULL;
	}
	return fe_hooks->secret(fe_hooks->arg, prompt, cause);
}

int
fe_confirm(const char *fmt, ...)
{
	va_list	 ap;
	char	*q;
	int	 yes;

	if (fe_hooks == NULL || fe_hooks->confirm == NULL)
		return 0;
	va_start(ap, fmt);
	q = xvasprintf(fmt, ap);
	va_end(ap);
	yes = fe_hooks->confirm(fe_hooks->arg, q) == 1;
	free(q);
	return yes;
}

void
fe_notice(enum fe_level level, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	if (fe_hooks == NULL || fe_hooks->notice == NULL)
		return;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	fe_hooks->notice(fe_hooks->arg, level, s);
	free(s);
}

void
fe_progress(const char *what, uint64_t done, uint64_t total)
{
	if (fe_hooks != NULL && fe_hooks->progress != NULL)
		fe_hooks->progress(fe_hooks->arg, what, done, total);
}

void
fe_tty_begin(void)
{
	const char	*tty;

	if (fe_hooks == NULL || fe_hooks->tty_begin == NULL)
		return;
	if ((tty = fe_hooks->tty_begin(fe_hooks->arg)) != NULL)
		setenv("GPG_TTY", tty, 1);
}

void
fe_tty_end(void)
{
	if (fe_hooks != NULL && fe_hooks->tty_end != NULL)
		fe_hooks->tty_end(fe_hooks->arg);
}

int
fe_cancelled(void)
{
	return fe_hooks != NULL && fe_hooks->cancel != NULL &&
	    atomic_load(fe_hooks->cancel) != 0;
}
