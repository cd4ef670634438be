/*
 * main.c: steedmail's command line. It parses options, opens the debug log
 * and the configuration, and hands over to the command asked for. Commands
 * print; the engine modules they call never do.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "config.h"
#include "log.h"
#include "paths.h"
#include "strsafe.h"
#include "version.h"
#include "xmalloc.h"

enum {
	OPT_CHECK_CONFIG = 256,
	OPT_HELP_CONFIG
};

static const struct option main_options[] = {
	{ "help",		no_argument,		NULL, 'h' },
	{ "version",		no_argument,		NULL, 'V' },
	{ "check-config",	no_argument,		NULL, OPT_CHECK_CONFIG },
	{ "help-config",	no_argument,		NULL, OPT_HELP_CONFIG },
	{ NULL, 0, NULL, 0 }
};

static void
main_usage(FILE *f)
{
	fputs(
"usage: steedmail [-F CONFIG] [-A ACCOUNT] [-d LEVEL] COMMAND\n"
"\n"
"Commands:\n"
"  --check-config     read the configuration, report problems, list accounts\n"
"  --help-config      list every configuration setting\n"
"  -h, --help         show this help\n"
"  -V, --version      show the version\n"
"\n"
"Options:\n"
"  -F FILE            configuration file (default:\n"
"                     $XDG_CONFIG_HOME/steedmail/config)\n"
"  -A ACCOUNT         account to use (default: default-account, or the first)\n"
"  -d LEVEL           write a debug log (1 info, 2 protocol, 3 trace) to\n"
"                     $XDG_CACHE_HOME/steedmail/debug.log; passwords and\n"
"                     decrypted text are never written to it\n"
"\n"
"See steedmail(1) and steedmail.conf(5).\n", f);
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

static void
main_print_warnings(struct config *cf)
{
	size_t	 i;
	char	*safe;

	for (i = 0; i < cf->nwarnings; i++) {
		safe = strsafe(cf->warnings[i], 0);
		fprintf(stderr, "steedmail: warning: %s\n", safe);
		free(safe);
	}
}

static int
main_check_config(struct config *cf, const char *account)
{
	struct account	*a, *def;
	char		*cause = NULL, *safe;

	if (cf->naccounts == 0) {
		printf("%s: no accounts\n", cf->path);
		return EX_OK;
	}
	if ((def = config_account(cf, account, &cause)) == NULL) {
		safe = strsafe(cause, 0);
		fprintf(stderr, "steedmail: %s\n", safe);
		free(safe);
		free(cause);
		return EX_USAGE;
	}
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
		fprintf(stderr, "steedmail: -d wants a level from 1 to 3\n");
		return -1;
	}
	if ((dir = paths_cache_dir(&cause)) == NULL) {
		fprintf(stderr, "steedmail: %s\n", cause);
		free(cause);
		return -1;
	}
	path = xasprintf("%s/debug.log", dir);
	free(dir);
	if (log_open(path, (int)level, &cause) == -1) {
		fprintf(stderr, "steedmail: %s\n", cause);
		free(cause);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

int
main(int argc, char **argv)
{
	const char	*config_path = NULL, *account = NULL, *debug = NULL;
	struct config	*cf;
	char		*cause = NULL, *safe;
	int		 ch, command = 0, rc;

	while ((ch = getopt_long(argc, argv, "A:d:F:hV", main_options,
	    NULL)) != -1) {
		switch (ch) {
		case 'A':
			account = optarg;
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
		case 'V':
			printf("steedmail %s\n", STEED_VERSION);
			return EX_OK;
		case OPT_CHECK_CONFIG:
		case OPT_HELP_CONFIG:
			if (command != 0 && command != ch) {
				fprintf(stderr, "steedmail: give one command "
				    "at a time\n");
				return EX_USAGE;
			}
			command = ch;
			break;
		default:
			main_usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind != argc || command == 0) {
		if (optind != argc)
			fprintf(stderr, "steedmail: unexpected argument "
			    "\"%s\"\n", argv[optind]);
		else
			fprintf(stderr, "steedmail: no command given\n");
		main_usage(stderr);
		return EX_USAGE;
	}
	if (command == OPT_HELP_CONFIG) {
		main_help_config();
		return EX_OK;
	}
	if (debug != NULL && main_open_log(debug) == -1)
		return EX_CANTCREAT;

	if ((cf = config_load(config_path, &cause)) == NULL) {
		safe = strsafe(cause, 0);
		fprintf(stderr, "%s\n", safe);
		free(safe);
		free(cause);
		log_close();
		return EX_CONFIG;
	}
	main_print_warnings(cf);
	rc = main_check_config(cf, account);
	config_free(cf);
	log_close();
	return rc;
}
