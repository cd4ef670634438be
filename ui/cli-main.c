/*
 * cli-main.c: steedmail's command line. It parses options, opens the debug log
 * and the configuration, and hands over to the command asked for (cli-*.c).
 * Commands print; the engine modules they call never do.
 */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sysexits.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "log.h"
#include "oauth2.h"
#include "paths.h"
#include "strsafe.h"
#include "tui.h"
#include "version.h"
#include "xmalloc.h"

enum {
	CMD_NONE = 0,
	CMD_SEND,
	CMD_CHECK_CONFIG = 256,
	CMD_HELP_CONFIG,
	CMD_LIST,
	CMD_FETCH,
	CMD_VIEW,
	CMD_SYNC,
	CMD_FLUSH,
	CMD_FLAG,
	CMD_MOVE,
	CMD_DELETE,
	CMD_IDLE,
	OPT_TIMEOUT,
	OPT_PART,
	OPT_SORT,
	OPT_LIMIT,
	CMD_GENKEY,
	CMD_EXPORT_KEY,
	CMD_IMPORT_KEY,
	OPT_SIGN,
	OPT_ENCRYPT,
	OPT_SMIME,
	CMD_INSPECT,
	CMD_LOOKUP,
	CMD_DNS_RECORDS,
	CMD_TRUST,
	OPT_NO_ENCRYPT,
	OPT_REQUIRE_ENCRYPTION,
	OPT_REPLY,
	CMD_FOLDERS,
	OPT_POSTPONE,
	OPT_QUOTE,
	OPT_FORWARD,
	OPT_FORWARD_INLINE,
	CMD_RESUME,
	CMD_SETUP,
	OPT_NAME,
	OPT_ADDRESS,
	OPT_IMAP,
	OPT_SMTP,
	OPT_PASSWORD_COMMAND,
	OPT_YES,
	OPT_PIN,
	CMD_PUBLISH,
	CMD_EXPORT_SETUP,
	CMD_IMPORT_SETUP,
	CMD_EXPORT_SECRET_KEY,
	CMD_SEARCH,
	OPT_OFFLINE,
	CMD_OAUTH2_LOGIN,
	OPT_BROWSER
};

#define MAIN_TIMEOUT_MAX	86400	/* seconds --idle may wait at most */

static const struct option main_options[] = {
	{ "help",		no_argument,	NULL, 'h' },
	{ "version",		no_argument,	NULL, 'V' },
	{ "check-config",	no_argument,	NULL, CMD_CHECK_CONFIG },
	{ "help-config",	no_argument,	NULL, CMD_HELP_CONFIG },
	{ "list",		no_argument,	NULL, CMD_LIST },
	{ "folders",		no_argument,	NULL, CMD_FOLDERS },
	{ "fetch",		no_argument,	NULL, CMD_FETCH },
	{ "view",		no_argument,	NULL, CMD_VIEW },
	{ "inspect",		no_argument,	NULL, CMD_INSPECT },
	{ "sync",		no_argument,	NULL, CMD_SYNC },
	{ "flush",		no_argument,	NULL, CMD_FLUSH },
	{ "flag",		no_argument,	NULL, CMD_FLAG },
	{ "move",		no_argument,	NULL, CMD_MOVE },
	{ "delete",		no_argument,	NULL, CMD_DELETE },
	{ "idle",		no_argument,	NULL, CMD_IDLE },
	{ "timeout",		required_argument, NULL, OPT_TIMEOUT },
	{ "part",		required_argument, NULL, OPT_PART },
	{ "sort",		required_argument, NULL, OPT_SORT },
	{ "limit",		required_argument, NULL, OPT_LIMIT },
	{ "genkey",		no_argument,	NULL, CMD_GENKEY },
	{ "export-key",		no_argument,	NULL, CMD_EXPORT_KEY },
	{ "import-key",		no_argument,	NULL, CMD_IMPORT_KEY },
	{ "sign",		no_argument,	NULL, OPT_SIGN },
	{ "encrypt",		no_argument,	NULL, OPT_ENCRYPT },
	{ "smime",		no_argument,	NULL, OPT_SMIME },
	{ "no-encrypt",		no_argument,	NULL, OPT_NO_ENCRYPT },
	{ "require-encryption",	no_argument,	NULL, OPT_REQUIRE_ENCRYPTION },
	{ "reply",		required_argument, NULL, OPT_REPLY },
	{ "postpone",		no_argument,	NULL, OPT_POSTPONE },
	{ "quote",		no_argument,	NULL, OPT_QUOTE },
	{ "forward",		required_argument, NULL, OPT_FORWARD },
	{ "forward-inline",	required_argument, NULL, OPT_FORWARD_INLINE },
	{ "resume",		required_argument, NULL, CMD_RESUME },
	{ "trust",		no_argument,	NULL, CMD_TRUST },
	{ "lookup",		no_argument,	NULL, CMD_LOOKUP },
	{ "dns-records",	no_argument,	NULL, CMD_DNS_RECORDS },
	{ "setup",		no_argument,	NULL, CMD_SETUP },
	{ "name",		required_argument, NULL, OPT_NAME },
	{ "address",		required_argument, NULL, OPT_ADDRESS },
	{ "imap",		required_argument, NULL, OPT_IMAP },
	{ "smtp",		required_argument, NULL, OPT_SMTP },
	{ "password-command",	required_argument, NULL, OPT_PASSWORD_COMMAND },
	{ "yes",		no_argument,	NULL, OPT_YES },
	{ "pin",		required_argument, NULL, OPT_PIN },
	{ "publish",		no_argument,	NULL, CMD_PUBLISH },
	{ "export-setup",	no_argument,	NULL, CMD_EXPORT_SETUP },
	{ "import-setup",	no_argument,	NULL, CMD_IMPORT_SETUP },
	{ "export-secret-key",	no_argument,	NULL, CMD_EXPORT_SECRET_KEY },
	{ "search",		no_argument,	NULL, CMD_SEARCH },
	{ "offline",		no_argument,	NULL, OPT_OFFLINE },
	{ "oauth-login",	no_argument,	NULL, CMD_OAUTH2_LOGIN },
	{ "browser",		no_argument,	NULL, OPT_BROWSER },
	{ NULL, 0, NULL, 0 }
};

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
"  --search QUERY [FOLDER]  the cached messages that match, in --list's\n"
"                     form: words, \"a phrase\", prefix*, from: to:\n"
"                     subject: date:FROM..TO, OR, NOT, -word, ( )\n"
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

static void
main_help_config(void)
{
	size_t	i;
	const struct config_setting *s;

	for (i = 0; i < config_nsettings; i++) {
		s = &config_settings[i];
		printf("%-8s %-18s %-8s %s%s\n",
		    s->scope == CONFIG_GLOBAL ? "global" : "account",
		    s->name, s->metavar, s->help,
		    s->required ? " (required)" : "");
	}
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

static void
main_push(char ***v, size_t *n, char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = s;
}

static int
main_run(int command, struct cmd_ctx *ctx)
{
	switch (command) {
	case CMD_SEND:		return cmd_send(ctx);
	case CMD_FLUSH:		return cmd_flush(ctx);
	case CMD_RESUME:	return cmd_resume(ctx);
	case CMD_LIST:		return cmd_list(ctx);
	case CMD_FOLDERS:	return cmd_folders(ctx);
	case CMD_FETCH:		return cmd_fetch(ctx);
	case CMD_SYNC:		return cmd_sync(ctx);
	case CMD_VIEW:		return cmd_view(ctx);
	case CMD_INSPECT:	return cmd_inspect(ctx);
	case CMD_FLAG:		return cmd_flag(ctx);
	case CMD_MOVE:		return cmd_move(ctx);
	case CMD_DELETE:	return cmd_delete(ctx);
	case CMD_IDLE:		return cmd_idle(ctx);
	case CMD_GENKEY:	return cmd_genkey(ctx);
	case CMD_EXPORT_KEY:	return cmd_export_key(ctx);
	case CMD_IMPORT_KEY:	return cmd_import_key(ctx);
	case CMD_TRUST:		return cmd_trust(ctx);
	case CMD_LOOKUP:	return cmd_lookup(ctx);
	case CMD_DNS_RECORDS:	return cmd_dns_records(ctx);
	case CMD_SETUP:		return cmd_setup(ctx);
	case CMD_PUBLISH:	return cmd_publish(ctx);
	case CMD_EXPORT_SETUP:	return cmd_export_setup(ctx);
	case CMD_IMPORT_SETUP:	return cmd_import_setup(ctx);
	case CMD_EXPORT_SECRET_KEY: return cmd_export_secret_key(ctx);
	case CMD_SEARCH:	return cmd_search(ctx);
	case CMD_OAUTH2_LOGIN:	return cmd_oauth2_login(ctx);
	default:		return cmd_check_config(ctx);
	}
}

/* No command, on a terminal: the curses interface (ui/tui-main.c). */
static int
main_interface(const char *config_path, const char *account,
    const char *debug, const char *mailto, int offline)
{
	struct config	*cf;
	char		*cause = NULL;
	size_t		 i;
	int		 rc;

	if (debug != NULL && main_open_log(debug) == -1)
		return EX_CANTCREAT;
	if ((cf = config_load(config_path, &cause)) == NULL) {
		char *safe = strsafe(cause, 0);
		fprintf(stderr, "%s\n", safe);
		free(safe);
		free(cause);
		log_close();
		return EX_CONFIG;
	}
	for (i = 0; i < cf->nwarnings; i++)
		cmd_error("warning: %s", cf->warnings[i]);
	cf->offline = offline;
	rc = tui_main(cf, account, mailto);
	config_free(cf);
	log_close();
	return rc;
}

int
main(int argc, char **argv)
{
	const char	*config_path = NULL, *debug = NULL;
	struct cmd_ctx	 ctx;
	char		*cause = NULL, *flags, **operands = NULL;
	size_t		 i;
	int		 ch, command = CMD_NONE, rc, offline = 0;

	/* A peer that goes away is an error to report, not a reason to die. */
	signal(SIGPIPE, SIG_IGN);

	memset(&ctx, 0, sizeof ctx);
	flags = main_take_flags(&argc, argv);
	while ((ch = getopt_long(argc, argv, "A:a:b:c:d:F:hs:V", main_options,
	    NULL)) != -1) {
		switch (ch) {
		case 'A':
			ctx.account = optarg;
			break;
		case 'a':
			main_push(&ctx.attach, &ctx.nattach, optarg);
			break;
		case 'b':
			main_push(&ctx.bcc, &ctx.nbcc, optarg);
			break;
		case 'c':
			main_push(&ctx.cc, &ctx.ncc, optarg);
			break;
		case 'd':
			debug = optarg;
			break;
		case 'F':
			config_path = optarg;
			break;
		case 'h':
			main_usage(stdout);
			return EX_OK;
		case CMD_RESUME:
			ctx.resume = optarg;
			/* FALLTHROUGH */
		case 's':
			if (ch == 's') {
				ctx.subject = optarg;
				ch = CMD_SEND;
			}
			/* FALLTHROUGH */
		case CMD_CHECK_CONFIG:
		case CMD_HELP_CONFIG:
		case CMD_LIST:
		case CMD_FOLDERS:
		case CMD_FETCH:
		case CMD_VIEW:
		case CMD_INSPECT:
		case CMD_SYNC:
		case CMD_FLUSH:
		case CMD_FLAG:
		case CMD_MOVE:
		case CMD_DELETE:
		case CMD_IDLE:
		case CMD_GENKEY:
		case CMD_EXPORT_KEY:
		case CMD_IMPORT_KEY:
		case CMD_LOOKUP:
		case CMD_DNS_RECORDS:
		case CMD_TRUST:
		case CMD_SETUP:
		case CMD_PUBLISH:
		case CMD_EXPORT_SETUP:
		case CMD_IMPORT_SETUP:
		case CMD_EXPORT_SECRET_KEY:
		case CMD_SEARCH:
		case CMD_OAUTH2_LOGIN:
			if (command != CMD_NONE && command != ch) {
				cmd_error("give one command at a time");
				return EX_USAGE;
			}
			command = ch;
			break;
		case OPT_OFFLINE:
			offline = 1;
			break;
		case OPT_SIGN:
			ctx.sign = 1;
			break;
		case OPT_ENCRYPT:
			ctx.encrypt = 1;
			break;
		case OPT_SMIME:
			ctx.smime = 1;
			break;
		case OPT_NO_ENCRYPT:
			ctx.no_encrypt = 1;
			break;
		case OPT_REQUIRE_ENCRYPTION:
			ctx.require_encryption = 1;
			break;
		case OPT_REPLY:
			ctx.reply = optarg;
			break;
		case OPT_POSTPONE:
			ctx.postpone = 1;
			break;
		case OPT_QUOTE:
			ctx.quote = 1;
			break;
		case OPT_FORWARD:
		case OPT_FORWARD_INLINE:
			ctx.forward = optarg;
			ctx.forward_inline = ch == OPT_FORWARD_INLINE;
			break;
		case OPT_PART:
			ctx.part = optarg;
			break;
		case OPT_NAME:
			ctx.setup_name = optarg;
			break;
		case OPT_ADDRESS:
			ctx.setup_address = optarg;
			break;
		case OPT_IMAP:
			ctx.setup_imap = optarg;
			break;
		case OPT_SMTP:
			ctx.setup_smtp = optarg;
			break;
		case OPT_PASSWORD_COMMAND:
			ctx.setup_password_command = optarg;
			break;
		case OPT_BROWSER:
			ctx.browser = 1;
			break;
		case OPT_YES:
			ctx.yes = 1;
			break;
		case OPT_PIN:
			ctx.setup_pin = optarg;
			break;
		case OPT_SORT:
			ctx.sort = optarg;
			break;
		case OPT_LIMIT:
			ctx.limit = optarg;
			break;
		case OPT_TIMEOUT:
			if ((ctx.timeout = main_timeout(optarg)) == 0)
				return EX_USAGE;
			break;
		case 'V':
			printf("steedmail %s\n", STEED_VERSION);
			return EX_OK;
		default:
			main_usage(stderr);
			return EX_USAGE;
		}
	}
	ctx.argc = argc - optind;
	ctx.argv = argv + optind;
	if (flags != NULL)
		operands = main_put_flags(&ctx, flags);
	if (command == CMD_NONE && ctx.argc == 0 && isatty(0) && isatty(1))
		return main_interface(config_path, ctx.account, debug, NULL,
		    offline);
	/* steedmail mailto:URL, as a desktop's mail handler calls it */
	if (command == CMD_NONE && ctx.argc == 1 &&
	    strncasecmp(ctx.argv[0], "mailto:", 7) == 0) {
		if (!isatty(0) || !isatty(1)) {
			cmd_error("mailto: opens the compose screen, which "
			    "needs a terminal");
			return EX_USAGE;
		}
		return main_interface(config_path, ctx.account, debug,
		    ctx.argv[0], offline);
	}
	if (command == CMD_NONE) {
		cmd_error("no command given");
		main_usage(stderr);
		return EX_USAGE;
	}
	if (command != CMD_SEND && (ctx.ncc || ctx.nbcc || ctx.nattach ||
	    ctx.reply != NULL)) {
		cmd_error("-c, -b, -a and --reply go with -s");
		return EX_USAGE;
	}
	if (ctx.quote && ctx.reply == NULL) {
		cmd_error("--quote goes with --reply");
		return EX_USAGE;
	}
	if (ctx.forward != NULL && (command != CMD_SEND ||
	    ctx.reply != NULL)) {
		cmd_error("--forward and --forward-inline go with -s, not "
		    "with --reply");
		return EX_USAGE;
	}
	if (command != CMD_SEND && ctx.postpone) {
		cmd_error("--postpone goes with -s");
		return EX_USAGE;
	}
	if (command != CMD_SEND && command != CMD_RESUME && (ctx.sign ||
	    ctx.encrypt || ctx.no_encrypt || ctx.require_encryption)) {
		cmd_error("--sign, --encrypt, --no-encrypt and "
		    "--require-encryption go with -s");
		return EX_USAGE;
	}
	if (ctx.no_encrypt && (ctx.encrypt || ctx.require_encryption)) {
		cmd_error("--no-encrypt contradicts --encrypt and "
		    "--require-encryption");
		return EX_USAGE;
	}
	if (ctx.smime && command != CMD_SEND && command != CMD_RESUME &&
	    command != CMD_GENKEY && command != CMD_EXPORT_KEY &&
	    command != CMD_SETUP) {
		cmd_error("--smime goes with -s, --genkey, --export-key or "
		    "--setup");
		return EX_USAGE;
	}
	if (command != CMD_LIST && (ctx.sort != NULL || ctx.limit != NULL)) {
		cmd_error("--sort and --limit go with --list");
		return EX_USAGE;
	}
	if (command != CMD_OAUTH2_LOGIN && ctx.browser) {
		cmd_error("--browser goes with --oauth-login");
		return EX_USAGE;
	}
	if (command != CMD_FETCH && ctx.part != NULL) {
		cmd_error("--part goes with --fetch");
		return EX_USAGE;
	}
	if (command != CMD_SETUP && (ctx.setup_name != NULL ||
	    ctx.setup_address != NULL || ctx.setup_imap != NULL ||
	    ctx.setup_smtp != NULL || ctx.setup_password_command != NULL ||
	    ctx.setup_pin != NULL)) {
		cmd_error("--name, --address, --imap, --smtp, "
		    "--password-command and --pin go with --setup");
		return EX_USAGE;
	}
	if (command != CMD_IDLE && ctx.timeout != 0) {
		cmd_error("--timeout goes with --idle");
		return EX_USAGE;
	}
	switch (command) {
	case CMD_HELP_CONFIG:
	case CMD_CHECK_CONFIG:
	case CMD_FLUSH:
	case CMD_FOLDERS:
	case CMD_GENKEY:
	case CMD_EXPORT_KEY:
	case CMD_OAUTH2_LOGIN:
		if (ctx.argc != 0) {
			cmd_error("unexpected argument \"%s\"", ctx.argv[0]);
			return EX_USAGE;
		}
		break;
	case CMD_LIST:
	case CMD_SYNC:
	case CMD_VIEW:
	case CMD_IDLE:
		if (ctx.argc > 1) {
			cmd_error("unexpected argument \"%s\"", ctx.argv[1]);
			return EX_USAGE;
		}
		break;
	}
	if (command == CMD_HELP_CONFIG) {
		main_help_config();
		return EX_OK;
	}
	if (debug != NULL && main_open_log(debug) == -1)
		return EX_CANTCREAT;

	/* --view and --inspect want only the GnuPG home: a broken or
	 * missing configuration does not stop them. */
	/* --setup -F FILE makes FILE: until then it is an empty one. */
	if (command == CMD_SETUP && config_path != NULL &&
	    access(config_path, F_OK) == -1) {
		ctx.cf = xcalloc(1, sizeof *ctx.cf);
		ctx.cf->path = xstrdup(config_path);
	} else if ((ctx.cf = config_load(config_path, &cause)) == NULL &&
	    (command == CMD_VIEW || command == CMD_INSPECT)) {
		cmd_error("warning: %s; the default GnuPG home is used", cause);
		free(cause);
	} else if (ctx.cf == NULL) {
		char *safe = strsafe(cause, 0);
		fprintf(stderr, "%s\n", safe);
		free(safe);
		free(cause);
		log_close();
		return EX_CONFIG;
	}
	for (i = 0; ctx.cf != NULL && i < ctx.cf->nwarnings; i++)
		cmd_error("warning: %s", ctx.cf->warnings[i]);
	if (ctx.cf != NULL)
		ctx.cf->offline = offline;
	ctx.config_path = config_path;
	cmd_hooks_install();
	rc = main_run(command, &ctx);
	cmd_hooks_remove();
	config_free(ctx.cf);
	free(ctx.cc);
	free(ctx.bcc);
	free(ctx.attach);
	free(operands);
	log_close();
	return rc;
}
