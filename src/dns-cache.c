/*
 * dns-cache.c: the DNS answer cache of dns-cache.h.
 *
 * Owner names are the only keys and are made by dns_owner_name() from an
 * address, never taken from an answer. Records are stored as their RDATA,
 * each preceded by its length in two octets, and parsed again on the way
 * out with the same parser live answers go through. It is opened with
 * db_open() as a cache: a file that is not ours, of another version, or
 * that SQLite finds corrupt, is deleted and created anew.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "buf.h"
#include "dns-cache.h"
#include "db.h"
#include "log.h"
#include "xmalloc.h"

#define DNS_CACHE_APP_ID	0x53544443	/* "STDC" */
#define DNS_CACHE_VERSION	1

struct dns_cache {
	sqlite3		*db;
	char		*path;
	int		 broken;	/* delete the file on close */
	sqlite3_stmt	*get, *put, *del;
};

static const char dns_cache_schema[] =
    "CREATE TABLE answer ("
    " owner TEXT NOT NULL,"
    " type INTEGER NOT NULL,"
    " status TEXT NOT NULL,"
    " secure_denial INTEGER NOT NULL,"
    " expires INTEGER NOT NULL,"
    " rdata BLOB,"
    " PRIMARY KEY (owner, type)) WITHOUT ROWID;";

static int
dns_cache_fail(struct dns_cache *c, const char *what, char **cause)
{
	return db_fail(c->db, "DNS cache", c->path, what, &c->broken, cause);
}

static const struct db_schema dns_cache_db = {
	"DNS cache", DNS_CACHE_APP_ID, dns_cache_schema, NULL,
	DNS_CACHE_VERSION, "NORMAL", 1
};

struct dns_cache *
dns_cache_open(const char *path, char **cause)
{
	struct dns_cache	*c;

	c = xcalloc(1, sizeof *c);
	c->path = xstrdup(path);
	if ((c->db = db_open(c->path, &dns_cache_db, cause)) == NULL) {
		free(c->path);
		free(c);
		return NULL;
	}
	if (sqlite3_prepare_v2(c->db, "SELECT status, secure_denial, "
	    "expires, rdata FROM answer WHERE owner = ? AND type = ?", -1,
	    &c->get, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(c->db, "INSERT OR REPLACE INTO answer (owner, "
	    "type, status, secure_denial, expires, rdata) VALUES "
	    "(?,?,?,?,?,?)", -1, &c->put, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(c->db, "DELETE FROM answer WHERE expires <= ?",
	    -1, &c->del, NULL) != SQLITE_OK) {
		dns_cache_fail(c, "cannot prepare", cause);
		dns_cache_close(c);
		return NULL;
	}
	return c;
}

void
dns_cache_close(struct dns_cache *c)
{
	if (c == NULL)
		return;
	sqlite3_finalize(c->get);
	sqlite3_finalize(c->put);
	sqlite3_finalize(c->del);
	sqlite3_close(c->db);
	if (c->broken)
		db_unlink(c->path);
	free(c->path);
	free(c);
}

/* The length-prefixed RDATA in blob into r->records; -1 if malformed. */
static int
dns_cache_records(const unsigned char *blob, size_t len, enum dns_type type,
    struct dns_result *r)
{
	struct dns_record	 rec;
	size_t			 off = 0, n;
	char			*cause = NULL;

	while (off < len) {
		if (len - off < 2)
			return -1;
		n = (size_t)blob[off] << 8 | blob[off + 1];
		off += 2;
		if (n > len - off ||
		    dns_parse_rdata(type, blob + off, n, &rec, &cause) == -1) {
			free(cause);
			return -1;
		}
		r->records = xreallocarray(r->records, r->nrecords + 1,
		    sizeof *r->records);
		r->records[r->nrecords++] = rec;
		off += n;
	}
	return 0;
}

int
dns_cache_get(struct dns_cache *c, const char *owner, enum dns_type type,
    time_t now, struct dns_result *r, char **cause)
{
	sqlite3_stmt	*st = c->get;
	const char	*status;
	int64_t		 expires;
	size_t		 i;
	int		 rc, found = 0;

	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, owner, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, (int)type);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		sqlite3_reset(st);
		return dns_cache_fail(c, "read", cause);
	}
	if (rc == SQLITE_ROW &&
	    (expires = sqlite3_column_int64(st, 2)) > (int64_t)now) {
		status = (const char *)sqlite3_column_text(st, 0);
		found = 1;
		if (status != NULL && strcmp(status, "secure") == 0)
			r->status = DNS_SECURE;
		else if (status != NULL && strcmp(status, "insecure") == 0)
			r->status = DNS_INSECURE;
		else if (status != NULL && strcmp(status, "none") == 0)
			r->status = DNS_NONE;
		else
			found = 0;
		r->secure_denial = r->status == DNS_NONE &&
		    sqlite3_column_int(st, 1) != 0;
		r->ttl = (uint32_t)(expires - now);
		r->cached = 1;
		if (found && r->status != DNS_NONE &&
		    (dns_cache_records(sqlite3_column_blob(st, 3),
		    (size_t)sqlite3_column_bytes(st, 3), type, r) == -1 ||
		    r->nrecords == 0))
			found = 0;
		if (!found) {
			/* A row we did not write: ask again. */
			for (i = 0; i < r->nrecords; i++)
				free(r->records[i].data);
			free(r->records);
			r->records = NULL;
			r->nrecords = 0;
			r->cached = 0;
			r->ttl = 0;
			r->secure_denial = 0;
		}
	}
	sqlite3_reset(st);
	return found;
}

int
dns_cache_put(struct dns_cache *c, const char *owner, enum dns_type type,
    time_t now, const struct dns_result *r, char **cause)
{
	sqlite3_stmt		*st = c->put;
	const struct dns_record	*rec;
	struct buf		 b;
	uint32_t		 ttl = r->ttl;
	unsigned char		 hdr[5];
	size_t			 i, n;
	int			 rc;

	if (r->status != DNS_SECURE && r->status != DNS_INSECURE &&
	    r->status != DNS_NONE)
		return 0;
	if (ttl > DNS_CACHE_MAX_TTL)
		ttl = DNS_CACHE_MAX_TTL;
	if (r->status == DNS_NONE && ttl > DNS_CACHE_NEG_TTL)
		ttl = DNS_CACHE_NEG_TTL;
	if (ttl == 0)
		return 0;
	buf_init(&b);
	for (i = 0; i < r->nrecords; i++) {
		rec = &r->records[i];
		n = rec->len + (type == DNS_SMIMEA ? 3 : 0);
		if (n > 65535)
			continue;
		hdr[0] = (unsigned char)(n >> 8);
		hdr[1] = (unsigned char)n;
		hdr[2] = rec->usage;
		hdr[3] = rec->selector;
		hdr[4] = rec->mtype;
		buf_add(&b, hdr, type == DNS_SMIMEA ? 5 : 2);
		buf_add(&b, rec->data, rec->len);
	}
	/* Expired rows go now and then: on every write is cheap enough. */
	sqlite3_reset(c->del);
	sqlite3_bind_int64(c->del, 1, (int64_t)now);
	sqlite3_step(c->del);
	sqlite3_reset(c->del);

	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, owner, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, (int)type);
	sqlite3_bind_text(st, 3, dns_status_name(r->status), -1,
	    SQLITE_STATIC);
	sqlite3_bind_int(st, 4, r->secure_denial ? 1 : 0);
	sqlite3_bind_int64(st, 5, (int64_t)now + ttl);
	if (b.len > 0)
		sqlite3_bind_blob(st, 6, b.data, (int)b.len, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 6);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	buf_free(&b);
	if (rc != SQLITE_DONE)
		return dns_cache_fail(c, "write", cause);
	return 0;
}
