/*
 * test-search-query.c: the query language of the full-text index: what
 * each form becomes in FTS5 syntax (every word quoted, every group in
 * parentheses), the date ranges, and the queries refused with a reason.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search-query.h"
#include "tap.h"

static char *
fts(const char *q)
{
	struct search_query	 sq;
	char			*cause = NULL, *m;

	if (search_query_parse(q, &sq, &cause) == -1) {
		printf("# %s: %s\n", q, cause);
		free(cause);
		return strdup("(error)");
	}
	m = strdup(sq.match != NULL ? sq.match : "(none)");
	search_query_free(&sq);
	return m;
}

#define FTS(q, want) do {						\
	char *got_ = fts(q);						\
	TAP_STR(got_, want, "%s", q);					\
	free(got_);							\
} while (0)

static int
refused(const char *q, const char *why)
{
	struct search_query	 sq;
	char			*cause = NULL;
	int			 rc;

	if (search_query_parse(q, &sq, &cause) == 0) {
		search_query_free(&sq);
		return 0;
	}
	rc = strstr(cause, why) != NULL;
	if (!rc)
		printf("# %s: %s\n", q, cause);
	free(cause);
	return rc;
}

static time_t
utc(int y, int m, int d)
{
	struct tm	tm;

	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

int
main(void)
{
	struct search_query	 sq;
	char			*cause = NULL;

	setenv("TZ", "UTC", 1);
	tzset();

	FTS("garden", "\"garden\"");
	FTS("garden plan", "(\"garden\" AND \"plan\")");
	FTS("garden AND plan", "(\"garden\" AND \"plan\")");
	FTS("\"the garden plan\"", "\"the garden plan\"");
	FTS("gard*", "\"gard\"*");
	FTS("\"gard\"*", "\"gard\"*");
	FTS("from:alice", "sender : \"alice\"");
	FTS("FROM:alice@steed.test", "sender : \"alice@steed.test\"");
	FTS("to:bob subject:\"the plan\"",
	    "(rcpt : \"bob\" AND subject : \"the plan\")");
	FTS("subject:pla*", "subject : \"pla\"*");
	FTS("a OR b", "(\"a\" OR \"b\")");
	FTS("a b OR c", "((\"a\" AND \"b\") OR \"c\")");
	FTS("a -b", "(\"a\") NOT \"b\"");
	FTS("a NOT b -c", "(\"a\") NOT \"b\" NOT \"c\"");
	FTS("a (b OR c)", "(\"a\" AND (\"b\" OR \"c\"))");
	FTS("a -(b OR c)", "(\"a\") NOT (\"b\" OR \"c\")");
	FTS("NOT NOT a", "\"a\"");
	FTS("say \"he said \"\"hi\"", "(\"say\" AND \"he said \" AND \"hi\")");
	FTS("x\"y", "(\"x\" AND \"y\")");
	FTS("NEAR(a b)", "(\"NEAR\" AND (\"a\" AND \"b\"))");
	FTS("a:b", "\"a:b\"");
	FTS("a * -- b", "(\"a\" AND \"b\")");
	FTS("café", "\"café\"");
	FTS("or and not", "(\"or\" AND \"and\" AND \"not\")");

	TAP_OK(search_query_parse("plan date:2024", &sq, &cause) == 0 &&
	    sq.after == utc(2024, 1, 1) && sq.before == utc(2025, 1, 1) &&
	    strcmp(sq.match, "\"plan\"") == 0, "date:2024 is that year");
	search_query_free(&sq);
	TAP_OK(search_query_parse("date:2024-02", &sq, &cause) == 0 &&
	    sq.match == NULL && sq.after == utc(2024, 2, 1) &&
	    sq.before == utc(2024, 3, 1), "date:2024-02 alone: that month, "
	    "no words");
	search_query_free(&sq);
	TAP_OK(search_query_parse("date:2024-01..2024-03-15", &sq,
	    &cause) == 0 && sq.after == utc(2024, 1, 1) &&
	    sq.before == utc(2024, 3, 16), "a range: both ends in");
	search_query_free(&sq);
	TAP_OK(search_query_parse("x date:..2023", &sq, &cause) == 0 &&
	    sq.after == 0 && sq.before == utc(2024, 1, 1), "open before");
	search_query_free(&sq);
	TAP_OK(search_query_parse("x date:2023-12-31..", &sq, &cause) == 0 &&
	    sq.after == utc(2023, 12, 31) && sq.before == 0, "open after");
	search_query_free(&sq);
	TAP_OK(search_query_parse("x date:2023 date:2023-06..", &sq,
	    &cause) == 0 && sq.after == utc(2023, 6, 1) &&
	    sq.before == utc(2024, 1, 1), "two dates narrow each other");
	search_query_free(&sq);

	TAP_OK(refused("", "nothing to search for"), "an empty query");
	TAP_OK(refused("  -- ", "nothing to search for"), "no word in it");
	TAP_OK(refused("-a", "cannot only leave out"), "only a NOT");
	TAP_OK(refused("(a", "not closed"), "an open (");
	TAP_OK(refused("a)", ") with no ("), "a stray )");
	TAP_OK(refused("()", "nothing in it"), "( )");
	TAP_OK(refused("a OR", "nothing after"), "OR at the end");
	TAP_OK(refused("OR a", "nothing before"), "OR at the start");
	TAP_OK(refused("date:yesterday", "not a date"), "date:yesterday");
	TAP_OK(refused("date:2024-13", "not a date"), "month 13");
	TAP_OK(refused("a (date:2024)", "inside"), "a date in ( )");
	TAP_OK(refused("a OR b date:2024", "with OR"), "a date with OR");
	TAP_OK(search_query_parse("(a OR b) date:2024", &sq, &cause) == 0 &&
	    strcmp(sq.match, "(\"a\" OR \"b\")") == 0 && sq.after != 0,
	    "a date beside an OR in parentheses");
	search_query_free(&sq);
	TAP_OK(refused("date:2024..2023", "no time between"),
	    "a range backwards");
	TAP_OK(refused("from:", "wants a value"), "from: with nothing");
	TAP_OK(refused("((((((((((((((((((a))))))))))))))))))",
	    "too many parentheses"), "too deep");
	return TAP_DONE();
}
