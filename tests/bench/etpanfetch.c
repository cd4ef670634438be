/*
 * etpanfetch: the reference points of `make bench`.
 *
 *   etpanfetch [-i ITEMS] [-w [-n COUNT] [-b NS] | -s] HOST PORT CA-FILE USER
 *       PASSWORD [MAILBOX]
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
 * machine, beside the server). With -s it only selects
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
		    "[-b NS] | -s] HOST PORT CA-FILE USER PASSWORD "
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
