/*
 * test-imap-role.c: where Sent, Trash, Drafts and Archive are, chosen
 * over LIST answers as servers give them: Dovecot's with SPECIAL-USE,
 * Courier's without it inside the "INBOX." namespace, Exchange's names,
 * the configuration's own; then the whole lookup over a recorded Courier
 * conversation (LIST, NAMESPACE) played through libetpan by a socket.
 */
#include <sys/socket.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imap-role.h"
#include "tap.h"
#include "xmalloc.h"

#define S	(1u << IMAP_ROLE_SENT)
#define T	(1u << IMAP_ROLE_TRASH)
#define D	(1u << IMAP_ROLE_DRAFTS)
#define A	(1u << IMAP_ROLE_ARCHIVE)
#define N(a)	(sizeof (a) / sizeof *(a))

static const char *const none[IMAP_ROLES] = { NULL, NULL, NULL, NULL };

static void
expect(const struct imap_roles *r, enum imap_role role, const char *name,
    enum imap_role_how how, const char *what)
{
	if (name == NULL)
		TAP_OK(r->name[role] == NULL && r->how[role] == IMAP_ROLE_NONE,
		    "%s: no %s folder", what, imap_role_word(role));
	else {
		TAP_STR(r->name[role], name, "%s: %s is %s", what,
		    imap_role_word(role), name);
		TAP_OK(r->how[role] == how, "%s: %s %s", what,
		    imap_role_word(role), imap_role_how_words(how));
	}
}

static void
test_choose(void)
{
	struct imap_roles	r;
	/* Dovecot with SPECIAL-USE: the flags win over the names */
	struct imap_role_box	dovecot[] = {
		{ "INBOX", 0 }, { "Sent", 0 }, { "Sent Messages", S },
		{ "Trash", T }, { "Drafts", D }, { "Archive", 0 },
	};
	/* Courier: namespace (("INBOX." ".")) NIL NIL, no flags */
	struct imap_role_box	courier[] = {
		{ "INBOX", 0 }, { "INBOX.Sent", 0 }, { "INBOX.Trash", 0 },
		{ "INBOX.Drafts", 0 },
	};
	/* Exchange's names, a "Sent" elsewhere, and odd case */
	struct imap_role_box	exchange[] = {
		{ "INBOX", 0 }, { "Projects/Sent", 0 }, { "sent items", 0 },
		{ "Deleted Items", 0 }, { "DRAFTS", 0 }, { "Archives", 0 },
	};
	/* the prefix first: INBOX.Sent over a top-level Sent */
	struct imap_role_box	both[] = {
		{ "Sent", 0 }, { "INBOX.Sent", 0 }, { "Trash", 0 },
	};
	const char *const	 conf[IMAP_ROLES] = { "Gesendet", NULL, NULL,
	    "Ablage/2026" };

	imap_role_choose(dovecot, N(dovecot), "", none, &r);
	expect(&r, IMAP_ROLE_SENT, "Sent Messages", IMAP_ROLE_SPECIAL_USE,
	    "Dovecot");
	expect(&r, IMAP_ROLE_TRASH, "Trash", IMAP_ROLE_SPECIAL_USE, "Dovecot");
	expect(&r, IMAP_ROLE_DRAFTS, "Drafts", IMAP_ROLE_SPECIAL_USE,
	    "Dovecot");
	expect(&r, IMAP_ROLE_ARCHIVE, "Archive", IMAP_ROLE_NAMED, "Dovecot");
	imap_roles_free(&r);
	TAP_OK(imap_role_needs_names(dovecot, N(dovecot), none),
	    "Dovecot without \\Archive: names are needed");

	imap_role_choose(courier, N(courier), "INBOX.", none, &r);
	expect(&r, IMAP_ROLE_SENT, "INBOX.Sent", IMAP_ROLE_NAMED, "Courier");
	expect(&r, IMAP_ROLE_TRASH, "INBOX.Trash", IMAP_ROLE_NAMED, "Courier");
	expect(&r, IMAP_ROLE_DRAFTS, "INBOX.Drafts", IMAP_ROLE_NAMED,
	    "Courier");
	expect(&r, IMAP_ROLE_ARCHIVE, NULL, IMAP_ROLE_NONE, "Courier");
	TAP_STR(r.prefix, "INBOX.", "Courier: the prefix is kept");
	imap_roles_free(&r);

	imap_role_choose(courier, N(courier), "", none, &r);
	expect(&r, IMAP_ROLE_SENT, NULL, IMAP_ROLE_NONE,
	    "Courier without its namespace");
	imap_roles_free(&r);

	imap_role_choose(exchange, N(exchange), NULL, none, &r);
	expect(&r, IMAP_ROLE_SENT, "sent items", IMAP_ROLE_NAMED, "Exchange");
	expect(&r, IMAP_ROLE_TRASH, "Deleted Items", IMAP_ROLE_NAMED,
	    "Exchange");
	expect(&r, IMAP_ROLE_DRAFTS, "DRAFTS", IMAP_ROLE_NAMED, "Exchange");
	expect(&r, IMAP_ROLE_ARCHIVE, "Archives", IMAP_ROLE_NAMED,
	    "Exchange");
	imap_roles_free(&r);

	imap_role_choose(both, N(both), "INBOX.", none, &r);
	expect(&r, IMAP_ROLE_SENT, "INBOX.Sent", IMAP_ROLE_NAMED,
	    "the namespace first");
	expect(&r, IMAP_ROLE_TRASH, "Trash", IMAP_ROLE_NAMED,
	    "then the top");
	imap_roles_free(&r);

	imap_role_choose(dovecot, N(dovecot), "", conf, &r);
	expect(&r, IMAP_ROLE_SENT, "Gesendet", IMAP_ROLE_CONFIGURED,
	    "configured");
	expect(&r, IMAP_ROLE_ARCHIVE, "Ablage/2026", IMAP_ROLE_CONFIGURED,
	    "configured");
	expect(&r, IMAP_ROLE_TRASH, "Trash", IMAP_ROLE_SPECIAL_USE,
	    "configured");
	imap_roles_free(&r);
	{
		const char *const all[IMAP_ROLES] = { "a", "b", "c", "d" };

		TAP_OK(!imap_role_needs_names(courier, N(courier), all),
		    "every role configured: no NAMESPACE needed");
	}
	TAP_OK(imap_role_needs_names(courier, N(courier), none),
	    "Courier: NAMESPACE needed");
	imap_role_choose(NULL, 0, NULL, none, &r);
	expect(&r, IMAP_ROLE_SENT, NULL, IMAP_ROLE_NONE, "no folders at all");
	imap_roles_free(&r);
}

/* What a Courier server says to CAPABILITY, LIST "" * and NAMESPACE. */
static const char courier_says[] =
    "* CAPABILITY IMAP4rev1 UIDPLUS CHILDREN NAMESPACE SORT QUOTA IDLE\r\n"
    "1 OK CAPABILITY completed\r\n"
    "* LIST (\\Unmarked \\HasChildren) \".\" \"INBOX\"\r\n"
    "* LIST (\\HasNoChildren) \".\" \"INBOX.Sent\"\r\n"
    "* LIST (\\HasNoChildren) \".\" \"INBOX.Trash\"\r\n"
    "* LIST (\\HasNoChildren) \".\" \"INBOX.Drafts\"\r\n"
    "* LIST (\\HasNoChildren) \".\" \"INBOX.B&APw-cher\"\r\n"
    "* LIST (\\Noselect \\HasChildren) \".\" \"INBOX.Archive\"\r\n"
    "2 OK LIST completed\r\n"
    "* NAMESPACE ((\"INBOX.\" \".\")) NIL ((\"#shared.\" \".\")("
    "\"shared.\" \".\"))\r\n"
    "3 OK NAMESPACE completed.\r\n";

static void
test_recorded(void)
{
	struct imap_roles	 r;
	struct account		 a;
	struct mailimap_capability_data *caps = NULL;
	mailimap		*imap;
	char			*cause = NULL;
	int			 sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		abort();
	if (write(sv[1], courier_says, sizeof courier_says - 1) !=
	    (ssize_t)(sizeof courier_says - 1))
		abort();
	imap = mailimap_new(0, NULL);
	if ((imap->imap_stream = mailstream_socket_open(sv[0])) == NULL)
		abort();
	imap->imap_state = MAILIMAP_STATE_AUTHENTICATED;
	if (imap->imap_connection_info == NULL &&
	    (imap->imap_connection_info = mailimap_connection_info_new()) ==
	    NULL)
		abort();
	TAP_OK(mailimap_capability(imap, &caps) == MAILIMAP_NO_ERROR,
	    "CAPABILITY read");
	mailimap_capability_data_free(caps);
	memset(&a, 0, sizeof a);
	a.archive_folder = (char *)"INBOX.B\xc3\xbc" "cher";
	TAP_OK(imap_role_find(imap, &a, &r, &cause) == 0,
	    "the lookup over Courier's answers");
	expect(&r, IMAP_ROLE_SENT, "INBOX.Sent", IMAP_ROLE_NAMED,
	    "recorded Courier");
	expect(&r, IMAP_ROLE_TRASH, "INBOX.Trash", IMAP_ROLE_NAMED,
	    "recorded Courier");
	expect(&r, IMAP_ROLE_DRAFTS, "INBOX.Drafts", IMAP_ROLE_NAMED,
	    "recorded Courier");
	expect(&r, IMAP_ROLE_ARCHIVE, "INBOX.B\xc3\xbc" "cher",
	    IMAP_ROLE_CONFIGURED, "recorded Courier");
	TAP_STR(r.prefix, "INBOX.", "the prefix NAMESPACE gave");
	imap_roles_free(&r);
	free(cause);
	mailstream_close(imap->imap_stream);
	imap->imap_stream = NULL;
	mailimap_free(imap);
	close(sv[1]);
}

int
main(void)
{
	test_choose();
	test_recorded();
	return TAP_DONE();
}
