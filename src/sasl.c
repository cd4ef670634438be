/*
 * sasl.c: SASL credentials (see sasl.h), encoded with the one base64
 * encoder of mime-cte.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "mime-cte.h"
#include "sasl.h"
#include "strsafe.h"
#include "xmalloc.h"

static char *
sasl_encode(struct buf *in)
{
	struct buf	out;
	char		*s;

	buf_init(&out);
	mime_cte_base64_encode(&out, in->data != NULL ? in->data : "",
	    in->len, 0);
	if (in->data != NULL)
		explicit_bzero(in->data, in->len);
	buf_free(in);
	s = xstrndup(out.data != NULL ? out.data : "", out.len);
	if (out.data != NULL)
		explicit_bzero(out.data, out.len);
	buf_free(&out);
	return s;
}

char *
sasl_plain(const char *user, const char *password)
{
	struct buf	in;

	buf_init(&in);
	buf_addc(&in, '\0');
	buf_adds(&in, user);
	buf_addc(&in, '\0');
	buf_adds(&in, password);
	return sasl_encode(&in);
}

char *
sasl_base64(const char *s)
{
	struct buf	in;

	buf_init(&in);
	buf_adds(&in, s);
	return sasl_encode(&in);
}

/* A user name in a GS2 header: ',' and '=' are escaped (RFC 5801). */
static void
sasl_gs2_name(struct buf *b, const char *user)
{
	for (; *user != '\0'; user++) {
		if (*user == ',')
			buf_adds(b, "=2C");
		else if (*user == '=')
			buf_adds(b, "=3D");
		else
			buf_addc(b, *user);
	}
}

char *
sasl_oauthbearer(const char *user, const char *host, unsigned port,
    const char *token)
{
	struct buf	in;
	char		num[16];

	buf_init(&in);
	buf_adds(&in, "n,a=");
	sasl_gs2_name(&in, user);
	buf_adds(&in, ",\001host=");
	buf_adds(&in, host);
	snprintf(num, sizeof num, "%u", port);
	buf_adds(&in, "\001port=");
	buf_adds(&in, num);
	buf_adds(&in, "\001auth=Bearer ");
	buf_adds(&in, token);
	buf_adds(&in, "\001\001");
	return sasl_encode(&in);
}

char *
sasl_xoauth2(const char *user, const char *token)
{
	struct buf	in;

	buf_init(&in);
	buf_adds(&in, "user=");
	buf_adds(&in, user);
	buf_adds(&in, "\001auth=Bearer ");
	buf_adds(&in, token);
	buf_adds(&in, "\001\001");
	return sasl_encode(&in);
}

char *
sasl_oauth_error(const char *b64)
{
	struct buf	 raw, b;
	json_t		*j;
	json_error_t	 err;
	const char	*status, *scope;
	char		*s;

	buf_init(&raw);
	if (mime_cte_base64_decode(&raw, b64, strlen(b64)) == -1 ||
	    raw.len == 0 || raw.len > 4096) {
		buf_free(&raw);
		return NULL;
	}
	j = json_loadb(raw.data, raw.len, JSON_REJECT_DUPLICATES, &err);
	buf_free(&raw);
	if (j == NULL || !json_is_object(j)) {
		json_decref(j);
		return NULL;
	}
	status = json_string_value(json_object_get(j, "status"));
	scope = json_string_value(json_object_get(j, "scope"));
	buf_init(&b);
	buf_adds(&b, "status ");
	buf_adds(&b, status != NULL ? status : "(none)");
	if (scope != NULL) {
		buf_adds(&b, ", scope ");
		buf_adds(&b, scope);
	}
	json_decref(j);
	s = strsafe(b.data, 0);
	buf_free(&b);
	return s;
}
