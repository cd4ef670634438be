/*
 * cli-publish.c: steedmail --publish, the account's key records sent to
 * its domain's DNS server as a signed dynamic update. PLACEHOLDER until
 * it lands: says so.
 */
#include <sysexits.h>

#include "cli.h"

int
cmd_publish(struct cmd_ctx *ctx)
{
	(void)ctx;
	cmd_error("--publish is not built yet");
	return EX_UNAVAILABLE;
}
