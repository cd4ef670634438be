/*
 * session-int.h: what session.c and session-ops.c share: the session
 * itself. Nothing outside these two files includes it.
 */
#ifndef STEED_SESSION_INT_H
#define STEED_SESSION_INT_H

struct session {
	struct config		*cf;
	const struct account	*a;
	struct cache		*cache;
	struct imap_conn	*conn;
	struct body_cache	*bodies;	/* NULL: none */
	struct search_index	*search;	/* opened when first needed */
	int			 cached;	/* the last fetch was read from
						   the body cache */
	char			*down;	/* why the server is out of reach */
};

#endif
