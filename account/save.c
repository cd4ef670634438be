/*
 * save.c: setup_save() and setup_account_id(), the account into the
 * configuration file (setup.h, step 4).
 *
 * The password, unless a command gives it, goes into a file of its own in
 * the data directory, encrypted to the account's key (password.h), and
 * the configuration names that file: nothing secret is written in clear.
 * Each setting goes through config_write_set(), which keeps every other
 * byte of the file. They are written to a copy beside the file, the copy
 * is read back with config_load() (the one judge of what is valid), and
 * only then does it replace the file, mode 0600: a failure on the way
 * leaves the file as it was. A new file starts with a comment saying
 * what wrote it.
 *
 * Never prints.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config-write.h"
#include "password.h"
#include "paths.h"
#include "setup-int.h"
#include "xmalloc.h"

#define SAVE_HEADER	"# steedmail configuration (steedmail.conf(5)), " \
			"written by steedmail --setup.\n" \
			"# Comments and other lines are kept when it " \
			"changes a setting.\n"

static int
save_id_used(const struct config *cf, const char *id)
{
	const struct account	*a;

	for (a = cf != NULL ? cf->accounts : NULL; a != NULL; a = a->next)
		if (strcmp(a->id, id) == 0)
			return 1;
	return 0;
}

char *
setup_account_id(const struct config *cf, const char *address)
{
	struct buf	 b;
	const char	*p;
	char		*base, *id;
	int		 n;

	buf_init(&b);
	for (p = address; *p != '\0' && *p != '@'; p++)
		if (isalnum((unsigned char)*p) || *p == '-' || *p == '_' ||
		    *p == '.')
			buf_addc(&b, (char)tolower((unsigned char)*p));
	if (b.len == 0)
		buf_adds(&b, "account");
	buf_addc(&b, '\0');
	base = buf_take(&b);
	id = xstrdup(base);
	for (n = 2; save_id_used(cf, id); n++) {
		free(id);
		id = xasprintf("%s-%d", base, n);
	}
	free(base);
	return id;
}

/* Copy the file at from (if there is one) to a new file at to, 0600. */
static int
save_copy(const char *from, const char *to, char **cause)
{
	struct buf	 b;
	int		 fd;

	buf_init(&b);
	if (access(from, F_OK) == 0 &&
	    buf_read_file(&b, from, 16 * 1024 * 1024) == -1) {
		*cause = xasprintf("cannot read %s: %s", from, strerror(errno));
		return -1;
	}
	if (b.len == 0)
		buf_adds(&b, SAVE_HEADER);
	if ((fd = open(to, O_WRONLY | O_CREAT | O_EXCL, 0600)) == -1) {
		*cause = xasprintf("cannot create %s: %s", to, strerror(errno));
		buf_free(&b);
		return -1;
	}
	if (write(fd, b.data, b.len) != (ssize_t)b.len || close(fd) == -1) {
		*cause = xasprintf("cannot write %s: %s", to, strerror(errno));
		buf_free(&b);
		return -1;
	}
	buf_free(&b);
	return 0;
}

/* The settings of sa, one config_write_set() each, into path. */
static int
save_settings(const char *path, const char *id, const struct setup_account *sa,
    const char *pwfile, char **cause)
{
	const char	*keys[16], *values[16];
	char		*imap, *smtp;
	size_t		 n = 0, i;
	int		 rc = 0;

	imap = setup_url_text(SETUP_IMAP, &sa->imap);
	smtp = setup_url_text(SETUP_SMTP, &sa->smtp);
	keys[n] = "name"; values[n++] = sa->name;
	keys[n] = "address"; values[n++] = sa->address;
	keys[n] = "imap"; values[n++] = imap;
	keys[n] = "smtp"; values[n++] = smtp;
	keys[n] = "user"; values[n++] = sa->user;
	if (sa->oauth2) {
		keys[n] = "auth"; values[n++] = "oauth2";
		keys[n] = "oauth2-token-url";
		values[n++] = sa->oauth2_token_url;
		keys[n] = "oauth2-device-url";
		values[n++] = sa->oauth2_device_url;
		keys[n] = "oauth2-auth-url"; values[n++] = sa->oauth2_auth_url;
		keys[n] = "oauth2-scope"; values[n++] = sa->oauth2_scope;
		keys[n] = "oauth2-client-id";
		values[n++] = sa->oauth2_client_id;
	} else if (sa->password_command != NULL) {
		keys[n] = "password-command";
		values[n++] = sa->password_command;
	} else if (pwfile != NULL) {
		keys[n] = "password-file";
		values[n++] = pwfile;
	} else {
		keys[n] = "password";
		values[n++] = sa->password;
	}
	keys[n] = "cert-fingerprint"; values[n++] = sa->cert_fingerprint;
	keys[n] = "key"; values[n++] = sa->key;
	keys[n] = "smime"; values[n++] = sa->smime ? "yes" : NULL;
	for (i = 0; i < n && rc == 0; i++)
		if (values[i] != NULL &&
		    config_write_set(path, id, keys[i], values[i], cause) == -1)
			rc = -1;
	free(imap);
	free(smtp);
	return rc;
}

int
setup_save(const char *path, const struct setup_account *sa, char **pwfile,
    char **cause)
{
	struct config	*cf = NULL;
	char		*file, *dir, *slash, *tmp = NULL, *id = NULL, *why = NULL;
	char		*pw = NULL;
	int		 rc = -1;

	if (pwfile != NULL)
		*pwfile = NULL;
	if (sa->address == NULL || sa->imap.host == NULL ||
	    sa->smtp.host == NULL) {
		*cause = xstrdup("the account needs an address and both "
		    "servers");
		return -1;
	}
	file = path != NULL ? xstrdup(path) : paths_config_file();
	dir = xstrdup(file);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (paths_mkdirs(dir, 0700, cause) == -1)
			goto out;
	}
	if (access(file, F_OK) == 0 &&
	    (cf = config_load(file, cause)) == NULL)
		goto out;
	if (sa->id != NULL) {
		if (save_id_used(cf, sa->id)) {
			*cause = xasprintf("%s already has an account \"%s\"",
			    file, sa->id);
			goto out;
		}
		id = xstrdup(sa->id);
	} else
		id = setup_account_id(cf, sa->address);

	if (!sa->oauth2 && sa->password_command == NULL &&
	    sa->password != NULL && sa->password_key != NULL) {
		if ((pw = password_file_path(id, cause)) == NULL)
			goto out;
		if (password_file_write(pw, sa->password_key, sa->password,
		    &why) == -1) {
			*cause = xasprintf("the password could not be kept "
			    "encrypted: %s", why);
			free(why);
			free(pw);
			pw = NULL;
			goto out;
		}
	}

	tmp = xasprintf("%s.setup-%ld", file, (long)getpid());
	unlink(tmp);
	if (save_copy(file, tmp, cause) == -1)
		goto out;
	if (save_settings(tmp, id, sa, pw, cause) == -1)
		goto out;
	config_free(cf);
	if ((cf = config_load(tmp, &why)) == NULL) {
		*cause = xasprintf("the new account would not be valid: %s",
		    why);
		free(why);
		goto out;
	}
	if (chmod(tmp, 0600) == -1 || rename(tmp, file) == -1) {
		*cause = xasprintf("cannot replace %s: %s", file,
		    strerror(errno));
		goto out;
	}
	rc = 0;
	if (pwfile != NULL) {
		*pwfile = pw;
		pw = NULL;
	}

out:
	if (rc == -1 && tmp != NULL)
		unlink(tmp);
	if (rc == -1 && pw != NULL)
		unlink(pw);
	free(pw);
	config_free(cf);
	free(tmp);
	free(id);
	free(dir);
	free(file);
	return rc;
}
