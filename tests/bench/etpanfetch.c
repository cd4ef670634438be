/*
 * etpanfetch: the reference points of `make bench`.
 *
 *   etpanfetch [-i ITEMS] [-w [-n COUNT] [-B BATCH] [-b NS] | -s] HOST PORT
 *       CA-FILE USER PASSWORD [MAILBOX]
 *
 * Connects over TLS checked as steedmail checks it (net-tls.h), logs in,
 * selects MAILBOX (INBOX) and asks once for
 *   UID FETCH 1:* (UID FLAGS INTERNALDATE RFC822.SIZE ENVELOPE)
 * By default through mailimap_uid_fetch, which parses the whole answer
 * into one list (the "libetpan one-shot" figure). With -w the command is
 * written by hand and the answer read and thrown away up to the tagged
 * reply, without any parsing (the "wire floor"); -i ITEMS asks for
 * "(ITEMS)" there instead, such as the items steedmail's sync asks for, so
 * that the floor is of the same answer; -n COUNT asks for the newest COUNT
 * messages only, by sequence numbers (what steedmail's cold open asks for
 * first: the server's part of its first screen); -b NS makes the reader
 * also use NS nanoseconds of CPU for each message that came, after each
 * read (a client that reads at once and spends a client's CPU, without
 * any other work: how fast a sync using that much CPU could be on this
 * machine, beside the server); -B BATCH asks as steedmail's cold sync
 * does instead of in one FETCH: by sequence numbers going down, the
 * newest 200 alone, then BATCH at a time with two more asked for ahead
 * of the one being read (the server's part of the sync as it asks). With
 * -s it only selects
 * (the bench uses that to let the server catch up with a change made
 * behind its back). Prints the number of messages (or bytes, with -w) to
 * stdout; exits 1 on any failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libetpan/libetpan.h>

#include "net-tls.h"

static void
die(const char *what, const char *cause)
{
	fprintf(stderr, "etpanfetch: %s%s%s\n", what, cause ? ": " : "",
	    cause ? cause : "");
	exit(1);
}

static struct mailimap_fetch_type *
fetch_type(void)
{
	struct mailimap_fetch_type	*ft;

	ft = mailimap_fetch_type_new_fetch_att_list_empty();
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_uid());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_flags());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_internaldate());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_rfc822_size());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_envelope());
	return ft;
}

static void
one_shot(mailimap *imap)
{
	struct mailimap_fetch_type	*ft = fetch_type();
	struct mailimap_set		*set = mailimap_set_new_interval(1, 0);
	clist				*res = NULL;
	int				 r;

	r = mailimap_uid_fetch(imap, set, ft, &res);
	mailimap_set_free(set);
	mailimap_fetch_type_free(ft);
	if (r != MAILIMAP_NO_ERROR)
		die("UID FETCH failed", imap->imap_response);
	printf("%u\n", clist_count(res));
	mailimap_fetch_list_free(res);
}

/* Use ns nanoseconds of this process's CPU. */
static void
burn(uint64_t ns)
{
	struct timespec	ts;
	uint64_t	start, now;

	if (ns == 0)
		return;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	start = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	do {
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	} while (now - start < ns);
}

/*
 * Send the FETCH and read until the tagged reply, matching the tag at the
 * start of each line as the bytes come (a line may span two reads).
 */
static void
wire_floor(mailimap *imap, const char *items, unsigned newest,
    uint64_t burn_ns)
{
	static const char	 tag[] = "bench1 ";
	mailstream		*s = imap->imap_stream;
	char			 buf[65536], line[sizeof tag], cmd[1024];
	size_t			 have = 0, total = 0, msgs;
	ssize_t			 n, i;
	int			 at_start = 1, in_tag = 0, len;
	uint32_t		 exists = imap->imap_selection_info->sel_exists;

	if (newest > 0 && exists > newest)
		len = snprintf(cmd, sizeof cmd, "%sFETCH %u:* (%s)\r\n", tag,
		    (unsigned)(exists - newest + 1), items);
	else
		len = snprintf(cmd, sizeof cmd, "%sUID FETCH 1:* (%s)\r\n",
		    tag, items);
	if (len < 0 || (size_t)len >= sizeof cmd)
		die("the items are too long", NULL);
	if (mailstream_write(s, cmd, (size_t)len) == -1 ||
	    mailstream_flush(s) == -1)
		die("cannot send the FETCH", NULL);
	/*
	 * Look only at the first bytes of each line: the tagged reply is the
	 * only line starting with our tag (literals in envelopes are sent
	 * with {n} and could in theory hold one, but not in this mailbox).
	 */
	for (;;) {
		if ((n = mailstream_read(s, buf, sizeof buf)) <= 0)
			die("connection lost during FETCH", NULL);
		total += (size_t)n;
		msgs = 0;
		for (i = 0; i < n; i++) {
			if (at_start) {
				at_start = 0;
				msgs += buf[i] == '*';
				in_tag = 1;
				have = 0;
			}
			if (in_tag) {
				line[have++] = buf[i];
				if (line[have - 1] != tag[have - 1])
					in_tag = 0;
				else if (have == sizeof tag - 1)
					goto tagged;
			}
			if (buf[i] == '\n')
				at_start = 1;
		}
		burn(msgs * burn_ns);
	}
tagged:
	/* Read on to the end of the tagged line. */
	for (;;) {
		for (; i < n; i++)
			if (buf[i] == '\n')
				goto done;
		if ((n = mailstream_read(s, buf, sizeof buf)) <= 0)
			die("connection lost during FETCH", NULL);
		total += (size_t)n;
		i = 0;
	}
done:
	printf("%zu\n", total);
}

/* The bytes of the answers not looked at yet, and how many came in all. */
struct wire {
	mailstream	*s;
	char		 buf[65536];
	size_t		 off, len, total;
	int		 at_start;
};

/* Read on until the line that starts with tag has ended. */
static void
wire_to_tag(struct wire *w, const char *tag, uint64_t burn_ns)
{
	size_t	taglen = strlen(tag), have = 0, msgs;
	ssize_t	n;
	int	in_tag = 0, found = 0;
	char	c;

	for (;;) {
		msgs = 0;
		while (w->off < w->len) {
			c = w->buf[w->off++];
			if (found) {
				if (c == '\n') {
					w->at_start = 1;
					burn(msgs * burn_ns);
					return;
				}
				continue;
			}
			if (w->at_start) {
				w->at_start = 0;
				msgs += c == '*';
				in_tag = 1;
				have = 0;
			}
			if (in_tag) {
				if (c != tag[have])
					in_tag = 0;
				else if (++have == taglen)
					found = 1;
			}
			if (c == '\n')
				w->at_start = 1;
		}
		burn(msgs * burn_ns);
		if ((n = mailstream_read(w->s, w->buf, sizeof w->buf)) <= 0)
			die("connection lost during FETCH", NULL);
		w->off = 0;
		w->len = (size_t)n;
		w->total += (size_t)n;
	}
}

static void
wire_send(mailstream *s, size_t k, size_t lo, size_t hi, const char *items)
{
	char	cmd[1024];
	int	len;

	len = snprintf(cmd, sizeof cmd, "B%zu FETCH %zu:%zu (%s)\r\n", k + 1,
	    lo, hi, items);
	if (len < 0 || (size_t)len >= sizeof cmd)
		die("the items are too long", NULL);
	if (mailstream_write(s, cmd, (size_t)len) == -1 ||
	    mailstream_flush(s) == -1)
		die("cannot send the FETCH", NULL);
}

/*
 * The cold sync's commands: by sequence numbers going down, the newest
 * first (alone) in a batch of first, then batch each, two asked for ahead
 * of the one being read.
 */
static void
wire_batched(mailimap *imap, const char *items, size_t first, size_t batch,
    uint64_t burn_ns)
{
	struct wire	*w;
	size_t		 n = imap->imap_selection_info->sel_exists;
	size_t		 nbatch, sent = 0, done, o, l, lo;
	char		 tag[32];

	if (n == 0)
		die("the mailbox is empty", NULL);
	if ((w = calloc(1, sizeof *w)) == NULL)
		die("out of memory", NULL);
	w->s = imap->imap_stream;
	w->at_start = 1;
	if (first > n)
		first = n;
	nbatch = 1 + (n - first + batch - 1) / batch;
	for (done = 0; done < nbatch; done++) {
		for (; sent < nbatch && sent <= (done == 0 ? 0 : done + 2);
		    sent++) {
			o = sent == 0 ? 0 : first + (sent - 1) * batch;
			l = sent == 0 ? first : batch;
			if (l > n - o)
				l = n - o;
			lo = n - o - l + 1;
			wire_send(w->s, sent, lo, lo + l - 1, items);
		}
		snprintf(tag, sizeof tag, "B%zu ", done + 1);
		wire_to_tag(w, tag, burn_ns);
	}
	printf("%zu\n", w->total);
	free(w);
}

int
main(int argc, char **argv)
{
	struct net_tls_policy	 p;
	mailstream		*s;
	mailimap		*imap;
	char			*cause = NULL;
	const char		*mailbox;
	const char		*items = "UID FLAGS INTERNALDATE RFC822.SIZE "
				    "ENVELOPE";
	int			 fd, r, wire = 0, select_only = 0;
	unsigned		 newest = 0;
	size_t			 batch = 0;
	uint64_t		 burn_ns = 0;

	if (argc > 2 && strcmp(argv[1], "-i") == 0) {
		items = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc > 1 && strcmp(argv[1], "-w") == 0) {
		wire = 1;
		argc--;
		argv++;
		if (argc > 2 && strcmp(argv[1], "-n") == 0) {
			newest = (unsigned)strtoul(argv[2], NULL, 10);
			argc -= 2;
			argv += 2;
		}
		if (argc > 2 && strcmp(argv[1], "-B") == 0) {
			batch = strtoul(argv[2], NULL, 10);
			argc -= 2;
			argv += 2;
		}
		if (argc > 2 && strcmp(argv[1], "-b") == 0) {
			burn_ns = strtoull(argv[2], NULL, 10);
			argc -= 2;
			argv += 2;
		}
	} else if (argc > 1 && strcmp(argv[1], "-s") == 0) {
		select_only = 1;
		argc--;
		argv++;
	}
	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: etpanfetch [-i ITEMS] [-w [-n COUNT] "
		    "[-B BATCH] [-b NS] | -s] HOST PORT CA-FILE USER PASSWORD "
		    "[MAILBOX]\n");
		return 2;
	}
	mailbox = argc == 7 ? argv[6] : "INBOX";

	memset(&p, 0, sizeof p);
	p.host = argv[1];
	p.ca_file = argv[3];
	p.timeout = 120;
	if ((fd = net_connect(argv[1], (unsigned)atoi(argv[2]), p.timeout,
	    &cause)) == -1)
		die("connect", cause);
	if ((s = net_tls_open(fd, &p, &cause)) == NULL)
		die("TLS", cause);
	if ((imap = mailimap_new(0, NULL)) == NULL)
		die("out of memory", NULL);
	mailimap_set_timeout(imap, p.timeout);
	r = mailimap_connect(imap, s);
	if (r != MAILIMAP_NO_ERROR_NON_AUTHENTICATED &&
	    r != MAILIMAP_NO_ERROR_AUTHENTICATED)
		die("no IMAP greeting", NULL);
	if (mailimap_login(imap, argv[4], argv[5]) != MAILIMAP_NO_ERROR)
		die("LOGIN refused", imap->imap_response);
	if (mailimap_select(imap, mailbox) != MAILIMAP_NO_ERROR)
		die("SELECT failed", imap->imap_response);

	if (select_only)
		printf("%u\n", imap->imap_selection_info->sel_exists);
	else if (wire && batch > 0)
		wire_batched(imap, items, 200, batch, burn_ns);
	else if (wire)
		wire_floor(imap, items, newest, burn_ns);
	else
		one_shot(imap);

	/* No LOGOUT: both figures are about the FETCH, not the goodbye. */
	mailstream_close(imap->imap_stream);
	imap->imap_stream = NULL;
	mailimap_free(imap);
	return 0;
}
