import Glibc

/// Runs `body` again for as long as it fails with `Errno.interrupted` (`EINTR`: a signal arrived
/// while a call was blocked), and returns its first other outcome.
///
/// This is the one place in the code base where `EINTR` is retried. A blocking call wrapped here
/// must recompute anything time-dependent (a `poll` timeout) inside `body`.
package func retryOnInterrupt<Value>(_ body: () throws(Errno) -> Value) throws(Errno) -> Value {
  while true {
    do {
      return try body()
    } catch  where error == .interrupted {
      continue
    }
  }
}

/// Calls a system call that returns -1 and sets `errno` on failure, and returns its result or
/// throws the `Errno`; `EINTR` is retried unless `retryOnInterrupt` is false (for a caller that
/// wants to see the interruption).
package func valueOrErrno<Value: FixedWidthInteger>(
  retryOnInterrupt retry: Bool = true, _ call: () -> Value
) throws(Errno) -> Value {
  func once() throws(Errno) -> Value {
    let result = call()
    if result == -1 { throw Errno.current }
    return result
  }
  return retry ? try retryOnInterrupt(once) : try once()
}

/// Calls a system call that returns 0 on success and -1 with `errno` on failure; throws the
/// `Errno`. `EINTR` is retried.
package func nothingOrErrno<Value: FixedWidthInteger>(_ call: () -> Value) throws(Errno) {
  _ = try valueOrErrno(call)
}
