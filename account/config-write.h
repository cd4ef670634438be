/*
 * config-write.h: changing one setting of the configuration file, as the
 * setup wizard does when it saves an account. Every other byte of the
 * file (comments, blank lines, other settings, their order and line ends)
 * stays as it was; the new file replaces the old one atomically and is
 * mode 0600, as it may hold a password.
 */
#ifndef STEED_CONFIG_WRITE_H
#define STEED_CONFIG_WRITE_H

/*
 * Set key = value in the [account ID] section of the file at path, or in
 * the global part before the first section when account is NULL. A line
 * setting key there is replaced; otherwise a line is added after the
 * section's last setting or comment; a section that does not exist is
 * appended at the end of the file, and a file that does not exist is
 * made. The value is written so that config.c reads back exactly value
 * (in double quotes, with \" and \\, when it needs them). key must be a
 * setting of that scope (config-table.c); the value is not otherwise
 * checked: config_load() does that. Returns -1 with *cause, the file
 * untouched.
 */
int	 config_write_set(const char *path, const char *account,
	    const char *key, const char *value, char **cause);

/* The value as a configuration line holds it (quoted if need be). */
char	*config_write_value(const char *value);

#endif
