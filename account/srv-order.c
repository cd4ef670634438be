/*
 * srv-order.c: the order in which SRV targets are tried (RFC 2782, "Usage
 * rules"): lowest priority first; among equal priorities a weighted random
 * choice, made again for what is left after each pick. Used by
 * discover.c; the randomness only spreads clients over servers, so
 * getrandom() without blocking, or the clock, is enough.
 */
#include <sys/random.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "setup-int.h"

static unsigned long
srv_order_random(void)
{
	unsigned long	r;

	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
		r = (unsigned long)time(NULL) ^ (unsigned long)clock();
	return r;
}

static int
srv_order_cmp(const void *a, const void *b)
{
	const struct dns_srv	*x = a, *y = b;

	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	/* Weight 0 first among equals, as the RFC's selection wants. */
	if ((x->weight == 0) != (y->weight == 0))
		return x->weight == 0 ? -1 : 1;
	return 0;
}

/* Order s[0..n) of one priority by weighted random choice. */
static void
srv_order_weighted(struct dns_srv *s, size_t n)
{
	struct dns_srv	 t;
	unsigned long	 sum, pick, run;
	size_t		 i, j;

	for (i = 0; i + 1 < n; i++) {
		sum = 0;
		for (j = i; j < n; j++)
			sum += s[j].weight;
		pick = sum == 0 ? 0 : srv_order_random() % (sum + 1);
		run = 0;
		for (j = i; j < n; j++) {
			run += s[j].weight;
			if (run >= pick)
				break;
		}
		if (j == n)
			j = n - 1;
		t = s[i];
		s[i] = s[j];
		s[j] = t;
		/* What is left: weight 0 first again. */
		qsort(s + i + 1, n - i - 1, sizeof *s, srv_order_cmp);
	}
}

void
setup_srv_order(struct dns_srv *s, size_t n)
{
	size_t	i, j;

	if (n < 2)
		return;
	qsort(s, n, sizeof *s, srv_order_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && s[j].priority == s[i].priority; j++)
			;
		srv_order_weighted(s + i, j - i);
	}
}
