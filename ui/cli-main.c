/*
 * cli-main.c: steedmail's command line. It parses options, opens the debug log
 * and the configuration, and hands over to the command asked for (cli-*.c).
 * Commands print; the engine modules they call never do.
 */
#include <getopt.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sysexits.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "config.h"
#include "imap-role.h"
#include "log.h"
#include "oauth2.h"
#include "paths.h"
#include "strsafe.h"
#include "tui.h"
#include "version.h"
#include "xmalloc.h"

/*
 * The commands: what each is called, what it runs, how many operands it
 * takes here (-1: the command checks its own) and which options go with
 * it. Options not in a command's set are refused before anything runs,
 * with the commands they do go with (-F, -A, -d and --offline go with
 * every command).
 */
enum main_opt_id {
	MO_CC, MO_BCC, MO_ATTACH, MO_SIGN, MO_ENCRYPT, MO_SMIME, MO_NO_ENCRYPT,
	MO_REQUIRE_ENCRYPTION, MO_REPLY, MO_QUOTE, MO_FORWARD,
	MO_FORWARD_INLINE, MO_POSTPONE, MO_PART, MO_SORT, MO_LIMIT, MO_TIMEOUT,
	MO_BROWSER, MO_NAME, MO_ADDRESS, MO_IMAP, MO_SMTP,
	MO_PASSWORD_COMMAND, MO_PIN, MO_YES, MO_ALL_FOLDERS,
	MO_ACCOUNT, MO_CONFIG, MO_DEBUG, MO_OFFLINE	/* with every command */
};
#define O(x)		(1u << MO_##x)
#define O_GLOBAL	(O(ACCOUNT) | O(CONFIG) | O(DEBUG) | O(OFFLINE))
#define O_PROTECT	(O(SIGN) | O(ENCRYPT) | O(SMIME) | O(NO_ENCRYPT) | \
			 O(REQUIRE_ENCRYPTION))
#define O_SEND		(O_PROTECT | O(CC) | O(BCC) | O(ATTACH) | O(REPLY) | \
			 O(QUOTE) | O(FORWARD) | O(FORWARD_INLINE) | \
			 O(POSTPONE))
#define O_SETUP		(O(SMIME) | O(NAME) | O(ADDRESS) | O(IMAP) | \
			 O(SMTP) | O(PASSWORD_COMMAND) | O(PIN) | O(YES))

/* How an option's value is kept in struct cmd_ctx. */
enum main_opt_type {
	MAIN_FLAG,	/* an int set to 1 */
	MAIN_STRING,	/* a const char *, the last one given */
	MAIN_LIST	/* a char ** and its size_t count, each one added */
};

struct main_opt {
	enum main_opt_id	 id;
	const char		*name;	/* as it is typed: "--sign", "-c" */
	enum main_opt_type	 type;
	size_t			 off;	/* the field in struct cmd_ctx */
	size_t			 noff;	/* MAIN_LIST: its count */
};

#define F(f)	offsetof(struct cmd_ctx, f)
static const struct main_opt main_opts[] = {
	{ MO_CC,		"-c",		MAIN_LIST,	F(cc), F(ncc) },
	{ MO_BCC,		"-b",		MAIN_LIST,	F(bcc), F(nbcc) },
	{ MO_ATTACH,		"-a",		MAIN_LIST,	F(attach),
	  F(nattach) },
	{ MO_SIGN,		"--sign",	MAIN_FLAG,	F(sign), 0 },
	{ MO_ENCRYPT,		"--encrypt",	MAIN_FLAG,	F(encrypt), 0 },
	{ MO_SMIME,		"--smime",	MAIN_FLAG,	F(smime), 0 },
	{ MO_NO_ENCRYPT,	"--no-encrypt",	MAIN_FLAG,	F(no_encrypt),
	  0 },
	{ MO_REQUIRE_ENCRYPTION, "--require-encryption", MAIN_FLAG,
	  F(require_encryption), 0 },
	{ MO_REPLY,		"--reply",	MAIN_STRING,	F(reply), 0 },
	{ MO_QUOTE,		"--quote",	MAIN_FLAG,	F(quote), 0 },
	{ MO_FORWARD,		"--forward",	MAIN_STRING,	F(forward), 0 },
	{ MO_FORWARD_INLINE,	"--forward-inline", MAIN_STRING, F(forward),
	  0 },
	{ MO_POSTPONE,		"--postpone",	MAIN_FLAG,	F(postpone), 0 },
	{ MO_PART,		"--part",	MAIN_STRING,	F(part), 0 },
	{ MO_SORT,		"--sort",	MAIN_STRING,	F(sort), 0 },
	{ MO_LIMIT,		"--limit",	MAIN_STRING,	F(limit), 0 },
	{ MO_TIMEOUT,		"--timeout",	MAIN_STRING,	0, 0 },
	{ MO_BROWSER,		"--browser",	MAIN_FLAG,	F(browser), 0 },
	{ MO_NAME,		"--name",	MAIN_STRING,	F(setup_name),
	  0 },
	{ MO_ADDRESS,		"--address",	MAIN_STRING,
	  F(setup_address), 0 },
	{ MO_IMAP,		"--imap",	MAIN_STRING,	F(setup_imap),
	  0 },
	{ MO_SMTP,		"--smtp",	MAIN_STRING,	F(setup_smtp),
	  0 },
	{ MO_PASSWORD_COMMAND,	"--password-command", MAIN_STRING,
	  F(setup_password_command), 0 },
	{ MO_PIN,		"--pin",	MAIN_STRING,	F(setup_pin), 0 },
	{ MO_YES,		"--yes",	MAIN_FLAG,	F(yes), 0 },
	{ MO_ALL_FOLDERS,	"--all-folders", MAIN_FLAG,	F(all_folders),
	  0 },
	{ MO_ACCOUNT,		"-A",		MAIN_STRING,	F(account), 0 },
	{ MO_CONFIG,		"-F",		MAIN_STRING,	F(config_path),
	  0 },
	{ MO_DEBUG,		"-d",		MAIN_STRING,	F(debug), 0 },
	{ MO_OFFLINE,		"--offline",	MAIN_FLAG,	F(offline), 0 },
};
#undef F

/* What a command needs of the configuration before it runs. */
enum main_config {
	MAIN_CONFIG,		/* the configuration, or an error */
	MAIN_CONFIG_NONE,	/* nothing: it does not read one */
	MAIN_CONFIG_OPTIONAL,	/* without one, a warning and the defaults */
	MAIN_CONFIG_NEW		/* -F FILE that is not there yet: empty */
};

struct main_cmd {
	const char	*name;		/* as it is typed: "--list", "-s" */
	int		(*exec)(struct cmd_ctx *);
	int		 maxargs;	/* operands; -1: the command checks */
	unsigned	 options;	/* the O() that go with it */
	enum main_config config;
	size_t		 argoff;	/* its own argument's field, or 0 */
};

static int	main_help_config(struct cmd_ctx *);

static const struct main_cmd main_cmds[] = {
	{ "-s",			cmd_send,	-1, O_SEND, MAIN_CONFIG,
	  offsetof(struct cmd_ctx, subject) },
	{ "--resume",		cmd_resume,	-1, O_PROTECT, MAIN_CONFIG,
	  offsetof(struct cmd_ctx, resume) },
	{ "--flush",		cmd_flush,	0, 0, MAIN_CONFIG, 0 },
	{ "--list",		cmd_list,	1, O(SORT) | O(LIMIT),
	  MAIN_CONFIG, 0 },
	{ "--folders",		cmd_folders,	0, 0, MAIN_CONFIG, 0 },
	{ "--fetch",		cmd_fetch,	-1, O(PART), MAIN_CONFIG, 0 },
	{ "--search",		cmd_search,	-1, O(ALL_FOLDERS), MAIN_CONFIG,
	  0 },
	{ "--sync",		cmd_sync,	1, 0, MAIN_CONFIG, 0 },
	{ "--flag",		cmd_flag,	-1, 0, MAIN_CONFIG, 0 },
	{ "--move",		cmd_move,	-1, 0, MAIN_CONFIG, 0 },
	{ "--delete",		cmd_delete,	-1, 0, MAIN_CONFIG, 0 },
	{ "--idle",		cmd_idle,	1, O(TIMEOUT), MAIN_CONFIG, 0 },
	{ "--view",		cmd_view,	1, 0, MAIN_CONFIG_OPTIONAL, 0 },
	{ "--inspect",		cmd_inspect,	-1, 0, MAIN_CONFIG_OPTIONAL, 0 },
	{ "--genkey",		cmd_genkey,	0, O(SMIME), MAIN_CONFIG, 0 },
	{ "--export-key",	cmd_export_key,	0, O(SMIME), MAIN_CONFIG, 0 },
	{ "--import-key",	cmd_import_key,	-1, 0, MAIN_CONFIG, 0 },
	{ "--export-secret-key", cmd_export_secret_key, -1, 0, MAIN_CONFIG,
	  0 },
	{ "--export-setup",	cmd_export_setup, -1, 0, MAIN_CONFIG, 0 },
	{ "--import-setup",	cmd_import_setup, -1, 0, MAIN_CONFIG, 0 },
	{ "--oauth-login",	cmd_oauth2_login, 0, O(BROWSER), MAIN_CONFIG,
	  0 },
	{ "--lookup",		cmd_lookup,	-1, 0, MAIN_CONFIG, 0 },
	{ "--dns-records",	cmd_dns_records, -1, 0, MAIN_CONFIG, 0 },
	{ "--publish",		cmd_publish,	-1, O(YES), MAIN_CONFIG, 0 },
	{ "--trust",		cmd_trust,	-1, 0, MAIN_CONFIG, 0 },
	{ "--setup",		cmd_setup,	-1, O_SETUP, MAIN_CONFIG_NEW, 0 },
	{ "--check-config",	cmd_check_config, 0, 0, MAIN_CONFIG, 0 },
	{ "--help-config",	main_help_config, 0, 0, MAIN_CONFIG_NONE, 0 },
};
#define MAIN_NCMDS	(sizeof main_cmds / sizeof main_cmds[0])
#define MAIN_NOPTS	(sizeof main_opts / sizeof main_opts[0])

#define MAIN_TIMEOUT_MAX	86400	/* seconds --idle may wait at most */


static void
main_usage(FILE *f)
{
	fputs(
"usage: steedmail [-F CONFIG] [-A ACCOUNT] [-d LEVEL] COMMAND\n"
"       steedmail -s SUBJECT [-c ADDR]... [-b ADDR]... [-a FILE]... [--] RCPT...\n"
"\n"
"Commands:\n"
"  -s SUBJECT         send standard input as a message to RCPT...\n"
"  -c ADDR            with -s: a Cc recipient (repeatable)\n"
"  -b ADDR            with -s: a Bcc recipient (repeatable)\n"
"  -a FILE            with -s: attach FILE (repeatable)\n"
"  --sign             with -s: sign (PGP/MIME; the key is made if need be)\n"
"  --encrypt          with -s: sign and encrypt to every recipient\n"
"  --no-encrypt       with -s: do not encrypt, whatever the policy says\n"
"  --require-encryption  with -s: encrypt, or send nothing (exit 69)\n"
"  --reply FILE       with -s: a reply to the message in FILE (In-Reply-To,\n"
"                     References); encrypted if FILE was, or not sent\n"
"  --quote            with --reply: quote FILE's text above the body\n"
"  --forward FILE     with -s: forward the message in FILE, attached\n"
"  --forward-inline FILE  with -s: forward it in the body, below yours\n"
"  --postpone         with -s: keep the draft instead of sending it; its\n"
"                     file name on stdout (encrypted to you if it would be)\n"
"  --resume FILE      send a postponed draft (the flags of -s apply)\n"
"  --smime            with -s, --genkey, --export-key: S/MIME instead;\n"
"                     with --setup: an S/MIME certificate too\n"
"  --genkey           make the account's key if it has none; show it\n"
"  --oauth-login      sign an account with auth = oauth2 in: a URL and a\n"
"                     code to enter there; the token kept encrypted\n"
"  --browser          with --oauth-login: sign in with a browser on this\n"
"                     computer instead ($BROWSER, else xdg-open)\n"
"  --export-key       the account's public key, ASCII-armored, on stdout\n"
"  --import-key FILE|-  add public keys or certificates to steedmail's home\n"
"  --export-secret-key  the account's secret key, armored, on stdout\n"
"  --export-setup     put an Autocrypt Setup Message with the account's key\n"
"                     in its INBOX; print its setup code, once\n"
"  --import-setup [FILE|-]  import the key from the setup message in INBOX\n"
"                     (or FILE) with its setup code\n"
"  --lookup ADDR...   look up correspondents' keys in DNS (OPENPGPKEY,\n"
"                     SMIMEA) with DNSSEC; one line per address and type\n"
"  --dns-records [ACCOUNT]  the DNS records that publish the account's keys\n"
"  --publish [--yes]  send them to the account's DNS server (dns-update-*\n"
"                     settings) as a signed update; say if they are secure\n"
"  --setup --address ADDR [--name NAME]  add an account: find its servers,\n"
"                     log in, make its key, save it (the password encrypted\n"
"                     to the key), print its DNS records\n"
"  --imap URL, --smtp URL  with --setup: these servers (checked, not sought)\n"
"  --password-command CMD  with --setup: the password is CMD's first line\n"
"  --pin SHA256       with --setup: accept exactly the server certificate\n"
"                     with this fingerprint\n"
"  --yes              with --setup: use the servers found without asking;\n"
"                     with --publish: replace the records without asking\n"
"  --flush            send what the outbox holds\n"
"  --sync [FOLDER]    bring the header cache up to date; print the count\n"
"  --list [FOLDER]    one line per message: UID, flags, date, from, subject\n"
"  --folders          one line per folder: name, unseen, total; INBOX and\n"
"                     the special folders (Sent, Trash, ...) first\n"
"  --fetch UID [FOLDER]  the raw message on standard output (from the body\n"
"                     cache when it is there)\n"
"  --search QUERY [FOLDER]  the messages that match, in --list's form:\n"
"                     words, \"a phrase\", prefix*, from: to: subject:\n"
"                     date:FROM..TO, OR, NOT, -word, ( ); plain words\n"
"                     also asked of the server unless --offline\n"
"  --all-folders      with --search: in every folder, each line after\n"
"                     its folder's name and a TAB\n"
"  --part SECTION     with --fetch: only this MIME part (1, 2.1, ...)\n"
"  --sort ORDER       with --list: arrival (default), date, from, subject,\n"
"                     size or thread; -ORDER reverses it\n"
"  --limit EXPR       with --list: only the matching messages (~f ~s ~t\n"
"                     ~N ~F ~D, words, !; see steedmail(1))\n"
"  --flag UID FLAGS [FOLDER]\n"
"                     change flags: +LETTERS adds, -LETTERS removes, from\n"
"                     D draft, F flagged, R replied, S seen, T deleted\n"
"  --move UID TOFOLDER [FOLDER]  move a message to another folder\n"
"  --delete UID [FOLDER]  move a message to Trash (in Trash: remove it)\n"
"  --idle [FOLDER]    wait for a change and print it: \"new mail\",\n"
"                     \"expunged\", \"flags changed\" or \"timeout\"\n"
"  --timeout SECONDS  with --idle: how long to wait (default 300)\n"
"  --view FILE|-      a message as the pager shows it, as plain text\n"
"  --inspect FILE|- [FILE...]  a message's security verdicts, as\n"
"                     key: value lines\n"
"  --trust list|show ADDR|verify ADDR FPR|accept ADDR [FPR]|reject ADDR FPR|\n"
"          forget ADDR  the trust store: correspondents' keys and states\n"
"  --trust export FILE|import FILE  the whole trust store to a file, and\n"
"                     merged from one (another device's)\n"
"  --check-config     read the configuration, report problems, list accounts\n"
"  --help-config      list every configuration setting\n"
"  -h, --help         show this help\n"
"  -V, --version      show the version\n"
"\n"
"Options:\n"
"  -F FILE            configuration file (default:\n"
"                     $XDG_CONFIG_HOME/steedmail/config)\n"
"  -A ACCOUNT         account to use (default: default-account, or the first)\n"
"  --offline          never connect: cached mail only (flag changes and\n"
"                     mail to send wait for the next time)\n"
"  -d LEVEL           write a debug log (1 info, 2 protocol, 3 trace) to\n"
"                     $XDG_CACHE_HOME/steedmail/debug.log; passwords and\n"
"                     decrypted text are never written to it\n"
"\n"
"FOLDER defaults to INBOX. See steedmail(1) and steedmail.conf(5).\n", f);
}

static int
main_help_config(struct cmd_ctx *ctx)
{
	size_t	i;
	const struct config_setting *s;

	(void)ctx;
	for (i = 0; i < config_nsettings; i++) {
		s = &config_settings[i];
		printf("%-8s %-18s %-8s %s%s\n",
		    s->scope == CONFIG_GLOBAL ? "global" : "account",
		    s->name, s->metavar, s->help,
		    s->required ? " (required)" : "");
	}
	return EX_OK;
}

/* --check-config's warnings about the accounts that sign in with OAuth2. */
static void
main_check_oauth2(struct config *cf)
{
	struct oauth2_endpoints	 e;
	struct account		*a;
	char			*cause = NULL, *path;

	for (a = cf->accounts; a != NULL; a = a->next) {
		if (!oauth2_account(a))
			continue;
		if (oauth2_endpoints(cf, a, &e, &cause) == -1) {
			cmd_error("warning: %s", cause);
			free(cause);
			cause = NULL;
			continue;
		}
		oauth2_endpoints_free(&e);
		if ((path = oauth2_token_path(a, &cause)) == NULL) {
			cmd_error("warning: %s", cause);
			free(cause);
			cause = NULL;
			continue;
		}
		if (access(path, F_OK) != 0)
			cmd_error("warning: account %s signs in with OAuth2 and "
			    "is not signed in yet: run steedmail -A %s "
			    "--oauth-login", a->id, a->id);
		if (a->password != NULL || a->password_file != NULL ||
		    a->password_command != NULL)
			cmd_error("warning: account %s signs in with OAuth2: "
			    "its password settings are not used", a->id);
		free(path);
	}
}

/*
 * --check-config's lines on an account's Sent, Trash, Drafts and Archive:
 * a line for each one its configuration names, then one for the others,
 * which are asked of the server (imap-role.h; the folder screen shows
 * what it chose).
 */
static void
main_check_roles(const struct account *a)
{
	struct buf	 b;
	const char	*name, *sep = "";
	char		*safe;
	int		 role;

	buf_init(&b);
	for (role = 0; role < IMAP_ROLES; role++) {
		if ((name = imap_role_configured(a, role)) == NULL) {
			buf_addf(&b, "%s%s", sep, imap_role_word(role));
			sep = ", ";
			continue;
		}
		safe = strsafe(name, 0);
		printf("    %s: \"%s\" (%s)\n", imap_role_word(role), safe,
		    imap_role_setting(role));
		free(safe);
	}
	if (b.len > 0) {
		buf_addc(&b, '\0');
		printf("    %s: as the server marks them, else by name\n",
		    b.data);
	}
	buf_free(&b);
}

int
cmd_check_config(struct cmd_ctx *ctx)
{
	struct config	*cf = ctx->cf;
	struct account	*a, *def;
	char		*safe, **audit;
	size_t		 i, n;

	audit = config_audit(cf, &n);
	for (i = 0; i < n; i++) {
		cmd_error("warning: %s", audit[i]);
		free(audit[i]);
	}
	free(audit);
	main_check_oauth2(cf);
	if (cf->naccounts == 0) {
		printf("%s: no accounts\n", cf->path);
		return EX_OK;
	}
	if ((def = cmd_account(ctx)) == NULL)
		return EX_USAGE;
	printf("%s: %zu account%s\n", cf->path, cf->naccounts,
	    cf->naccounts == 1 ? "" : "s");
	for (a = cf->accounts; a != NULL; a = a->next) {
		safe = strsafe(a->address, 0);
		printf("%c %s <%s> imap %s://%s:%u smtp %s://%s:%u\n",
		    a == def ? '*' : ' ', a->id, safe,
		    a->imap.tls == CONFIG_TLS_IMPLICIT ? "imaps" : "imap",
		    a->imap.host, a->imap.port,
		    a->smtp.tls == CONFIG_TLS_IMPLICIT ? "smtps" : "smtp",
		    a->smtp.host, a->smtp.port);
		free(safe);
		main_check_roles(a);
	}
	return EX_OK;
}

static int
main_open_log(const char *level_arg)
{
	char	*dir, *path, *cause = NULL, *end;
	long	 level;

	level = strtol(level_arg, &end, 10);
	if (*level_arg == '\0' || *end != '\0' || level < 1 || level > 3) {
		cmd_error("-d wants a level from 1 to 3");
		return -1;
	}
	if ((dir = paths_cache_dir(&cause)) == NULL) {
		cmd_error("%s", cause);
		free(cause);
		return -1;
	}
	path = xasprintf("%s/debug.log", dir);
	free(dir);
	if (log_open(path, (int)level, &cause) == -1) {
		cmd_error("%s", cause);
		free(cause);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

/* The argument of --timeout, or 0 after saying why. */
static int
main_timeout(const char *arg)
{
	char	*end;
	long	 n;

	n = strtol(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end != '\0' || n < 1 ||
	    n > MAIN_TIMEOUT_MAX) {
		cmd_error("--timeout wants seconds, from 1 to %d",
		    MAIN_TIMEOUT_MAX);
		return 0;
	}
	return (int)n;
}

/*
 * The FLAGS of --flag may start with '-' ("-S", "-FS"), which getopt would
 * take for options (-F even for one with an argument). When such a word
 * of flag letters comes right after the UID, as in "--flag 5 -S", it is
 * taken out before the options are parsed and put back among the
 * operands after (see main_put_flags).
 */
static char *
main_take_flags(int *argc, char **argv)
{
	char	*flags;
	int	 i;

	for (i = 1; i + 2 < *argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--flag") == 0)
			break;
	}
	if (i + 2 >= *argc || strcmp(argv[i], "--flag") != 0 ||
	    argv[i + 1][0] == '-' || argv[i + 2][0] != '-' ||
	    argv[i + 2][1] == '\0' || argv[i + 2][1] == '-' ||
	    argv[i + 2][strspn(argv[i + 2], "+-DFRST")] != '\0')
		return NULL;
	flags = argv[i + 2];
	for (i += 2; i < *argc; i++)
		argv[i] = argv[i + 1];
	(*argc)--;
	return flags;
}

/* Put FLAGS back after the UID operand; returns the new operand list. */
static char **
main_put_flags(struct cmd_ctx *ctx, char *flags)
{
	char	**v;
	int	  i, n = 0;

	v = xreallocarray(NULL, ctx->argc + 2, sizeof *v);
	for (i = 0; i < ctx->argc; i++) {
		v[n++] = ctx->argv[i];
		if (i == 0)
			v[n++] = flags;
	}
	if (ctx->argc == 0)
		v[n++] = flags;
	v[n] = NULL;
	ctx->argc = n;
	ctx->argv = v;
	return v;
}

/*
 * getopt_long's tables, made from main_cmds and main_opts: a long name's
 * value is MAIN_CMD_VAL or MAIN_OPT_VAL plus its index there, a letter's
 * is the letter.
 */
#define MAIN_CMD_VAL	0x1000
#define MAIN_OPT_VAL	0x2000

/* Room for every letter with its ':', "hV" and the NUL. */
#define MAIN_SHORTOPTS	(2 * (MAIN_NCMDS + MAIN_NOPTS) + 3)

static struct option *
main_getopt_tables(char shortopts[MAIN_SHORTOPTS])
{
	struct option	*lo;
	size_t		 i, n = 0, len = 2;
	const char	*name;
	int		 has_arg;

	lo = xcalloc(MAIN_NCMDS + MAIN_NOPTS + 3, sizeof *lo);
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n++] = (struct option){ "version", no_argument, NULL, 'V' };
	memcpy(shortopts, "hV", 3);
	for (i = 0; i < MAIN_NCMDS + MAIN_NOPTS; i++) {
		if (i < MAIN_NCMDS) {
			name = main_cmds[i].name;
			has_arg = main_cmds[i].argoff != 0;
		} else {
			name = main_opts[i - MAIN_NCMDS].name;
			has_arg = main_opts[i - MAIN_NCMDS].type != MAIN_FLAG;
		}
		if (name[1] != '-') {
			shortopts[len++] = name[1];
			if (has_arg)
				shortopts[len++] = ':';
			shortopts[len] = '\0';
			continue;
		}
		lo[n].name = name + 2;
		lo[n].has_arg = has_arg ? required_argument : no_argument;
		lo[n].val = i < MAIN_NCMDS ? MAIN_CMD_VAL + (int)i :
		    MAIN_OPT_VAL + (int)(i - MAIN_NCMDS);
		n++;
	}
	return lo;
}

/* The entry of the letter ch in main_cmds or main_opts. */
static int
main_letter(int ch, const struct main_cmd **cmd, const struct main_opt **opt)
{
	size_t	i;

	for (i = 0; i < MAIN_NCMDS; i++) {
		if (main_cmds[i].name[1] == ch) {
			*cmd = &main_cmds[i];
			return 0;
		}
	}
	for (i = 0; i < MAIN_NOPTS; i++) {
		if (main_opts[i].name[1] == ch) {
			*opt = &main_opts[i];
			return 0;
		}
	}
	return -1;
}

/* Keep an option's value where its entry says. */
static void
main_keep(struct cmd_ctx *ctx, const struct main_opt *o, char *arg)
{
	char	*base = (char *)ctx;
	char	***v;
	size_t	*n;

	switch (o->type) {
	case MAIN_FLAG:
		*(int *)(base + o->off) = 1;
		break;
	case MAIN_STRING:
		*(const char **)(base + o->off) = arg;
		break;
	case MAIN_LIST:
		v = (char ***)(base + o->off);
		n = (size_t *)(base + o->noff);
		*v = xreallocarray(*v, *n + 1, sizeof **v);
		(*v)[(*n)++] = arg;
		break;
	}
}

/*
 * The options and the command of the command line into ctx and *cmd (NULL:
 * none). Returns -1 to exit with *rc (after -h, -V, or a word that is
 * not an option), 0 otherwise.
 */
static int
main_parse(int argc, char **argv, struct cmd_ctx *ctx,
    const struct main_cmd **cmd, unsigned *used, int *rc)
{
	struct option		*lo;
	const struct main_cmd	*c;
	const struct main_opt	*o;
	char			 shortopts[MAIN_SHORTOPTS];
	int			 ch;

	*cmd = NULL;
	*used = 0;
	lo = main_getopt_tables(shortopts);
	while ((ch = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
		c = NULL;
		o = NULL;
		if (ch == 'h' || ch == 'V') {
			if (ch == 'h')
				main_usage(stdout);
			else
				printf("steedmail %s\n", STEED_VERSION);
			*rc = EX_OK;
			break;
		}
		if (ch >= MAIN_OPT_VAL)
			o = &main_opts[ch - MAIN_OPT_VAL];
		else if (ch >= MAIN_CMD_VAL)
			c = &main_cmds[ch - MAIN_CMD_VAL];
		else if (ch == '?' || main_letter(ch, &c, &o) == -1) {
			main_usage(stderr);
			*rc = EX_USAGE;
			break;
		}
		if (c != NULL) {
			if (*cmd != NULL && *cmd != c) {
				cmd_error("give one command at a time");
				*rc = EX_USAGE;
				break;
			}
			*cmd = c;
			if (c->argoff != 0)
				*(const char **)((char *)ctx + c->argoff) =
				    optarg;
			continue;
		}
		*used |= 1u << o->id;
		main_keep(ctx, o, optarg);
		if (o->id == MO_FORWARD || o->id == MO_FORWARD_INLINE)
			ctx->forward_inline = o->id == MO_FORWARD_INLINE;
		if (o->id == MO_TIMEOUT &&
		    (ctx->timeout = main_timeout(optarg)) == 0) {
			*rc = EX_USAGE;
			break;
		}
	}
	free(lo);
	return ch == -1 ? 0 : -1;
}

/* "A, B or C": the names of the commands option o goes with. */
static char *
main_goes_with(const struct main_opt *o)
{
	char	*s = NULL, *t;
	size_t	 i, n = 0, k = 0;

	for (i = 0; i < MAIN_NCMDS; i++)
		n += (main_cmds[i].options & (1u << o->id)) != 0;
	for (i = 0; i < MAIN_NCMDS; i++) {
		if ((main_cmds[i].options & (1u << o->id)) == 0)
			continue;
		k++;
		t = xasprintf("%s%s%s", s == NULL ? "" : s,
		    k == 1 ? "" : k == n ? " or " : ", ", main_cmds[i].name);
		free(s);
		s = t;
	}
	return s;
}

/*
 * What the command line asks, checked against the tables before anything
 * runs: the options that go with the command, how they go together, the
 * number of operands. Returns 0, or -1 after saying why.
 */
static int
main_check(const struct main_cmd *cmd, unsigned used, struct cmd_ctx *ctx)
{
	char	*with;
	size_t	 i;

	for (i = 0; i < MAIN_NOPTS; i++) {
		if ((used & (1u << main_opts[i].id)) == 0 ||
		    ((cmd->options | O_GLOBAL) & (1u << main_opts[i].id)))
			continue;
		with = main_goes_with(&main_opts[i]);
		cmd_error("%s goes with %s", main_opts[i].name, with);
		free(with);
		return -1;
	}
	if (ctx->quote && ctx->reply == NULL) {
		cmd_error("--quote goes with --reply");
		return -1;
	}
	if (ctx->forward != NULL && ctx->reply != NULL) {
		cmd_error("--forward and --forward-inline do not go with "
		    "--reply");
		return -1;
	}
	if (ctx->no_encrypt && (ctx->encrypt || ctx->require_encryption)) {
		cmd_error("--no-encrypt contradicts --encrypt and "
		    "--require-encryption");
		return -1;
	}
	if (cmd->maxargs >= 0 && ctx->argc > cmd->maxargs) {
		cmd_error("unexpected argument \"%s\"",
		    ctx->argv[cmd->maxargs]);
		return -1;
	}
	return 0;
}

/* The configuration cmd needs into ctx->cf; -1 after saying why. */
static int
main_config(enum main_config how, struct cmd_ctx *ctx)
{
	char	*cause = NULL, *safe;
	size_t	 i;

	switch (how) {
	case MAIN_CONFIG_NONE:
		return 0;
	case MAIN_CONFIG_NEW:
		/* --setup -F FILE makes FILE: until then it is an empty one. */
		if (ctx->config_path != NULL &&
		    access(ctx->config_path, F_OK) == -1) {
			ctx->cf = xcalloc(1, sizeof *ctx->cf);
			ctx->cf->path = xstrdup(ctx->config_path);
			return 0;
		}
		break;
	case MAIN_CONFIG:
	case MAIN_CONFIG_OPTIONAL:
		break;
	}
	if ((ctx->cf = config_load(ctx->config_path, &cause)) == NULL) {
		/* --view and --inspect want only the GnuPG home. */
		if (how == MAIN_CONFIG_OPTIONAL) {
			cmd_error("warning: %s; the default GnuPG home is "
			    "used", cause);
			free(cause);
			return 0;
		}
		safe = strsafe(cause, 0);
		fprintf(stderr, "%s\n", safe);
		free(safe);
		free(cause);
		return -1;
	}
	for (i = 0; i < ctx->cf->nwarnings; i++)
		cmd_error("warning: %s", ctx->cf->warnings[i]);
	ctx->cf->offline = ctx->offline;
	return 0;
}

/* No command, on a terminal: the curses interface (ui/tui-main.c). */
static int
main_interface(struct cmd_ctx *ctx, const char *mailto)
{
	int	rc;

	if (ctx->debug != NULL && main_open_log(ctx->debug) == -1)
		return EX_CANTCREAT;
	if (main_config(MAIN_CONFIG, ctx) == -1) {
		log_close();
		return EX_CONFIG;
	}
	rc = tui_main(ctx->cf, ctx->account, mailto);
	config_free(ctx->cf);
	log_close();
	return rc;
}

int
main(int argc, char **argv)
{
	const struct main_cmd	*cmd;
	struct cmd_ctx		 ctx;
	char			*flags, **operands = NULL;
	unsigned		 used;
	int			 rc = EX_USAGE;

	/* A peer that goes away is an error to report, not a reason to die. */
	signal(SIGPIPE, SIG_IGN);

	memset(&ctx, 0, sizeof ctx);
	flags = main_take_flags(&argc, argv);
	if (main_parse(argc, argv, &ctx, &cmd, &used, &rc) == -1)
		goto out;
	ctx.argc = argc - optind;
	ctx.argv = argv + optind;
	if (flags != NULL)
		operands = main_put_flags(&ctx, flags);
	if (cmd == NULL && ctx.argc == 0 && isatty(0) && isatty(1)) {
		rc = main_interface(&ctx, NULL);
		goto out;
	}
	/* steedmail mailto:URL, as a desktop's mail handler calls it */
	if (cmd == NULL && ctx.argc == 1 &&
	    strncasecmp(ctx.argv[0], "mailto:", 7) == 0) {
		if (!isatty(0) || !isatty(1))
			cmd_error("mailto: opens the compose screen, which "
			    "needs a terminal");
		else
			rc = main_interface(&ctx, ctx.argv[0]);
		goto out;
	}
	if (cmd == NULL) {
		cmd_error("no command given");
		main_usage(stderr);
		goto out;
	}
	if (main_check(cmd, used, &ctx) == -1)
		goto out;
	if (ctx.debug != NULL && main_open_log(ctx.debug) == -1) {
		rc = EX_CANTCREAT;
		goto out;
	}
	if (main_config(cmd->config, &ctx) == -1) {
		rc = EX_CONFIG;
		goto out;
	}
	cmd_hooks_install();
	rc = cmd->exec(&ctx);
	cmd_hooks_remove();
	config_free(ctx.cf);
out:
	free(ctx.cc);
	free(ctx.bcc);
	free(ctx.attach);
	free(operands);
	log_close();
	return rc;
}
