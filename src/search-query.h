/*
 * search-query.h: the query language of the full-text index, read into
 * what SQLite's FTS5 and the date column need. One syntax for --search
 * and the interface:
 *
 *	word		a word, anywhere (headers, text, attachment names)
 *	"two words"	a phrase
 *	wor*		a prefix
 *	from:alice	in From, Sender or Reply-To (names and addresses);
 *	to:bob		in To or Cc; subject:plan in the Subject. A field
 *			takes a word, a prefix or a phrase: from:"Alice B"
 *	date:2024	sent in 2024; date:2024-03, date:2024-03-05; a range
 *	date:2024-01..2024-03-15, open at either end (date:..2023)
 *	a b, a AND b	both; a OR b either; NOT a, -a: without;
 *	( )		grouping. AND binds tighter than OR.
 *
 * Words are matched as the index's tokenizer cuts them (letters and
 * digits, case and accents ignored). A date applies to the whole query
 * and may not stand inside OR or parentheses. A user's text is never
 * handed to FTS5 as syntax: every word goes in quotes.
 */
#ifndef STEED_SEARCH_QUERY_H
#define STEED_SEARCH_QUERY_H

#include <time.h>

struct search_query {
	char	*match;		/* the FTS5 expression, or NULL: dates only */
	time_t	 after;		/* sent at or after; 0: no bound */
	time_t	 before;	/* sent before; 0: no bound */
};

/* Read q into *sq (free with search_query_free()); -1 and *cause. */
int	search_query_parse(const char *q, struct search_query *sq,
	    char **cause);
void	search_query_free(struct search_query *);

#endif
