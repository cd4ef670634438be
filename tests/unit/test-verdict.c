/*
 * test-verdict.c: steedmail's one vocabulary (src/verdict.c): every trust
 * state and protection verdict has a word, a tone and a sentence; words
 * are unique; each trust state that has a glyph has its own, one column
 * wide in UTF-8 and ASCII; the legend holds each glyph once. With
 * --legend it prints the legend instead, "ASCII MEANING" a line, for
 * tests/shell/docs.sh to find in steedmail(1).
 */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "verdict.h"
#include "tap.h"

static int
one_column(const char *s)
{
	wchar_t	wc;
	size_t	n;

	n = mbrtowc(&wc, s, strlen(s), NULL);
	return n == strlen(s) && wcwidth(wc) == 1;
}

int
main(int argc, char **argv)
{
	const struct verdict_word	*w, *v, *all[64];
	size_t				 i, j, n = 0;
	int				 bad;

	if (argc > 1 && strcmp(argv[1], "--legend") == 0) {
		for (i = 0; (w = verdict_legend(i)) != NULL; i++)
			printf("%s %s\n", w->ascii, w->word);
		return 0;
	}
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		setlocale(LC_CTYPE, "en_US.UTF-8");

	for (i = TRUST_NONE; i <= TRUST_VERIFIED; i++)
		all[n++] = verdict_trust(i);
	for (i = 0; i < VERDICT_PROTECTION_COUNT; i++)
		all[n++] = verdict_protection(i);
	all[n++] = verdict_dns_bogus();

	for (bad = 0, i = 0; i < n; i++) {
		if (all[i]->word == NULL || *all[i]->word == '\0' ||
		    all[i]->token == NULL || all[i]->explain == NULL ||
		    all[i]->explain[strlen(all[i]->explain) - 1] != '.')
			bad++;
	}
	TAP_OK(bad == 0, "each has a token, a word and a sentence");
	for (bad = 0, i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (strcmp(all[i]->word, all[j]->word) == 0 ||
			    strcmp(all[i]->token, all[j]->token) == 0)
				bad++;
	TAP_OK(bad == 0, "no two share a word or a token");
	for (i = TRUST_NONE; i <= TRUST_VERIFIED; i++)
		TAP_STR(verdict_trust(i)->token, trust_state_name(i),
		    "the token of %s is the trust store's name",
		    trust_state_name(i));

	for (bad = 0, i = 0; i < n; i++) {
		if (all[i]->utf8 == NULL)
			continue;
		if (!one_column(all[i]->utf8) || strlen(all[i]->ascii) != 1 ||
		    (unsigned char)*all[i]->utf8 < 0x80)
			bad++;
	}
	TAP_OK(bad == 0, "each glyph is one column, and not ASCII in UTF-8");
	for (bad = 0, i = TRUST_NONE; i <= TRUST_VERIFIED; i++) {
		w = verdict_trust(i);
		if (w->utf8 == NULL)
			continue;
		for (j = i + 1; j <= TRUST_VERIFIED; j++) {
			v = verdict_trust(j);
			if (v->utf8 != NULL && (strcmp(w->utf8, v->utf8) == 0 ||
			    strcmp(w->ascii, v->ascii) == 0))
				bad++;
		}
		if (strcmp(w->utf8, verdict_dns_bogus()->utf8) == 0)
			bad++;
	}
	TAP_OK(bad == 0, "each trust state has a glyph of its own");
	TAP_OK(verdict_trust(TRUST_NONE)->utf8 == NULL &&
	    verdict_trust(TRUST_UNSIGNED)->utf8 == NULL,
	    "no key and not signed have no glyph");

	/* the tones the issue of contradictions asked to settle */
	TAP_OK(verdict_trust(TRUST_CONFLICT)->tone == VERDICT_BAD,
	    "a DNS conflict is bad");
	TAP_OK(verdict_trust(TRUST_KEY_CHANGED)->tone == VERDICT_BAD,
	    "a changed key is bad");
	TAP_OK(verdict_trust(TRUST_EXPIRED)->tone == VERDICT_WARN,
	    "an expired key is a warning: no attack, but no encryption");
	TAP_OK(verdict_trust(TRUST_FIRST_CONTACT)->tone == VERDICT_WARN,
	    "first contact is a warning");
	TAP_OK(verdict_protection(VERDICT_UNCHECKED)->tone == VERDICT_WARN &&
	    strstr(verdict_protection(VERDICT_UNCHECKED)->word, "signed") !=
	    NULL, "a signature not checked: signed, and a warning, not bad");
	TAP_OK(strstr(verdict_protection(VERDICT_UNCHECKED)->word, "NOT") ==
	    NULL && strstr(verdict_trust(TRUST_UNSIGNED)->word, "unsigned") ==
	    NULL, "no shouting, and no \"unsigned\" for a state a signed "
	    "message can have");
	for (bad = 0, i = 0; i < n; i++)
		if (strstr(all[i]->word, "not verified") != NULL)
			bad++;
	TAP_OK(bad == 0, "\"not verified\" is no verdict's word");

	for (bad = 0, i = 0; (w = verdict_legend(i)) != NULL; i++)
		for (j = 0; j < i; j++)
			if (strcmp(verdict_legend(j)->utf8, w->utf8) == 0)
				bad++;
	TAP_OK(bad == 0 && i == 2 + 8 + 1, "the legend: 2 protection glyphs, "
	    "8 trust glyphs, the bogus mark, each once");
	TAP_STR(verdict_tone_name(VERDICT_BAD), "bad", "tone names");
	TAP_OK(verdict_trust(99) == verdict_trust(TRUST_NONE) &&
	    verdict_protection(99) == verdict_protection(VERDICT_CLEAR),
	    "out of range: the neutral entry");
	return tap_failed != 0;
}
