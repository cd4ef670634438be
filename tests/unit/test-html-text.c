/*
 * test-html-text.c: HTML as text (html-text.h): tags stripped, script,
 * style and head dropped, blocks as line breaks, entities decoded, links
 * numbered and listed; and hostile HTML (unclosed tags, comments and
 * quotes, deep nesting, huge input, entities for controls and invalid
 * code points) that must end quickly, bounded, with nothing fetched or
 * kept that was meant to be dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "html-text.h"
#include "tap.h"
#include "xmalloc.h"

static char *
text(const char *html, size_t max, int *cut)
{
	struct buf	 out;
	int		 c;

	buf_init(&out);
	c = html_text(html, strlen(html), max, &out);
	if (cut != NULL)
		*cut = c;
	buf_addc(&out, '\0');
	return buf_take(&out);
}

#define HT(html, want, what) do {					\
	char *ht_got = text(html, 0, NULL);				\
	TAP_STR(ht_got, want, what);					\
	free(ht_got);							\
} while (0)

/* Repeat s n times into a new string. */
static char *
repeat(const char *pre, const char *s, size_t n, const char *post)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	buf_adds(&b, pre);
	for (i = 0; i < n; i++)
		buf_adds(&b, s);
	buf_adds(&b, post);
	buf_addc(&b, '\0');
	return buf_take(&b);
}

int
main(void)
{
	char	*big, *got;
	int	 cut;

	HT("<p>Hello <b>world</b></p>", "Hello world\n", "tags stripped");
	HT("<html><head><title>T</title><style>p{x}</style></head>"
	    "<body><script>alert(1)</script>shown</body></html>",
	    "shown\n", "head, title, style and script dropped");
	HT("<SCRIPT type=x>a</script >b<Style>c</STYLE>d",
	    "b\nd\n", "dropped elements closed in any case");
	HT("a<br>b<br/><br>c", "a\nb\n\nc\n", "<br> breaks lines");
	HT("<p>one</p><p>two</p><div>three</div>four",
	    "one\n\ntwo\n\nthree\nfour\n", "paragraphs and divs");
	HT("<ul><li>x</li><li>y</li></ul>", "* x\n* y\n", "list items");
	HT("a  \n\t b", "a b\n", "whitespace folded");
	HT("<pre>a  b\nc</pre>d", "a  b\nc\n\nd\n", "<pre> kept as it is");
	HT("&lt;b&gt; &amp; &quot;q&quot; &#65;&#x42; &euro;&nbsp;x",
	    "<b> & \"q\" AB \xe2\x82\xac x\n", "entities decoded");
	HT("&bogus; &amp &#; & x", "&bogus; &amp &#; & x\n",
	    "what is no entity stays text");
	HT("&#0;&#xd800;&#x110000;&#99999999999;",
	    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n",
	    "NUL, surrogates and code points too high become U+FFFD");
	HT("&#27;[2J", "\x1b[2J\n",
	    "an escape by entity comes out as a byte the view makes safe");
	HT("see <a href=\"https://e.example/a?x=1&amp;y=2\">this</a> and "
	    "<A HREF='http://f.example/'>that</a>.",
	    "see this [1] and that [2].\n\nlinks:\n"
	    "[1] https://e.example/a?x=1&y=2\n[2] http://f.example/\n",
	    "links numbered, addresses listed at the end");
	HT("<a href=\"javascript:alert(1)\">x</a><a>y</a><a href=''>z</a>",
	    "x [1]yz\n\nlinks:\n[1] javascript:alert(1)\n",
	    "a link is only text; no address, no number");
	HT("<img src=\"http://track.example/p.gif\" alt=\"logo\">hi",
	    "[image: logo]hi\n", "images never fetched, their alt shown");
	HT("<img src=http://track.example/p.gif>", "",
	    "an image without alt leaves nothing");
	HT("a<!-- <script> -->b<!DOCTYPE html><?xml x?>c", "abc\n",
	    "comments and declarations dropped");
	HT("x < y and 1<2", "x < y and 1<2\n", "a lone < is text");
	HT("<td>a</td><td>b</td>", "a b\n", "table cells apart");
	HT("<p title=\"a > b\">t</p>", "t\n", "a > inside a quoted value");

	/* Hostile. */
	HT("a<script>never closed", "a\n", "an unclosed script drops the rest");
	HT("a<!-- never closed", "a\n", "an unclosed comment drops the rest");
	HT("a<p title=\"never closed>b", "a\n",
	    "an unclosed quote drops the rest");
	HT("a<b", "a\n", "an unclosed tag drops the rest");
	HT("<a href=x>1<a href=y>2</a>3", "1 [1]2 [2]3\n\nlinks:\n[1] x\n[2] y\n",
	    "a link left open ends where the next begins");
	HT("<style>a</style x>b</style>c", "bc\n",
	    "a dropped element ends at its first end tag");
	HT("<verylongtagnamethatgoesonandon>x</verylongtagnamethatgoesonandon>",
	    "x\n", "long tag names");

	big = repeat("", "<div><b><i>", 100000, "deep");
	got = text(big, 0, NULL);
	TAP_STR(got, "deep\n", "300000 nested open tags, no recursion");
	free(got);
	free(big);

	big = repeat("", "<a href=\"http://x.example/\">l</a>", 1000, "");
	got = text(big, 0, NULL);
	TAP_OK(strstr(got, "[200] http://x.example/\n") != NULL &&
	    strstr(got, "[201]") == NULL, "at most %d links listed",
	    HTML_TEXT_MAX_LINKS);
	free(got);
	free(big);

	big = repeat("<a href=\"", "x", 100000, "\">l</a>");
	got = text(big, 0, NULL);
	TAP_OK(strlen(got) < HTML_TEXT_MAX_URL + 100,
	    "a huge address is cut (%zu bytes out)", strlen(got));
	free(got);
	free(big);

	big = repeat("", "<p>0123456789</p>", 100000, "");
	got = text(big, 1000, &cut);
	TAP_OK(cut == 1 && strlen(got) < 1100,
	    "the text is cut at max (%zu bytes)", strlen(got));
	free(got);
	free(big);

	big = repeat("", "&", 1000000, "");
	got = text(big, 0, NULL);
	TAP_OK(strlen(got) == 1000001, "a million ampersands");
	free(got);
	free(big);

	return TAP_DONE();
}
