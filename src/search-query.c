/*
 * search-query.c: the query language of search-query.h, read by a small
 * tokenizer and a recursive descent over its tokens: or := and (OR and)*;
 * and := unary+; unary := (NOT | -) primary | primary; primary := ( or ) |
 * term | date. What comes out is an FTS5 expression with every term
 * quoted and every group parenthesised, so FTS5's own precedence never
 * decides anything. Nothing here touches a database.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "buf.h"
#include "search-query.h"
#include "xmalloc.h"

#define SEARCH_QUERY_MAX_DEPTH	16	/* parentheses */
#define SEARCH_QUERY_MAX_TOKENS	256

enum sq_kind { SQ_TERM, SQ_LPAREN, SQ_RPAREN, SQ_OR, SQ_AND, SQ_NOT,
    SQ_DATE };

struct sq_token {
	enum sq_kind	 kind;
	const char	*column;	/* SQ_TERM: FTS5 column, or NULL */
	char		*text;		/* SQ_TERM, SQ_DATE: the value */
	int		 phrase;	/* SQ_TERM: it was quoted */
	int		 prefix;	/* SQ_TERM: ends in '*' */
};

struct sq_parse {
	struct sq_token	*t;
	size_t		 n, i;
	struct search_query *sq;
	char		*cause;
};

/* The fields and the index's columns (search-index.c). */
static const struct {
	const char	*name;
	const char	*column;
} sq_fields[] = {
	{ "from",	"sender" },
	{ "to",		"rcpt" },
	{ "subject",	"subject" },
	{ "date",	NULL },
};

static int
sq_special(int c)
{
	return c == '(' || c == ')' || c == '"' || isspace(c);
}

/* A quoted value at *sp (past its opening quote); the quote may be
 * missing at the end. */
static char *
sq_quoted(const char **sp)
{
	const char	*s = *sp, *end;
	char		*v;

	if ((end = strchr(s, '"')) == NULL)
		end = s + strlen(s);
	v = xstrndup(s, end - s);
	*sp = *end == '"' ? end + 1 : end;
	return v;
}

static int
sq_tokenize(struct sq_parse *p, const char *s)
{
	struct sq_token	 tk;
	const char	*w;
	size_t		 i, len;

	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '\0')
			return 0;
		if (p->n == SEARCH_QUERY_MAX_TOKENS) {
			p->cause = xstrdup("the query is too long");
			return -1;
		}
		memset(&tk, 0, sizeof tk);
		if (*s == '(' || *s == ')') {
			tk.kind = *s++ == '(' ? SQ_LPAREN : SQ_RPAREN;
			goto add;
		}
		if (*s == '-' && s[1] != '\0' && !isspace((unsigned char)s[1])) {
			tk.kind = SQ_NOT;
			s++;
			goto add;
		}
		tk.kind = SQ_TERM;
		if (*s == '"') {
			s++;
			tk.text = sq_quoted(&s);
			tk.phrase = 1;
			goto star;
		}
		for (w = s; *s != '\0' && !sq_special((unsigned char)*s) &&
		    *s != ':'; s++)
			;
		len = s - w;
		if (*s == ':') {
			for (i = 0; i < sizeof sq_fields / sizeof sq_fields[0];
			    i++)
				if (strlen(sq_fields[i].name) == len &&
				    strncasecmp(w, sq_fields[i].name, len) == 0)
					break;
			if (i == sizeof sq_fields / sizeof sq_fields[0]) {
				/* not a field: a word with a colon in it */
				while (*s != '\0' &&
				    !sq_special((unsigned char)*s))
					s++;
				tk.text = xstrndup(w, s - w);
				goto star;
			}
			s++;
			if (sq_fields[i].column == NULL)
				tk.kind = SQ_DATE;
			tk.column = sq_fields[i].column;
			if (*s == '"') {
				s++;
				tk.text = sq_quoted(&s);
				tk.phrase = 1;
			} else {
				for (w = s; *s != '\0' &&
				    !sq_special((unsigned char)*s); s++)
					;
				tk.text = xstrndup(w, s - w);
			}
			if (*tk.text == '\0') {
				p->cause = xasprintf("%s: wants a value after "
				    "it", sq_fields[i].name);
				free(tk.text);
				return -1;
			}
			if (tk.kind == SQ_DATE)
				goto add;
			goto star;
		}
		tk.text = xstrndup(w, len);
		if (strcmp(tk.text, "OR") == 0 || strcmp(tk.text, "AND") == 0 ||
		    strcmp(tk.text, "NOT") == 0) {
			tk.kind = tk.text[0] == 'O' ? SQ_OR :
			    tk.text[0] == 'A' ? SQ_AND : SQ_NOT;
			free(tk.text);
			tk.text = NULL;
			goto add;
		}
	star:
		len = strlen(tk.text);
		if (!tk.phrase && len > 0 && tk.text[len - 1] == '*') {
			tk.text[--len] = '\0';
			tk.prefix = 1;
		} else if (tk.phrase && *s == '*') {
			s++;
			tk.prefix = 1;
		}
	add:
		p->t = xreallocarray(p->t, p->n + 1, sizeof *p->t);
		p->t[p->n++] = tk;
	}
}

/* Does a term hold anything the tokenizer keeps (a letter, a digit)? */
static int
sq_has_word(const char *s)
{
	for (; *s != '\0'; s++)
		if (isalnum((unsigned char)*s) || (unsigned char)*s >= 0x80)
			return 1;
	return 0;
}

/* A term as FTS5 syntax: [column : ] "text" [*]. */
static void
sq_term(struct buf *b, const struct sq_token *tk)
{
	const char	*s;

	if (tk->column != NULL)
		buf_addf(b, "%s : ", tk->column);
	buf_addc(b, '"');
	for (s = tk->text; *s != '\0'; s++) {
		if (*s == '"')
			buf_addc(b, '"');
		buf_addc(b, *s);
	}
	buf_addc(b, '"');
	if (tk->prefix)
		buf_addc(b, '*');
}

/* The start of period s (YYYY, YYYY-MM, YYYY-MM-DD), local time; with
 * next, the start of the period after it. -1 if s is none. */
static int
sq_date(const char *s, int next, time_t *t)
{
	struct tm	 tm;
	int		 y, m = 0, d = 0, n = 0, len = strlen(s);

	if (sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &n) == 3 && n == len)
		;
	else if (d = 0, sscanf(s, "%4d-%2d%n", &y, &m, &n) == 2 && n == len)
		;
	else if (m = 0, sscanf(s, "%4d%n", &y, &n) == 1 && n == len && n == 4)
		;
	else
		return -1;
	if (y < 1970 || y > 9999 || m < 0 || m > 12 || d < 0 || d > 31)
		return -1;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = m > 0 ? m - 1 : 0;
	tm.tm_mday = d > 0 ? d : 1;
	if (next) {
		if (d > 0)
			tm.tm_mday++;
		else if (m > 0)
			tm.tm_mon++;
		else
			tm.tm_year++;
	}
	tm.tm_isdst = -1;
	if ((*t = mktime(&tm)) == (time_t)-1)
		return -1;
	return 0;
}

static int
sq_date_range(struct sq_parse *p, const char *v)
{
	const char	*dots = strstr(v, "..");
	char		*from, *to;
	time_t		 a = 0, b = 0;
	int		 rc = 0;

	if (dots == NULL) {
		from = xstrdup(v);
		to = xstrdup(v);
	} else {
		from = xstrndup(v, dots - v);
		to = xstrdup(dots + 2);
	}
	if ((*from != '\0' && sq_date(from, 0, &a) == -1) ||
	    (*to != '\0' && sq_date(to, 1, &b) == -1) ||
	    (*from == '\0' && *to == '\0')) {
		p->cause = xasprintf("date:%s: not a date or a range "
		    "(2024, 2024-03, 2024-03-05, FROM..TO)", v);
		rc = -1;
	} else {
		/* two dates narrow each other */
		if (a != 0 && (p->sq->after == 0 || a > p->sq->after))
			p->sq->after = a;
		if (b != 0 && (p->sq->before == 0 || b < p->sq->before))
			p->sq->before = b;
	}
	free(from);
	free(to);
	return rc;
}

static char *sq_or(struct sq_parse *, int depth);

/* A primary: a group or a term; NULL with p->cause, or NULL and an
 * empty *skip for a term with no word in it. */
static char *
sq_primary(struct sq_parse *p, int depth, int *skip)
{
	struct sq_token	*tk;
	struct buf	 b;
	char		*in;

	*skip = 0;
	if (p->i == p->n) {
		p->cause = xstrdup("the query ends where a word was wanted");
		return NULL;
	}
	tk = &p->t[p->i++];
	if (tk->kind == SQ_LPAREN) {
		if (depth >= SEARCH_QUERY_MAX_DEPTH) {
			p->cause = xstrdup("too many parentheses");
			return NULL;
		}
		if ((in = sq_or(p, depth + 1)) == NULL) {
			if (p->cause == NULL)
				p->cause = xstrdup("( ) with nothing in it");
			return NULL;
		}
		if (p->i == p->n || p->t[p->i].kind != SQ_RPAREN) {
			free(in);
			p->cause = xstrdup("a ( is not closed");
			return NULL;
		}
		p->i++;
		return in;
	}
	if (tk->kind != SQ_TERM) {
		p->cause = xstrdup(tk->kind == SQ_RPAREN ? "a ) with no ( "
		    "before it" : tk->kind == SQ_DATE ? "date: cannot be "
		    "inside OR, NOT or parentheses" : "OR, AND or NOT where "
		    "a word was wanted");
		return NULL;
	}
	if (!sq_has_word(tk->text)) {
		*skip = 1;
		return NULL;
	}
	buf_init(&b);
	sq_term(&b, tk);
	return buf_take(&b);
}

/* A conjunction: positive parts ANDed, then each negative one NOTed. */
static char *
sq_and(struct sq_parse *p, int depth)
{
	struct buf	 pos, neg;
	size_t		 npos = 0, nneg = 0;
	char		*part;
	int		 negate, skip;

	buf_init(&pos);
	buf_init(&neg);
	while (p->i < p->n && p->t[p->i].kind != SQ_OR &&
	    p->t[p->i].kind != SQ_RPAREN) {
		if (p->t[p->i].kind == SQ_AND) {
			p->i++;
			continue;
		}
		if (p->t[p->i].kind == SQ_DATE && depth > 0) {
			p->cause = xstrdup("date: cannot be inside OR, NOT or "
			    "parentheses");
			goto fail;
		}
		if (p->t[p->i].kind == SQ_DATE) {
			if (sq_date_range(p, p->t[p->i].text) == -1)
				goto fail;
			p->i++;
			continue;
		}
		negate = 0;
		while (p->i < p->n && p->t[p->i].kind == SQ_NOT) {
			negate = !negate;
			p->i++;
		}
		if ((part = sq_primary(p, depth, &skip)) == NULL) {
			if (skip)
				continue;
			goto fail;
		}
		if (negate) {
			buf_addf(&neg, " NOT %s", part);
			nneg++;
		} else {
			buf_addf(&pos, "%s%s", npos > 0 ? " AND " : "", part);
			npos++;
		}
		free(part);
	}
	if (npos == 0 && nneg > 0) {
		p->cause = xstrdup("a query cannot only leave out: say what "
		    "to find too");
		goto fail;
	}
	if (npos == 0) {
		buf_free(&pos);
		buf_free(&neg);
		return NULL;
	}
	if (npos > 1 || nneg > 0) {
		struct buf	 b;

		buf_init(&b);
		buf_addf(&b, "(%.*s)%.*s", (int)pos.len, pos.data,
		    (int)neg.len, neg.data != NULL ? neg.data : "");
		buf_free(&pos);
		buf_free(&neg);
		return buf_take(&b);
	}
	buf_free(&neg);
	return buf_take(&pos);
fail:
	buf_free(&pos);
	buf_free(&neg);
	return NULL;
}

static char *
sq_or(struct sq_parse *p, int depth)
{
	struct buf	 b;
	char		*part;
	size_t		 n = 0;

	buf_init(&b);
	for (;;) {
		if ((part = sq_and(p, n > 0 ? depth + 1 : depth)) != NULL) {
			buf_addf(&b, "%s%s", n > 0 ? " OR " : "", part);
			free(part);
			n++;
		} else if (p->cause != NULL || n > 0) {
			if (p->cause == NULL)
				p->cause = xstrdup("OR with nothing after it");
			buf_free(&b);
			return NULL;
		}
		if (p->i == p->n || p->t[p->i].kind != SQ_OR)
			break;
		p->i++;
		if (n == 0) {
			p->cause = xstrdup("OR with nothing before it");
			buf_free(&b);
			return NULL;
		}
	}
	if (n == 0) {
		buf_free(&b);
		return NULL;
	}
	if (n > 1) {
		struct buf	 g;

		buf_init(&g);
		buf_addf(&g, "(%.*s)", (int)b.len, b.data);
		buf_free(&b);
		return buf_take(&g);
	}
	return buf_take(&b);
}

int
search_query_parse(const char *q, struct search_query *sq, char **cause)
{
	struct sq_parse	 p;
	size_t		 i;
	int		 rc = -1;

	memset(sq, 0, sizeof *sq);
	memset(&p, 0, sizeof p);
	p.sq = sq;
	if (sq_tokenize(&p, q) == -1)
		goto out;
	/* a date bounds the whole query: it cannot be one side of an OR
	   outside parentheses */
	for (i = 0; i < p.n && p.t[i].kind != SQ_DATE; i++)
		;
	if (i < p.n) {
		int	d = 0;

		for (i = 0; i < p.n; i++) {
			d += p.t[i].kind == SQ_LPAREN ? 1 :
			    p.t[i].kind == SQ_RPAREN ? -1 : 0;
			if (p.t[i].kind == SQ_OR && d <= 0)
				break;
		}
		if (i < p.n) {
			p.cause = xstrdup("date: cannot be used with OR (it "
			    "bounds the whole query)");
			goto out;
		}
	}
	sq->match = sq_or(&p, 0);
	if (p.cause == NULL && p.i < p.n)
		p.cause = xstrdup("a ) with no ( before it");
	if (p.cause == NULL && sq->match == NULL && sq->after == 0 &&
	    sq->before == 0)
		p.cause = xstrdup("nothing to search for");
	if (p.cause == NULL && sq->after != 0 && sq->before != 0 &&
	    sq->after >= sq->before)
		p.cause = xstrdup("the dates leave no time between them");
	if (p.cause == NULL)
		rc = 0;
out:
	for (i = 0; i < p.n; i++)
		free(p.t[i].text);
	free(p.t);
	if (rc == -1) {
		search_query_free(sq);
		*cause = p.cause;
	}
	return rc;
}

void
search_query_free(struct search_query *sq)
{
	free(sq->match);
	sq->match = NULL;
}
