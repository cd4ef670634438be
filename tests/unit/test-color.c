/*
 * test-color.c: the `color` lines (color.h), alone and as the
 * configuration reads them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "color.h"
#include "config.h"
#include "tap.h"
#include "verdict.h"

static int
parse(const char *line, struct color_line *cl, char **why)
{
	free(*why);
	*why = NULL;
	return color_parse(line, cl, why);
}

int
main(void)
{
	struct color_line	 cl;
	struct config		*cf;
	struct color_value	 v;
	char			*why = NULL, *cause = NULL;
	char			 path[] = "/tmp/steed-color-XXXXXX";
	FILE			*f;
	int			 fd;

	TAP_OK(parse("indicator black cyan", &cl, &why) == 0 &&
	    cl.obj == COLOR_INDICATOR && cl.fg.kind == COLOR_NUMBER &&
	    cl.fg.v == 0 && cl.bg.v == 6 && cl.attrs == 0,
	    "mutt's indicator, two of the eight");
	TAP_OK(parse("status color123 #1a2B3c bold underline", &cl,
	    &why) == 0 && cl.obj == COLOR_STATUS && cl.fg.v == 123 &&
	    cl.bg.kind == COLOR_RGB && cl.bg.v == 0x1a2b3c &&
	    cl.attrs == (COLOR_A_BOLD | COLOR_A_UNDERLINE),
	    "256 and direct colours, attributes after");
	TAP_OK(parse("quoted bold brightred default", &cl, &why) == 0 &&
	    cl.obj == COLOR_QUOTED && cl.fg.v == 9 &&
	    cl.bg.kind == COLOR_DEFAULT && cl.attrs == COLOR_A_BOLD,
	    "mutt's form: attributes first, a bright colour");
	TAP_OK(parse("hdrdefault cyan default", &cl, &why) == 0 &&
	    cl.obj == COLOR_HEADER, "hdrdefault is header");
	TAP_OK(parse("quoted5 red default", &cl, &why) == 0 &&
	    cl.obj == COLOR_QUOTED2, "deeper quotes are the third colour");
	TAP_OK(parse("index red default ~N", &cl, &why) == 0 &&
	    cl.obj == COLOR_INDEX_NEW, "index ~N is index-new");
	TAP_OK(parse("index red default ~f joe", &cl, &why) == 1 &&
	    why != NULL && strstr(why, "ignored") != NULL,
	    "another pattern is skipped: %s", why);
	TAP_OK(parse("sidebar_new red default", &cl, &why) == 1,
	    "a mutt object steedmail does not draw is skipped");
	TAP_OK(parse("trust-key-changed brightwhite red", &cl, &why) == 0 &&
	    cl.obj == COLOR_VERDICT &&
	    cl.word == verdict_trust(TRUST_KEY_CHANGED),
	    "a trust state, by its token in verdict.h");
	TAP_OK(parse("trust-dns-bogus red default", &cl, &why) == 0 &&
	    cl.word == verdict_dns_bogus(), "the bogus DNS answer's mark");
	TAP_OK(parse("protection-signed-encrypted green default", &cl,
	    &why) == 0 && cl.word ==
	    verdict_protection(VERDICT_SIGNED_ENCRYPTED),
	    "a protection verdict");
	TAP_OK(parse("protection-bad-signature red default", &cl, &why) == 0 &&
	    cl.word == verdict_protection(VERDICT_SIG_BAD),
	    "every protection verdict");
	TAP_OK(parse("trust-signed red default", &cl, &why) == -1 &&
	    parse("protection-known red default", &cl, &why) == -1,
	    "a trust token is not a protection one, nor the other way");
	TAP_OK(parse("security-bad white red", &cl, &why) == 0 &&
	    cl.obj == COLOR_SECURITY_BAD && color_obj_class(cl.obj) ==
	    COLOR_CLASS_CHROME, "the security bars are chrome");

	TAP_OK(parse("normal white black reverse", &cl, &why) == -1 &&
	    strstr(why, "reverse") != NULL,
	    "body text is never reverse: %s", why);
	TAP_OK(parse("quoted standout red default", &cl, &why) == -1,
	    "nor standout");
	TAP_OK(parse("index reverse red default", &cl, &why) == -1,
	    "nor an index row of subjects");
	TAP_OK(parse("indicator reverse default default", &cl, &why) == 0,
	    "the cursor row may be");
	TAP_OK(parse("nosuch red default", &cl, &why) == -1 &&
	    strstr(why, "unknown object") != NULL, "unknown object");
	TAP_OK(parse("normal red", &cl, &why) == -1, "one colour only");
	TAP_OK(parse("normal color256 default", &cl, &why) == -1,
	    "color256 is out of range");
	TAP_OK(parse("normal #12345 default", &cl, &why) == -1,
	    "#rrggbb has six digits");
	TAP_OK(parse("normal #12345g default", &cl, &why) == -1,
	    "of hex");
	TAP_OK(parse("normal red default shiny", &cl, &why) == -1 &&
	    strstr(why, "shiny") != NULL, "unknown attribute");
	TAP_OK(parse("", &cl, &why) == -1, "empty");

	TAP_OK(color_to_256(0xff0000) == 196, "#ff0000 is 196 of 256");
	TAP_OK(color_to_256(0x808080) == 244, "#808080 is grey 244");
	v.kind = COLOR_RGB;
	v.v = 0x00c000;
	TAP_OK(color_to_8(&v) == 2, "#00c000 is green of 8");
	v.kind = COLOR_NUMBER;
	v.v = 12;
	TAP_OK(color_to_8(&v) == 4, "bright blue is blue of 8");
	v.v = 196;
	TAP_OK(color_to_8(&v) == 1 && color_rgb(&v) == 0xff0000,
	    "196 is red");

	/* as the configuration reads them */
	if ((fd = mkstemp(path)) == -1 || (f = fdopen(fd, "w")) == NULL)
		return 1;
	fprintf(f, "color = status white blue\n"
	    "color indicator black cyan\n"
	    "  color\tbody red default \"x\"\n");
	fclose(f);
	cf = config_load(path, &cause);
	TAP_OK(cf != NULL && cf->ncolors == 2 &&
	    strcmp(cf->colors[1], "indicator black cyan") == 0 &&
	    cf->nwarnings == 1 && strstr(cf->warnings[0], ":3: color:") !=
	    NULL, "with and without =; a skipped line warns");
	config_free(cf);
	f = fopen(path, "w");
	fprintf(f, "# theme\ncolor normal red default reverse\n");
	fclose(f);
	cf = config_load(path, &cause);
	TAP_OK(cf == NULL && cause != NULL && strstr(cause, ":2: color: ") !=
	    NULL, "a wrong line is an error with its line: %s", cause);
	free(cause);
	unlink(path);
	free(why);
	return TAP_DONE();
}
