/*
 * provider.c: the provider files (provider.h): a directory of
 * config-v1.1.xml documents read with autoconfig_parse(), under the same
 * bounds as a document from the network (they are steedmail's, but a
 * packager or the user may have changed them), and looked up by domain.
 * Never prints.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "provider.h"
#include "xmalloc.h"

#ifndef PROVIDERDIR
#define PROVIDERDIR "/usr/local/share/steedmail/providers"
#endif

const char *
provider_dir(const struct config *cf)
{
	if (cf != NULL && cf->provider_dir != NULL)
		return cf->provider_dir;
	return PROVIDERDIR;
}

static int
provider_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of dir's *.xml files, sorted; -1 when it cannot be read. */
static int
provider_names(const char *dir, char ***names, size_t *n)
{
	struct dirent	*de;
	DIR		*d;
	size_t		 len;

	*names = NULL;
	*n = 0;
	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL && *n < PROVIDER_FILES) {
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len < 5 ||
		    strcmp(de->d_name + len - 4, ".xml") != 0)
			continue;
		*names = xreallocarray(*names, *n + 1, sizeof **names);
		(*names)[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n > 1)
		qsort(*names, *n, sizeof **names, provider_cmp);
	return 0;
}

static void
provider_broken(struct provider_list *l, char *what)
{
	l->broken = xreallocarray(l->broken, l->nbroken + 1,
	    sizeof *l->broken);
	l->broken[l->nbroken++] = what;
}

/* One file into l, or into l->broken. */
static void
provider_read(struct provider_list *l, const char *dir, char *name)
{
	struct autoconfig	*ac;
	struct buf		 b;
	struct stat		 sb;
	char			*path, *why = NULL, *bad = NULL;
	int			 fd;

	path = xasprintf("%s/%s", dir, name);
	buf_init(&b);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode))
		bad = xasprintf("%s: not a file that can be read", name);
	else if (sb.st_size > AUTOCONFIG_MAX)
		bad = xasprintf("%s: larger than %d bytes", name,
		    AUTOCONFIG_MAX);
	else if (buf_read_fd(&b, fd, AUTOCONFIG_MAX) == -1)
		bad = xasprintf("%s: %s", name, strerror(errno));
	else if (autoconfig_parse(b.data != NULL ? b.data : "", b.len, &ac,
	    &why) == -1) {
		bad = xasprintf("%s: %s", name, why);
		free(why);
	} else {
		l->docs = xreallocarray(l->docs, l->n + 1, sizeof *l->docs);
		l->files = xreallocarray(l->files, l->n + 1,
		    sizeof *l->files);
		l->docs[l->n] = ac;
		l->files[l->n++] = name;
		name = NULL;
	}
	if (fd != -1)
		close(fd);
	if (bad != NULL)
		provider_broken(l, bad);
	free(name);
	buf_free(&b);
	free(path);
}

int
provider_list_load(const char *dir, int required, struct provider_list *l,
    char **cause)
{
	char	**names;
	size_t	  n, i;

	memset(l, 0, sizeof *l);
	if (provider_names(dir, &names, &n) == -1) {
		if (errno == ENOENT && !required)
			return 0;
		*cause = xasprintf("the provider files in %s cannot be read: "
		    "%s", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++)
		provider_read(l, dir, names[i]);	/* takes the name */
	free(names);
	return 0;
}

void
provider_list_free(struct provider_list *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		autoconfig_free(l->docs[i]);
		free(l->files[i]);
	}
	for (i = 0; i < l->nbroken; i++)
		free(l->broken[i]);
	free(l->docs);
	free(l->files);
	free(l->broken);
	memset(l, 0, sizeof *l);
}

const struct autoconfig *
provider_list_find(const struct provider_list *l, const char *domain,
    const char **file)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		if (autoconfig_has_domain(l->docs[i], domain)) {
			if (file != NULL)
				*file = l->files[i];
			return l->docs[i];
		}
	return NULL;
}
