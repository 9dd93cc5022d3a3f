// memfd_create(2), which glibc declares only under _GNU_SOURCE (the Glibc module is built without
// it): an anonymous file in memory, for the pixels activate shares with its zxing helper.
#ifndef ACTIVATE_CMEMFD_H
#define ACTIVATE_CMEMFD_H

int memfd_create(const char *name, unsigned int flags);

/// The file is closed in the process on exec (the helper gets a duplicate as descriptor 3).
#define ACTIVATE_MFD_CLOEXEC 1U

#endif
