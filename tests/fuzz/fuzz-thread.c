/*
 * fuzz-thread.c: the thread builder over the Message-ID, In-Reply-To and
 * References a stranger chose (loops, self-references, duplicates,
 * missing parents). Input: one message per line, "message-id<TAB>
 * in-reply-to<TAB>references". The promise checked: every message comes
 * out exactly once, at a depth no deeper than there are messages.
 */
#include "fuzz.h"

#include "thread.h"

#define FUZZ_MAX_MSGS	512

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct thread_msg	 msgs[FUZZ_MAX_MSGS];
	struct thread_pos	 out[FUZZ_MAX_MSGS];
	unsigned char		 seen[FUZZ_MAX_MSGS];
	char			*s, *line, *next, *t;
	size_t			 n = 0, i;

	s = fuzz_str(data, len);
	for (line = s; line != NULL && n < FUZZ_MAX_MSGS; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		memset(&msgs[n], 0, sizeof msgs[n]);
		msgs[n].message_id = line;
		if ((t = strchr(line, '\t')) != NULL) {
			*t++ = '\0';
			msgs[n].in_reply_to = t;
			if ((t = strchr(t, '\t')) != NULL) {
				*t++ = '\0';
				msgs[n].references = t;
			}
		}
		msgs[n].date = (time_t)(len - n);
		n++;
	}
	thread_build(msgs, n, (int)(len & 1), out);
	memset(seen, 0, sizeof seen);
	for (i = 0; i < n; i++) {
		FUZZ_ASSERT(out[i].msg < n && !seen[out[i].msg]);
		seen[out[i].msg] = 1;
		FUZZ_ASSERT(out[i].depth <= n);
	}
	free(s);
	return 0;
}
