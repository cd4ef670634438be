/*
 * paths.h: where steedmail keeps things, after the XDG base directory
 * specification: the config file, the data dir (keys, trust store, outbox)
 * and the cache dir (header cache, debug log). Directories are created
 * with mode 0700 when first asked for.
 */
#ifndef STEED_PATHS_H
#define STEED_PATHS_H

/* The default configuration file (not created). */
char	*paths_config_file(void);
/* A file beside it ("aliases"), not created. */
char	*paths_config_path(const char *name);
/* The data and cache directories, created 0700 if missing; NULL + cause. */
char	*paths_data_dir(char **cause);
char	*paths_cache_dir(char **cause);
/* A folder of the data directory ("outbox", "drafts"), created 0700. */
char	*paths_data_subdir(const char *name, char **cause);
/* mkdir -p with the given mode for every directory it creates. */
int	 paths_mkdirs(const char *path, int mode, char **cause);
/* The user's home directory (HOME, or the password database). */
const char *paths_home(void);

#endif
