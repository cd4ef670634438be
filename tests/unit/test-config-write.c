/*
 * test-config-write.c: account/config-write.c on files written here, each
 * result read back with config_load() and compared byte for byte.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "account/config-write.h"
#include "buf.h"
#include "config.h"
#include "tap.h"

static char	dir[] = "/tmp/steed-config-write-XXXXXX";
static char	path[512];

static void
put(const char *text, mode_t mode)
{
	FILE	*f;

	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* The whole file, allocated. */
static char *
get(void)
{
	struct buf	 b;
	char		 chunk[4096];
	size_t		 n;
	FILE		*f;

	buf_init(&b);
	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	buf_addc(&b, '\0');
	return buf_take(&b);
}

static mode_t
mode(void)
{
	struct stat	sb;

	return stat(path, &sb) == 0 ? (sb.st_mode & 07777) : 0;
}

/* Set, then compare the file with want. */
static void
set(const char *account, const char *key, const char *value,
    const char *want, const char *what)
{
	char	*cause = NULL, *got;

	TAP_OK(config_write_set(path, account, key, value, &cause) == 0,
	    "%s: set %s", what, key);
	if (cause != NULL)
		printf("#   %s\n", cause);
	free(cause);
	got = get();
	TAP_STR(got, want, "%s: the file", what);
	free(got);
}

static const char base[] =
    "# steedmail configuration\n"
    "encrypt = always   \n"
    "\n"
    "# Alice's account\n"
    "[account alice]\n"
    "  # her real name\n"
    "  name = Alice\n"
    "address = alice@steed.test\n"
    "imap = imaps://imap.steed.test\n"
    "smtp = smtps://smtp.steed.test\n"
    "\n"
    "[account bob]   \n"
    "address = bob@steed.test\n"
    "imap = imaps://imap.steed.test\n"
    "smtp = smtps://smtp.steed.test\n"
    "# the end\n";

int
main(void)
{
	struct config	*cf;
	struct account	*a;
	char		*cause = NULL, *got, *v;
	static const char odd[] = "  \"Bob\" \\ the #1 builder ";

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof path, "%s/config", dir);

	put(base, 0644);
	set("alice", "name", "Alice Liddell",
	    "# steedmail configuration\n"
	    "encrypt = always   \n"
	    "\n"
	    "# Alice's account\n"
	    "[account alice]\n"
	    "  # her real name\n"
	    "name = Alice Liddell\n"
	    "address = alice@steed.test\n"
	    "imap = imaps://imap.steed.test\n"
	    "smtp = smtps://smtp.steed.test\n"
	    "\n"
	    "[account bob]   \n"
	    "address = bob@steed.test\n"
	    "imap = imaps://imap.steed.test\n"
	    "smtp = smtps://smtp.steed.test\n"
	    "# the end\n", "replace a setting");
	TAP_OK(mode() == 0600, "the file is mode 0600 (was 0644): %03o",
	    (unsigned)mode());

	put(base, 0600);
	set("bob", "name", "Bob",
	    "# steedmail configuration\n"
	    "encrypt = always   \n"
	    "\n"
	    "# Alice's account\n"
	    "[account alice]\n"
	    "  # her real name\n"
	    "  name = Alice\n"
	    "address = alice@steed.test\n"
	    "imap = imaps://imap.steed.test\n"
	    "smtp = smtps://smtp.steed.test\n"
	    "\n"
	    "[account bob]   \n"
	    "address = bob@steed.test\n"
	    "imap = imaps://imap.steed.test\n"
	    "smtp = smtps://smtp.steed.test\n"
	    "name = Bob\n"
	    "# the end\n", "add a setting to the last section");

	put(base, 0600);
	set(NULL, "fallback", "refuse",
	    "# steedmail configuration\n"
	    "encrypt = always   \n"
	    "fallback = refuse\n"
	    "\n"
	    "# Alice's account\n"
	    "[account alice]\n"
	    "  # her real name\n"
	    "  name = Alice\n"
	    "address = alice@steed.test\n"
	    "imap = imaps://imap.steed.test\n"
	    "smtp = smtps://smtp.steed.test\n"
	    "\n"
	    "[account bob]   \n"
	    "address = bob@steed.test\n"
	    "imap = imaps://imap.steed.test\n"
	    "smtp = smtps://smtp.steed.test\n"
	    "# the end\n", "add a global setting");

	/* A new account, appended, then completed; config.c reads it. */
	put(base, 0600);
	TAP_OK(config_write_set(path, "carol", "address", "carol@steed.test",
	    &cause) == 0 && config_write_set(path, "carol", "imap",
	    "imaps://imap.steed.test", &cause) == 0 &&
	    config_write_set(path, "carol", "smtp", "smtps://smtp.steed.test",
	    &cause) == 0, "a new account section, three settings");
	got = get();
	TAP_OK(got != NULL && strncmp(got, base, strlen(base)) == 0,
	    "the old text is kept byte for byte");
	TAP_STR(got != NULL ? got + strlen(base) : NULL,
	    "\n[account carol]\naddress = carol@steed.test\n"
	    "imap = imaps://imap.steed.test\nsmtp = smtps://smtp.steed.test\n",
	    "the section is appended");
	free(got);
	cf = config_load(path, &cause);
	a = cf != NULL ? config_account(cf, "carol", &cause) : NULL;
	TAP_OK(a != NULL && strcmp(a->address, "carol@steed.test") == 0,
	    "config.c reads the new account: %s", cause ? cause : "yes");
	config_free(cf);
	free(cause);
	cause = NULL;

	/* Special characters: quoted, and read back as they were. */
	TAP_OK(config_write_set(path, "carol", "name", odd, &cause) == 0,
	    "a name with quotes, a backslash, a # and outer blanks");
	v = config_write_value(odd);
	TAP_STR(v, "\"  \\\"Bob\\\" \\\\ the #1 builder \"", "it is quoted");
	free(v);
	cf = config_load(path, &cause);
	a = cf != NULL ? config_account(cf, "carol", &cause) : NULL;
	TAP_STR(a != NULL ? a->name : cause, odd, "config.c reads it back");
	config_free(cf);
	free(cause);
	cause = NULL;
	v = config_write_value("plain value");
	TAP_STR(v, "plain value", "a plain value is not quoted");
	free(v);

	/* CRLF lines stay CRLF; a last line without its end gets one. */
	put("[account alice]\r\naddress = alice@steed.test\r\n", 0600);
	set("alice", "name", "A", "[account alice]\r\n"
	    "address = alice@steed.test\r\nname = A\r\n", "a CRLF file");
	put("[account alice]\naddress = alice@steed.test", 0600);
	set("alice", "name", "A", "[account alice]\n"
	    "address = alice@steed.test\nname = A\n", "no final newline");
	put("[account alice]\naddress = alice@steed.test\n", 0600);
	set(NULL, "encrypt", "never", "encrypt = never\n[account alice]\n"
	    "address = alice@steed.test\n", "a global before the sections");

	/* A file that does not exist is made, 0600. */
	unlink(path);
	set("dave", "address", "dave@steed.test",
	    "[account dave]\naddress = dave@steed.test\n", "a new file");
	TAP_OK(mode() == 0600, "the new file is mode 0600");

	/* Refusals leave the file as it was. */
	put(base, 0640);
	TAP_OK(config_write_set(path, "alice", "no-such", "x", &cause) == -1 &&
	    cause != NULL, "an unknown setting is refused");
	free(cause);
	cause = NULL;
	TAP_OK(config_write_set(path, "alice", "encrypt", "never", &cause) ==
	    -1, "a global setting in an account is refused");
	free(cause);
	cause = NULL;
	TAP_OK(config_write_set(path, "alice", "name", "a\nimap = x", &cause)
	    == -1, "a line break in a value is refused");
	free(cause);
	cause = NULL;
	TAP_OK(config_write_set(path, "a]b", "name", "x", &cause) == -1,
	    "a bad account name is refused");
	free(cause);
	cause = NULL;
	got = get();
	TAP_STR(got, base, "the refused changes left the file alone");
	free(got);
	TAP_OK(mode() == 0640, "and its mode");

	unlink(path);
	TAP_OK(rmdir(dir) == 0, "no temporary file is left behind");
	return TAP_DONE();
}
