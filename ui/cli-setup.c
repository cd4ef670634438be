/*
 * cli-setup.c: steedmail --setup, the setup wizard's steps (account/setup.h)
 * from the command line; on a terminal without answers, the wizard's
 * screens. PLACEHOLDER until the wizard lands: says so.
 */
#include <sysexits.h>

#include "cli.h"

int
cmd_setup(struct cmd_ctx *ctx)
{
	(void)ctx;
	cmd_error("--setup is not built yet");
	return EX_UNAVAILABLE;
}
