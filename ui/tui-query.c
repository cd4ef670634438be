/*
 * tui-query.c: query-command for the interface (addrbook-query.h). A
 * query runs on a thread of its own (tui_background()), so that neither
 * the screen nor typing waits on the command; whoever started it (the Q
 * screen here, compose's Tab completion in tui-compose-addr.c) holds a
 * reference and looks whether the answer is in. The Q screen is
 * tui-query-screen.c.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "addrbook-query.h"
#include "tui.h"
#include "xmalloc.h"

struct tui_query {
	pthread_mutex_t		 mu;
	int			 refs;
	char			*what;
	const struct config	*cf;
	int			 done;
	int			 n;		/* -1: failed */
	struct addrbook_entry	*e;
	char			*msg;
	char			*cause;
};

static void *
tui_query_run(void *arg)
{
	struct tui_query	*q = arg;
	struct addrbook_entry	*e = NULL;
	char			*msg = NULL, *cause = NULL;
	int			 n;

	n = addrbook_query(q->cf, q->what, &e, &msg, &cause);
	pthread_mutex_lock(&q->mu);
	q->n = n;
	q->e = e;
	q->msg = msg;
	q->cause = cause;
	q->done = 1;
	pthread_mutex_unlock(&q->mu);
	tui_query_unref(q);
	return NULL;
}

struct tui_query *
tui_query_start(const char *what)
{
	struct tui_query	*q = xcalloc(1, sizeof *q);

	pthread_mutex_init(&q->mu, NULL);
	q->refs = 2;		/* the caller's and the thread's */
	q->what = xstrdup(what);
	q->cf = tui.cf;
	(void)tui_background(tui_query_run, q, NULL);
	return q;
}

const char *
tui_query_what(const struct tui_query *q)
{
	return q->what;
}

int
tui_query_done(struct tui_query *q)
{
	int	done;

	pthread_mutex_lock(&q->mu);
	done = q->done;
	pthread_mutex_unlock(&q->mu);
	return done;
}

int
tui_query_result(struct tui_query *q, const struct addrbook_entry **e,
    const char **msg, const char **cause)
{
	/* once done, only the holders read it */
	if (!tui_query_done(q))
		return -1;
	*e = q->e;
	*msg = q->msg;
	*cause = q->cause;
	return q->n;
}

void
tui_query_unref(struct tui_query *q)
{
	int	left;

	if (q == NULL)
		return;
	pthread_mutex_lock(&q->mu);
	left = --q->refs;
	pthread_mutex_unlock(&q->mu);
	if (left > 0)
		return;
	addrbook_free(q->e, q->n > 0 ? (size_t)q->n : 0);
	free(q->msg);
	free(q->cause);
	free(q->what);
	pthread_mutex_destroy(&q->mu);
	free(q);
}
