// What the zxing helper's start needs from glibc that it declares only under _GNU_SOURCE (the Glibc
// module is built without it): memfd_create(2), an anonymous file in memory for the pixels activate
// shares with the helper, and a spawn action that closes every other descriptor.
#ifndef ACTIVATE_CGLIBCEXTRAS_H
#define ACTIVATE_CGLIBCEXTRAS_H

int memfd_create(const char *name, unsigned int flags);

/// The file is closed in the process on exec (the helper gets a duplicate as descriptor 3).
#define ACTIVATE_MFD_CLOEXEC 1U

/// posix_spawn_file_actions_addclosefrom_np(3) (glibc 2.34): the helper is spawned with no descriptor of this process but its own, whatever others the process
/// holds without close-on-exec (SwiftNIO's sockets, for one: a listening socket inherited by the
/// helper would stay open, and its port taken, as long as the helper lives).
#include <spawn.h>
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

#endif
