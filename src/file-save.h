/*
 * file-save.h: a file a person named, opened for writing (an attachment
 * saved from the pager, the file of --trust export): never anything but
 * a regular file. A FIFO would hold open() until someone reads it, a
 * terminal or a device would take the bytes; either is refused with a
 * plain sentence instead. Used by both front ends.
 */
#ifndef STEED_FILE_SAVE_H
#define STEED_FILE_SAVE_H

#include <sys/types.h>

/*
 * What the entry name in the directory dfd (AT_FDCWD: the working
 * directory) is, when it is there and not a regular file: "a FIFO", "a
 * directory", "a symbolic link", "a socket", "a character device", "a
 * block device", "a special file"; NULL for a regular file and for a name
 * that is not there (or cannot be looked at). A link is not followed.
 */
const char	*file_save_kind(int dfd, const char *name);

/*
 * Open name in dfd for writing, with flags (O_CREAT, O_EXCL, O_TRUNC,
 * O_NOFOLLOW, O_APPEND as the caller wants; O_WRONLY and O_CLOEXEC are
 * added) and mode. The open never waits (O_NONBLOCK, cleared again once
 * the file is known to be regular), and O_TRUNC is done only then. Returns
 * the descriptor, or -1 and *cause: "SHOWN is not a regular file (a
 * FIFO)", or "SHOWN: " and the system's reason. shown is how the caller
 * names the file to the person.
 */
int		 file_save_open(int dfd, const char *name, const char *shown,
		     int flags, mode_t mode, char **cause);

#endif
