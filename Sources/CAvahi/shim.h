#ifndef SHARE_CAVAHI_SHIM_H
#define SHARE_CAVAHI_SHIM_H
// Avahi's native client library (libavahi-client), not the dns_sd compatibility layer.
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#endif
