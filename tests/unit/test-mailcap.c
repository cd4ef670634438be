/*
 * test-mailcap.c: RFC 1524 mailcap lines (mailcap.h): types and wildcards,
 * continuation lines, quoted semicolons, the flags the pager honours,
 * entries with a test skipped; and the command filled in so that neither
 * a file name nor a type from a message can break out of one shell word.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mailcap.h"
#include "tap.h"
#include "xmalloc.h"

static const char *mc =
    "# a comment\n"
    "\n"
    "image/png; pngview %s; test=test -n \"$DISPLAY\"\n"
    "image/*; imgcat '%s'; needsterminal\n"
    "text/html; lynx -dump -force_html %s; \\\n"
    "    copiousoutput\n"
    "text/html; htmlview %s\n"
    "application/pdf; pdftotext %s - \\; echo done; copiousoutput\n"
    "audio; play %s\n"
    "text/plain; cat\n"
    "application/x-odd; show --type=%t --cs=%{charset} 100\\% 5%% %s\n"
    "broken line without a command\n";

static int
find(const char *type, int flags, struct mailcap_entry *e)
{
	return mailcap_parse(mc, strlen(mc), type, flags, e);
}

int
main(void)
{
	struct mailcap_entry	 e;
	const char		*params[] = { "name=x", "charset=utf-8" };
	char			*cmd, dir[] = "/tmp/test-mailcap.XXXXXX", *path;
	FILE			*f;
	int			 in;

	TAP_OK(find("image/png", 0, &e) && strcmp(e.type, "image/*") == 0,
	    "an entry with test= is skipped, the wildcard one found");
	TAP_STR(e.view, "imgcat '%s'", "its view command");
	TAP_OK(e.needsterminal && !e.copiousoutput, "needsterminal");
	mailcap_entry_free(&e);

	TAP_OK(find("text/html", MAILCAP_COPIOUS, &e), "text/html, copious");
	TAP_STR(e.view, "lynx -dump -force_html %s",
	    "a continuation line joined");
	TAP_OK(e.copiousoutput && !e.needsterminal, "copiousoutput");
	mailcap_entry_free(&e);

	TAP_OK(find("TEXT/HTML", 0, &e) && e.copiousoutput,
	    "types match in any case, first entry first");
	mailcap_entry_free(&e);

	TAP_OK(find("application/pdf", 0, &e), "application/pdf");
	TAP_STR(e.view, "pdftotext %s - ; echo done", "a quoted semicolon");
	mailcap_entry_free(&e);

	TAP_OK(find("audio/ogg", 0, &e) && strcmp(e.view, "play %s") == 0,
	    "a type without subtype is a wildcard");
	mailcap_entry_free(&e);
	TAP_OK(!find("audiox/ogg", 0, &e), "but not a prefix of another");
	TAP_OK(!find("application/zip", 0, &e), "no entry");
	TAP_OK(!find("text/plain", MAILCAP_COPIOUS, &e),
	    "no copious entry for text/plain");
	TAP_OK(!find("broken line without a command", 0, &e),
	    "a line without a command is no entry");

	TAP_OK(find("text/plain", 0, &e), "text/plain");
	cmd = mailcap_command(&e, "/tmp/x/a.txt", "text/plain", NULL, 0, &in);
	TAP_OK(in == 1 && strcmp(cmd, "cat") == 0,
	    "no %%s: the content goes to standard input");
	free(cmd);
	mailcap_entry_free(&e);

	TAP_OK(find("image/gif", 0, &e), "image/gif");
	cmd = mailcap_command(&e, "/tmp/d/'; rm -rf ~; echo '.gif",
	    "image/gif", NULL, 0, &in);
	TAP_STR(cmd, "imgcat '/tmp/d/___rm_-rf____echo__.gif'",
	    "a hostile file name is one inert word");
	TAP_OK(in == 0, "with %%s, nothing on standard input");
	free(cmd);
	mailcap_entry_free(&e);

	TAP_OK(find("application/x-odd", 0, &e), "application/x-odd");
	cmd = mailcap_command(&e, "/tmp/f", "application/x-odd$(id)",
	    params, 2, NULL);
	TAP_STR(cmd, "show --type=application/x-odd__id_ --cs=utf-8 100% 5% "
	    "/tmp/f", "%%t, %%{param}, \\%% and %%%% filled in, inert");
	free(cmd);
	cmd = mailcap_command(&e, "/tmp/f", "application/x-odd", NULL, 0,
	    NULL);
	TAP_STR(cmd, "show --type=application/x-odd --cs= 100% 5% /tmp/f",
	    "a parameter not given is empty");
	free(cmd);
	mailcap_entry_free(&e);

	/* The files: $MAILCAPS first. */
	if (mkdtemp(dir) == NULL)
		return 1;
	path = xasprintf("%s/mc", dir);
	f = fopen(path, "w");
	fputs("text/html; w3m -dump %s; copiousoutput\n", f);
	fclose(f);
	setenv("MAILCAPS", path, 1);
	TAP_OK(mailcap_find("text/html", MAILCAP_COPIOUS, &e) &&
	    strcmp(e.view, "w3m -dump %s") == 0, "$MAILCAPS read");
	mailcap_entry_free(&e);
	setenv("MAILCAPS", "/nonexistent/mailcap", 1);
	TAP_OK(!mailcap_find("text/html", 0, &e), "a missing file: none");
	unlink(path);
	rmdir(dir);
	free(path);

	return TAP_DONE();
}
