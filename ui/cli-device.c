/*
 * cli-device.c: a second device: --export-setup and --import-setup (the
 * Autocrypt Setup Message), --export-secret-key. PLACEHOLDER until they
 * land: says so.
 */
#include <sysexits.h>

#include "cli.h"

int
cmd_export_setup(struct cmd_ctx *ctx)
{
	(void)ctx;
	cmd_error("--export-setup is not built yet");
	return EX_UNAVAILABLE;
}

int
cmd_import_setup(struct cmd_ctx *ctx)
{
	(void)ctx;
	cmd_error("--import-setup is not built yet");
	return EX_UNAVAILABLE;
}

int
cmd_export_secret_key(struct cmd_ctx *ctx)
{
	(void)ctx;
	cmd_error("--export-secret-key is not built yet");
	return EX_UNAVAILABLE;
}
