/*
 * msg-flags.c: the flag sets of msg-flags.h and their two other forms,
 * the header cache's maildir letters and --flag's "+FS-T".
 */
#include <stdlib.h>
#include <string.h>

#include "msg-flags.h"
#include "xmalloc.h"

/* Bit i is the letter at index i. */
static const char	msg_flags_abc[] = "DFRST";

static msg_flags
msg_flags_bit(int letter)
{
	const char	*p;

	if (letter == '\0' || (p = strchr(msg_flags_abc, letter)) == NULL)
		return 0;
	return 1u << (p - msg_flags_abc);
}

msg_flags
msg_flags_of(const char *letters)
{
	msg_flags	f = 0;

	for (; letters != NULL && *letters != '\0'; letters++)
		f |= msg_flags_bit((unsigned char)*letters);
	return f;
}

void
msg_flags_letters(msg_flags f, char out[MSG_FLAGS_SIZE])
{
	size_t	i, n = 0;

	for (i = 0; msg_flags_abc[i] != '\0'; i++) {
		if (f & (1u << i))
			out[n++] = msg_flags_abc[i];
	}
	out[n] = '\0';
}

int
msg_flags_parse(const char *arg, msg_flags *add, msg_flags *remove,
    char **cause)
{
	const char	*p;
	msg_flags	 a = 0, r = 0, *set = NULL, bit;
	char		 both[MSG_FLAGS_SIZE];
	int		 n = 0;

	for (p = arg; *p != '\0'; p++) {
		if (*p == '+' || *p == '-') {
			if (set != NULL && n == 0)
				goto empty;
			set = *p == '+' ? &a : &r;
			n = 0;
			continue;
		}
		if (set == NULL) {
			*cause = xasprintf("flags \"%s\" must start with + "
			    "(add) or - (remove)", arg);
			return -1;
		}
		if ((bit = msg_flags_bit((unsigned char)*p)) == 0) {
			*cause = xasprintf("'%c' in \"%s\" is not a flag "
			    "letter (D draft, F flagged, R replied, S seen, "
			    "T deleted)", *p, arg);
			return -1;
		}
		*set |= bit;
		n++;
	}
	if (set == NULL || n == 0)
		goto empty;
	if ((a & r) != 0) {
		msg_flags_letters(a & r, both);
		*cause = xasprintf("flags \"%s\" both add and remove %s", arg,
		    both);
		return -1;
	}
	*add = a;
	*remove = r;
	return 0;

empty:
	*cause = xasprintf("flags \"%s\": a + or - with no letters after it",
	    arg);
	return -1;
}
