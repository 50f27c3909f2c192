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
#include <avahi-common/timeval.h>

// AvahiPoll is a vtable of function pointers; these wrap the two timer entries
// Discovery uses so Swift need not unwrap optional C function pointers.
// Call them on the poll's thread, or with avahi_threaded_poll_lock held.

/// Arms a one-shot timer `ms` milliseconds from now; NULL when out of memory.
static inline AvahiTimeout *share_avahi_timeout_new(
    const AvahiPoll *api, unsigned ms, AvahiTimeoutCallback callback, void *userdata) {
    struct timeval when;
    return api->timeout_new(api, avahi_elapse_time(&when, ms, 0), callback, userdata);
}

/// Disarms and frees a timer made by share_avahi_timeout_new.
static inline void share_avahi_timeout_free(const AvahiPoll *api, AvahiTimeout *timeout) {
    api->timeout_free(timeout);
}

#endif
