/*
 * fuzz-config.c: the configuration file parser (config_load), on a file
 * holding the input. A file it accepts is one whose every account has
 * what it must, and whose warnings are C strings; one it refuses says
 * where ("file:line: ...").
 */
#include <sys/mman.h>

#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"

#include "config.h"

static int	fuzz_fd = -1;
static char	fuzz_path[64];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if ((fuzz_fd = memfd_create("steed-fuzz-config", 0)) == -1)
		abort();
	snprintf(fuzz_path, sizeof fuzz_path, "/proc/self/fd/%d", fuzz_fd);
	setenv("HOME", "/nonexistent", 1);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct config	*cf;
	struct account	*a;
	char		*cause = NULL;

	if (ftruncate(fuzz_fd, 0) == -1 ||
	    pwrite(fuzz_fd, data, len, 0) != (ssize_t)len)
		abort();
	if ((cf = config_load(fuzz_path, &cause)) == NULL) {
		FUZZ_ASSERT(cause != NULL && strstr(cause, fuzz_path) != NULL);
		free(cause);
		return 0;
	}
	for (a = cf->accounts; a != NULL; a = a->next) {
		FUZZ_ASSERT(a->id != NULL && a->address != NULL);
		FUZZ_ASSERT(a->imap.host != NULL && a->smtp.host != NULL);
		(void)config_account(cf, a->id, &cause);
	}
	config_free(cf);
	return 0;
}
