// Finding a load object's separate debug file (elfutils' find_debuginfo
// callback) without opening anything but regular files. The object may be
// an experiment's archived copy or a path an experiment names, and its
// .gnu_debuglink names any file beside it: elfutils' own search would open a
// FIFO planted there and wait for a writer forever.
#pragma once

#include <elfutils/libdwfl.h>

namespace lumen::analysis {

// Looks where elfutils does (/usr/lib/debug/.build-id/NN/REST.debug, then
// the debuglink name beside the object, in its .debug/ and under
// /usr/lib/debug), opening each candidate only if it is a regular file and,
// when the object has a build-id, only one that carries the same. Returns a
// descriptor libdwfl takes over (naming it in *debuginfo_file_name), or -1.
int find_regular_debuginfo(Dwfl_Module* module, void** user_data, const char* module_name, Dwarf_Addr base,
                           const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                           char** debuginfo_file_name);

}  // namespace lumen::analysis
