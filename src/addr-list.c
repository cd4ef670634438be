/*
 * addr-list.c: addresses out of header fields (see addr-list.h).
 *
 * Comparison is done on lower-cased addresses, local part included: mail
 * systems that treat "Alice" and "alice" as different mailboxes exist in
 * theory only, and Autocrypt Level 1 asks for exactly this comparison.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <libetpan/libetpan.h>

#include "addr-list.h"
#include "mime-header.h"
#include "xmalloc.h"

char *
addr_list_lower(const char *s)
{
	char	*l = xstrdup(s), *p;

	for (p = l; *p != '\0'; p++)
		*p = tolower((unsigned char)*p);
	return l;
}

int
addr_list_same(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcasecmp(a, b) == 0;
}

static void
addr_list_push(char ***v, size_t *n, const char *a)
{
	if (a == NULL || *a == '\0' || strchr(a, '@') == NULL)
		return;
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = addr_list_lower(a);
}

static void
addr_list_mailboxes(struct mailimf_mailbox_list *l, char ***v, size_t *n)
{
	clistiter			*it;
	struct mailimf_mailbox		*mb;

	if (l == NULL)
		return;
	for (it = clist_begin(l->mb_list); it != NULL; it = clist_next(it)) {
		mb = clist_content(it);
		addr_list_push(v, n, mb->mb_addr_spec);
	}
}

void
addr_list_get(const struct mime_header *h, const char *name, char ***v,
    size_t *n)
{
	const struct mime_field		*f = NULL;
	struct mailimf_address_list	*al;
	struct mailimf_address		*a;
	clistiter			*it;
	size_t				 len, idx;
	char				*s;

	while ((f = mime_header_find(h, name, f)) != NULL) {
		s = mime_header_unfold(f, &len);
		idx = 0;
		if (strlen(s) == len && mailimf_address_list_parse(s, len,
		    &idx, &al) == MAILIMF_NO_ERROR) {
			for (it = clist_begin(al->ad_list); it != NULL;
			    it = clist_next(it)) {
				a = clist_content(it);
				if (a->ad_type == MAILIMF_ADDRESS_MAILBOX)
					addr_list_push(v, n,
					    a->ad_data.ad_mailbox->mb_addr_spec);
				else if (a->ad_data.ad_group != NULL)
					addr_list_mailboxes(
					    a->ad_data.ad_group->grp_mb_list,
					    v, n);
			}
			mailimf_address_list_free(al);
		}
		free(s);
	}
}

char *
addr_list_from(const struct mime_header *h)
{
	char	**v = NULL, *a = NULL;
	size_t	  n = 0;

	addr_list_get(h, "From", &v, &n);
	if (n == 1) {
		a = v[0];
		free(v);
		return a;
	}
	addr_list_free(v, n);
	return NULL;
}

void
addr_list_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
