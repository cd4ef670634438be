/*
 * discover-int.h: what the files of discovery share (setup_discover(),
 * setup.h step 1): the candidates found so far, where each came from,
 * and the documents (autoconfig, provider files) that named some of
 * them.
 *
 *   discover.c          the order of the steps, the probes, the pick
 *   discover-dns.c      SRV records, MX hosts, the usual names
 *   discover-web.c      the domain's autoconfig document over HTTPS
 *   discover-doc.c      a config-v1.1 document (from the web or a
 *                       provider file) into candidates; the provider
 *                       files by domain and by MX host; what the chosen
 *                       document asks of the person
 */
#ifndef STEED_DISCOVER_INT_H
#define STEED_DISCOVER_INT_H

#include <pthread.h>

#include "autoconfig.h"
#include "buf.h"
#include "dns-query.h"
#include "net-https.h"
#include "provider.h"
#include "setup-int.h"

#define DISCOVER_DNS_MS		3000	/* at most, for all DNS questions */
#define DISCOVER_PROBE_SECONDS	3	/* per connection and exchange, and
					   per autoconfig request */

/* One server to try, and what trying it found. */
struct discover_cand {
	enum setup_which	 which;
	struct config_url	 url;
	enum setup_origin	 origin;
	char			*from;		/* where it came from, words */
	const struct config	*cf;
	int			 verified;
	char			*cause;		/* the probe's failure */
	pthread_t		 thread;
	int			 started;
	int			 doc;		/* the document that named it
						   (discover.docs), or -1 */
	unsigned		 auth;		/* its methods there
						   (AUTOCONFIG_AUTH_*) */
	char			*user;		/* its login there, filled in;
						   NULL: the address */
};

/* A document that named candidates. */
struct discover_doc {
	const struct autoconfig	*ac;
	char			*from;
};

/* An MX host of the domain, in order of preference. */
struct discover_mx {
	char		*host;
	enum dns_status	 status;	/* of the MX answer */
};

struct discover {
	const struct config	 *cf;
	const char		 *address;
	const char		 *domain;
	struct discover_cand	 *c;
	size_t			  n;
	struct discover_doc	 *docs;
	size_t			  ndocs;
	struct discover_mx	 *mx;
	size_t			  nmx;
	struct setup_found	 *found;
};

/* discover.c */
struct discover_cand *discover_add(struct discover *, enum setup_which,
	    enum config_tls, const char *host, unsigned port,
	    enum setup_origin, char *from);

/* discover-dns.c: the SRV answer for one of the four services. */
struct discover_service {
	const char		*label;		/* _imaps._tcp */
	enum setup_which	 which;
	enum config_tls		 tls;
};
extern const struct discover_service discover_services[];
extern const size_t discover_nservices;
void	 discover_srv(struct discover *, const struct discover_service *,
	    const struct dns_answer *);
/* The MX answer: its hosts into d->mx (by preference), or a note. */
void	 discover_mx(struct discover *, const struct dns_answer *);
/* imap., smtp. and mail. + domain, at the usual ports. */
void	 discover_usual(struct discover *, const char *domain,
	    enum setup_origin, const char *why);
/* The usual names under the domain of each MX host. */
void	 discover_mx_usual(struct discover *);

/* discover-web.c: both autoconfig URLs asked at once, on threads. */
struct discover_fetch {
	char			*url;
	const char		*ca_file;
	struct buf		 body;
	char			*final;
	char			*cause;
	enum net_https_result	 result;
	pthread_t		 thread;
	int			 started;
};
struct discover_web {
	struct discover_fetch	 f[2];
	struct autoconfig	*ac;		/* the document used */
};
void	 discover_web_start(struct discover_web *, const struct config *,
	    const char *address);
/* Wait for them; the first document that reads goes into d. */
void	 discover_web_finish(struct discover_web *, struct discover *);
void	 discover_web_free(struct discover_web *);

/* discover-doc.c */
void	 discover_doc(struct discover *, const struct autoconfig *,
	    enum setup_origin, char *from);
/* The provider files: the address's domain, else its MX hosts'. */
void	 discover_providers(struct discover *, struct provider_list *);
/* The login and the advice of the document the chosen servers came
 * from, into d->found. */
void	 discover_doc_found(struct discover *, const struct discover_cand *imap,
	    const struct discover_cand *smtp);

#endif
