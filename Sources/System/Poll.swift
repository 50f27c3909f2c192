import Glibc

/// Waits with `poll` until `fd` has one of `events` (or an error or hang-up) or `deadline`
/// passes. Returns the events received, or 0 once the deadline has passed. Interruptions are
/// retried with the time that remains. The corresponding C function is `poll`.
package func pollUntil(_ fd: Int32, events: Int16, deadline: ContinuousClock.Instant)
  throws(Errno) -> Int16
{
  while true {
    var entry = pollfd(fd: fd, events: events, revents: 0)
    let ready = try retryOnInterrupt { () throws(Errno) -> Int32 in
      let remaining = deadline - ContinuousClock.now
      return try valueOrErrno(retryOnInterrupt: false) {
        poll(&entry, 1, remaining.pollMilliseconds)
      }
    }
    if ready > 0 { return entry.revents }
    // poll rounds to whole milliseconds and may wake a little early.
    if ContinuousClock.now >= deadline { return 0 }
  }
}

/// Waits with `poll`, without a time limit, until `fd` is readable (which an end of the
/// connection makes it) or hung up (true), or `wake`
/// is readable (false): another thread ends the wait by writing to `wake`. Interruptions are
/// retried; a failing `poll` counts as `fd`'s end. The corresponding C function is `poll`.
package func pollReadable(_ fd: Int32, orWake wake: Int32) -> Bool {
  var entries = [
    pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
    pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
  ]
  let ready = try? retryOnInterrupt { () throws(Errno) -> Int32 in
    try valueOrErrno(retryOnInterrupt: false) { poll(&entries, 2, -1) }
  }
  guard ready != nil else { return true }
  return entries[0].revents != 0 || entries[1].revents == 0
}

/// Whether `fd` has one of `events` right now (a `poll` with a zero timeout).
package func pollNow(_ fd: Int32, events: Int16) -> Bool {
  var entry = pollfd(fd: fd, events: events, revents: 0)
  return poll(&entry, 1, 0) > 0 && entry.revents & events != 0
}

extension Duration {
  /// This duration as a `timeval` for `SO_RCVTIMEO` / `SO_SNDTIMEO`; at least 1 µs, because a
  /// zero `timeval` means "no timeout" to the kernel.
  package var timeval: timeval {
    let (seconds, attoseconds) = components
    if seconds < 0 || (seconds == 0 && attoseconds < 1_000_000_000_000) {
      return Glibc.timeval(tv_sec: 0, tv_usec: 1)
    }
    return Glibc.timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
  }

  /// Whole milliseconds for `poll`, rounded up, clamped to 0...Int32.max.
  var pollMilliseconds: Int32 {
    let (seconds, attoseconds) = components
    if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
    let ms = seconds.multipliedReportingOverflow(by: 1000)
    if ms.overflow { return Int32.max }
    let total = ms.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    return Int32(clamping: total)
  }
}
