/*
 * testhosts.c: an LD_PRELOAD library for the tests, so that steedmail can
 * reach tests/env's servers by the names the test zones give them.
 *
 * getaddrinfo() of a name listed in $STEED_TEST_HOSTS (names separated by
 * blanks, compared without regard to case, a trailing dot ignored) answers
 * 127.0.0.1, as if the machine's resolver had found an A record; any other
 * name goes to the real getaddrinfo() (dlsym RTLD_NEXT). For those names
 * only, $STEED_TEST_PORTS ("993:40001 465:40002 ...") moves the usual
 * ports to where the test servers listen, so that probing imap.NAME:993
 * reaches the test Dovecot. freeaddrinfo()
 * tells our answers from the real ones by where their address lies.
 *
 * Loaded through tests/lib.sh's with_test_hosts only. Production code
 * never knows about it; it must never answer a name not listed.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <dlfcn.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef int (*gai_fn)(const char *, const char *, const struct addrinfo *,
    struct addrinfo **);
typedef void (*fai_fn)(struct addrinfo *);

#define TESTHOSTS_MAGIC 0x7e57d057UL

/*
 * One answer: the addrinfo and its address in one allocation, the magic
 * number between them. glibc puts its address right after the addrinfo,
 * so where ai_addr points tells ours from its without reading past the
 * addrinfo the caller hands back.
 */
struct testhosts_answer {
	struct addrinfo		ai;
	unsigned long		magic;
	struct sockaddr_in	sin;
};

/* Is name listed in $STEED_TEST_HOSTS? */
static int
testhosts_listed(const char *name)
{
	const char	*list, *p, *end;
	size_t		 len, n;

	if (name == NULL || (list = getenv("STEED_TEST_HOSTS")) == NULL)
		return (0);
	len = strlen(name);
	if (len > 0 && name[len - 1] == '.')
		len--;
	if (len == 0)
		return (0);
	p = list;
	while (*p != '\0') {
		while (*p != '\0' && isspace((unsigned char)*p))
			p++;
		end = p;
		while (*end != '\0' && !isspace((unsigned char)*end))
			end++;
		n = end - p;
		if (n > 0 && p[n - 1] == '.')
			n--;
		if (n == len && strncasecmp(p, name, len) == 0)
			return (1);
		p = end;
	}
	return (0);
}

/* The port $STEED_TEST_PORTS puts in place of port n, or n. */
static unsigned long
testhosts_moved(unsigned long n)
{
	const char	*p;
	char		*end;
	unsigned long	 from, to;

	if ((p = getenv("STEED_TEST_PORTS")) == NULL)
		return (n);
	while (*p != '\0') {
		from = strtoul(p, &end, 10);
		if (end == p || *end != ':')
			break;
		p = end + 1;
		to = strtoul(p, &end, 10);
		if (end == p)
			break;
		if (from == n && to > 0 && to <= 65535)
			return (to);
		p = end;
		while (*p != '\0' && isspace((unsigned char)*p))
			p++;
	}
	return (n);
}

/* The port of service: a number only (the tests never give names). */
static int
testhosts_port(const char *service, const struct addrinfo *hints,
    unsigned short *port)
{
	char		*end;
	unsigned long	 n;

	*port = 0;
	if (service == NULL)
		return (0);
	n = strtoul(service, &end, 10);
	if (*service == '\0' || *end != '\0' || n > 65535) {
		if (hints != NULL && (hints->ai_flags & AI_NUMERICSERV))
			return (EAI_NONAME);
		return (EAI_SERVICE);
	}
	*port = htons((unsigned short)testhosts_moved(n));
	return (0);
}

int
getaddrinfo(const char *node, const char *service,
    const struct addrinfo *hints, struct addrinfo **res)
{
	static gai_fn		 real;
	struct testhosts_answer	*a;
	unsigned short		 port;
	int			 r;

	if (!testhosts_listed(node)) {
		if (real == NULL)
			real = (gai_fn)dlsym(RTLD_NEXT, "getaddrinfo");
		if (real == NULL)
			return (EAI_SYSTEM);
		return (real(node, service, hints, res));
	}
	if (hints != NULL && hints->ai_family != AF_UNSPEC &&
	    hints->ai_family != AF_INET)
		return (EAI_ADDRFAMILY);
	if ((r = testhosts_port(service, hints, &port)) != 0)
		return (r);

	if ((a = calloc(1, sizeof *a)) == NULL)
		return (EAI_MEMORY);
	a->magic = TESTHOSTS_MAGIC;
	a->sin.sin_family = AF_INET;
	a->sin.sin_port = port;
	a->sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a->ai.ai_family = AF_INET;
	a->ai.ai_socktype = hints != NULL ? hints->ai_socktype : 0;
	if (a->ai.ai_socktype == 0)
		a->ai.ai_socktype = SOCK_STREAM;
	a->ai.ai_protocol = hints != NULL ? hints->ai_protocol : 0;
	a->ai.ai_addrlen = sizeof a->sin;
	a->ai.ai_addr = (struct sockaddr *)&a->sin;
	*res = &a->ai;
	return (0);
}

void
freeaddrinfo(struct addrinfo *ai)
{
	static fai_fn		 real;
	struct testhosts_answer	*a;

	if (ai == NULL)
		return;
	a = (struct testhosts_answer *)ai;
	if (ai->ai_addr == (struct sockaddr *)&a->sin &&
	    a->magic == TESTHOSTS_MAGIC) {
		a->magic = 0;
		free(a);
		return;
	}
	if (real == NULL)
		real = (fai_fn)dlsym(RTLD_NEXT, "freeaddrinfo");
	if (real != NULL)
		real(ai);
}
