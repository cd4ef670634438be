/*
 * paths.c: the XDG locations of paths.h. A relative XDG_* value is ignored,
 * as the specification asks. The steedmail directories themselves are
 * tightened to 0700 if they exist with wider permissions, because they hold
 * keys, passwords in the outbox's messages, and the trust store.
 */
#include <sys/stat.h>

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "xmalloc.h"

const char *
paths_home(void)
{
	const char	*home;
	struct passwd	*pw;

	if ((home = getenv("HOME")) != NULL && *home == '/')
		return home;
	if ((pw = getpwuid(getuid())) != NULL && pw->pw_dir != NULL)
		return pw->pw_dir;
	return "/";
}

/* $VAR/steedmail[/leaf], or ~/fallback/steedmail[/leaf]. */
static char *
paths_xdg(const char *var, const char *fallback, const char *leaf)
{
	const char	*base = getenv(var);
	char		*dir, *p;

	if (base != NULL && *base == '/')
		dir = xasprintf("%s/steedmail", base);
	else
		dir = xasprintf("%s/%s/steedmail", paths_home(), fallback);
	if (leaf == NULL)
		return dir;
	p = xasprintf("%s/%s", dir, leaf);
	free(dir);
	return p;
}

char *
paths_config_file(void)
{
	return paths_xdg("XDG_CONFIG_HOME", ".config", "config");
}

char *
paths_config_path(const char *name)
{
	return paths_xdg("XDG_CONFIG_HOME", ".config", name);
}

int
paths_mkdirs(const char *path, int mode, char **cause)
{
	char	*copy, *p;
	struct stat sb;

	copy = xstrdup(path);
	for (p = copy + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(copy, mode) == -1 && errno != EEXIST) {
			*cause = xasprintf("cannot create directory %s: %s",
			    copy, strerror(errno));
			free(copy);
			return -1;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	free(copy);
	if (stat(path, &sb) == -1 || !S_ISDIR(sb.st_mode)) {
		*cause = xasprintf("%s is not a directory", path);
		return -1;
	}
	return 0;
}

static char *
paths_private_dir(const char *var, const char *fallback, char **cause)
{
	char		*dir;
	struct stat	 sb;

	dir = paths_xdg(var, fallback, NULL);
	if (paths_mkdirs(dir, 0700, cause) == -1) {
		free(dir);
		return NULL;
	}
	if (stat(dir, &sb) == 0 && (sb.st_mode & 077) != 0 &&
	    sb.st_uid == getuid())
		chmod(dir, 0700);
	return dir;
}

char *
paths_data_dir(char **cause)
{
	return paths_private_dir("XDG_DATA_HOME", ".local/share", cause);
}

char *
paths_cache_dir(char **cause)
{
	return paths_private_dir("XDG_CACHE_HOME", ".cache", cause);
}

char *
paths_data_subdir(const char *name, char **cause)
{
	char	*data, *dir;

	if ((data = paths_data_dir(cause)) == NULL)
		return NULL;
	dir = xasprintf("%s/%s", data, name);
	free(data);
	if (paths_mkdirs(dir, 0700, cause) == -1) {
		free(dir);
		return NULL;
	}
	return dir;
}
