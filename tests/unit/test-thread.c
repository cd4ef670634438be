/*
 * test-thread.c: threading by References and In-Reply-To: chains, parents
 * that are missing, children seen before their parents, loops, duplicate
 * ids, the order of threads and siblings, and on a large generated
 * mailbox that every message comes out once, under its parent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "thread.h"

#define MAX	16

struct set {
	struct thread_msg	m[MAX];
	size_t			n;
};

static void
add(struct set *s, const char *id, const char *irt, const char *refs,
    time_t date)
{
	s->m[s->n].message_id = id;
	s->m[s->n].in_reply_to = irt;
	s->m[s->n].references = refs;
	s->m[s->n].date = date;
	s->n++;
}

/* "name depth[o][l] ..." with names from the ids ("<a@x>" is "a"). */
static const char *
show(struct set *s, int reverse)
{
	static char		out[512];
	struct thread_pos	pos[MAX];
	size_t			i, len = 0;
	const char		*id;

	thread_build(s->m, s->n, reverse, pos);
	out[0] = '\0';
	for (i = 0; i < s->n; i++) {
		id = s->m[pos[i].msg].message_id;
		len += (size_t)snprintf(out + len, sizeof out - len,
		    "%s%c%u%s%s|%u", i ? " " : "", id ? id[1] : '?',
		    pos[i].depth, pos[i].flags & THREAD_ORPHAN ? "o" : "",
		    pos[i].flags & THREAD_LAST ? "l" : "", pos[i].thread);
	}
	return out;
}

/* Random mail: every message replies to an earlier one, or to a missing
   one, or starts a thread; input in a shuffled order. */
static int
generated(size_t n, int *once, int *under)
{
	struct thread_msg	*m;
	struct thread_pos	*pos;
	char			**ids, **refs;
	size_t			 i, j, *place, *parent;
	unsigned		 seed = 12345;

	m = calloc(n, sizeof *m);
	pos = calloc(n, sizeof *pos);
	ids = calloc(n, sizeof *ids);
	refs = calloc(n, sizeof *refs);
	place = calloc(n, sizeof *place);
	parent = calloc(n, sizeof *parent);
	for (i = 0; i < n; i++) {
		seed = seed * 1103515245 + 12345;
		if (asprintf(&ids[i], "<m%zu@gen>", i) == -1)
			return -1;
		parent[i] = (size_t)-1;
		if (i > 0 && (seed >> 16) % 4 != 0) {
			j = (seed >> 8) % i;
			parent[i] = j;
			if (asprintf(&refs[i], "<gone%zu@gen> %s",
			    j, ids[j]) == -1)
				return -1;
		} else if ((seed >> 16) % 8 == 1) {
			if (asprintf(&refs[i], "<gone%zu@gen>", i / 3) == -1)
				return -1;
		}
	}
	/* Shuffled: children often come before their parents. */
	for (i = 0; i < n; i++)
		place[i] = i;
	for (i = n; i > 1; i--) {
		seed = seed * 1103515245 + 12345;
		j = (seed >> 8) % i;
		size_t t = place[i - 1];
		place[i - 1] = place[j];
		place[j] = t;
	}
	for (i = 0; i < n; i++) {
		m[i].message_id = ids[place[i]];
		m[i].references = refs[place[i]];
		m[i].date = (time_t)place[i];
	}
	thread_build(m, n, 0, pos);

	/* Each once; each message with a known parent after it, deeper. */
	size_t *seen = calloc(n, sizeof *seen), *at = calloc(n, sizeof *at);
	*once = *under = 1;
	for (i = 0; i < n; i++) {
		if (pos[i].msg >= n || seen[pos[i].msg]++)
			*once = 0;
		else
			at[place[pos[i].msg]] = i;
	}
	for (i = 0; i < n && *once; i++) {
		if (parent[i] == (size_t)-1)
			continue;
		if (at[parent[i]] >= at[i] ||
		    pos[at[i]].depth != pos[at[parent[i]]].depth + 1 ||
		    pos[at[i]].thread != pos[at[parent[i]]].thread)
			*under = 0;
	}
	for (i = 0; i < n; i++) {
		free(ids[i]);
		free(refs[i]);
	}
	free(seen);
	free(at);
	free(ids);
	free(refs);
	free(place);
	free(parent);
	free(m);
	free(pos);
	return 0;
}

int
main(void)
{
	struct set	s;
	char		*deep[2000];
	struct thread_msg *dm;
	struct thread_pos *dp;
	size_t		i;
	int		once, under = 0, ok;

	memset(&s, 0, sizeof s);
	add(&s, "<a@x>", NULL, NULL, 10);
	add(&s, "<b@x>", "<a@x>", "<a@x>", 20);
	add(&s, "<c@x>", "<b@x>", "<a@x> <b@x>", 30);
	TAP_STR(show(&s, 0), "a0l|0 b1l|0 c2l|0", "a chain");

	memset(&s, 0, sizeof s);
	add(&s, "<c@x>", NULL, "<a@x> <b@x>", 30);
	add(&s, "<b@x>", NULL, "<a@x>", 20);
	add(&s, "<a@x>", NULL, NULL, 10);
	TAP_STR(show(&s, 0), "a0l|0 b1l|0 c2l|0",
	    "children seen before their parent");

	memset(&s, 0, sizeof s);
	add(&s, "<b@x>", NULL, "<a@x>", 20);
	add(&s, "<c@x>", NULL, "<a@x>", 30);
	add(&s, "<d@x>", NULL, NULL, 5);
	TAP_STR(show(&s, 0), "d0l|0 b0o|1 c0ol|1",
	    "a missing parent: its children share a thread, marked");

	memset(&s, 0, sizeof s);
	add(&s, "<c@x>", NULL, "<a@x> <b@x>", 30);
	add(&s, "<a@x>", NULL, NULL, 10);
	TAP_STR(show(&s, 0), "a0l|0 c1ol|0",
	    "a missing parent in the middle: under the grandparent");

	memset(&s, 0, sizeof s);
	add(&s, "<a@x>", NULL, NULL, 10);
	add(&s, "<b@x>", "<a@x>", NULL, 20);
	add(&s, "<c@x>", "junk <a@x> more", NULL, 15);
	TAP_STR(show(&s, 0), "a0l|0 c1|0 b1l|0",
	    "In-Reply-To without References; siblings by date");

	memset(&s, 0, sizeof s);
	add(&s, "<a@x>", NULL, "<b@x>", 10);
	add(&s, "<b@x>", NULL, "<a@x>", 20);
	TAP_STR(show(&s, 0), "b0l|0 a1l|0",
	    "a loop is not closed: the first link stays");

	memset(&s, 0, sizeof s);
	add(&s, "<a@x>", NULL, "<a@x>", 10);
	add(&s, "<a@x>", NULL, NULL, 20);
	add(&s, NULL, NULL, "<a@x>", 30);
	TAP_STR(show(&s, 0), "a0l|0 ?1l|0 a0l|1",
	    "a message naming itself; a duplicate id apart; no id at all");

	memset(&s, 0, sizeof s);
	add(&s, "<a@x>", NULL, NULL, 10);
	add(&s, "<b@x>", NULL, NULL, 40);
	add(&s, "<c@x>", NULL, "<a@x>", 50);
	add(&s, "<d@x>", NULL, "<b@x>", 45);
	TAP_STR(show(&s, 0), "a0l|0 c1l|0 b0l|1 d1l|1",
	    "threads by their earliest message");
	TAP_STR(show(&s, 1), "b0l|0 d1l|0 a0l|1 c1l|1",
	    "reversed: newest thread first, inside unchanged");

	/* A chain deeper than the loop check looks. */
	dm = calloc(2000, sizeof *dm);
	dp = calloc(2000, sizeof *dp);
	for (i = 0; i < 2000; i++) {
		if (asprintf(&deep[i], "<d%zu@x>", i) == -1)
			return 1;
		dm[i].message_id = deep[i];
		dm[i].in_reply_to = i > 0 ? deep[i - 1] : NULL;
		dm[i].date = (time_t)i;
	}
	thread_build(dm, 2000, 0, dp);
	ok = 1;
	for (i = 0; i < 2000; i++)
		if (dp[i].msg != i || dp[i].thread != 0 || dp[i].depth != i)
			ok = 0;
	TAP_OK(ok, "a chain of 2000 by In-Reply-To: one thread, each one "
	    "deeper (the last at %u)", dp[1999].depth);
	for (i = 0; i < 2000; i++)
		free(deep[i]);
	free(dm);
	free(dp);

	TAP_OK(generated(20000, &once, &under) == 0 && once,
	    "20,000 generated messages: each comes out once");
	TAP_OK(under, "... each after its parent, one deeper, same thread");
	return TAP_DONE();
}
