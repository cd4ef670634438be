/*
 * sasl.c: SASL credentials (see sasl.h), encoded with the one base64
 * encoder of mime-cte.c.
 */
#include <string.h>

#include "buf.h"
#include "mime-cte.h"
#include "sasl.h"
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
