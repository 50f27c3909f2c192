#ifndef SHARE_CMAGIC_SHIM_H
#define SHARE_CMAGIC_SHIM_H
// libmagic, the library behind file(1): content sniffing from a file's first bytes.
#include <magic.h>
#endif
