import Foundation
import Glibc
import System

/// Runs a program and waits for it, with every signal unblocked and at its default action in the
/// child (the daemon blocks its termination signals and ignores SIGPIPE; a hook must not inherit
/// that), stdin from /dev/null, in a process group of its own (`started` is given its ID, which
/// is the group's, before the wait). Returns the exit status, or -1 when it could not be started.
///
/// Its stdout and stderr go to a pipe, whose lines are handed to `output` as they come (review
/// 49: a hook's output went into the daemon's own, between the events of `--json` and raw into
/// its log). Reading ends at the pipe's end, or once the program has exited and nothing came for
/// a moment (something it started in the background may keep the pipe open).
func spawnAndWait(
  _ executable: String, _ arguments: [String], environment: [String: String], started: (pid_t) -> Void = { _ in },
  output: (String) -> Void = { _ in }
) -> Int32 {
  var ends: [Int32] = [-1, -1]
  guard pipe(&ends) == 0 else { return -1 }
  // Neither end goes to another program this process starts; the child gets the write end as
  // its stdout and stderr only.
  for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
  defer { close(ends[0]) }
  let pid = spawn(executable, arguments, environment: environment, output: ends[1], newGroup: true)
  close(ends[1])
  guard let pid else { return -1 }
  started(pid)
  var status: Int32 = 0
  var exited = false
  forEachLine(
    ends[0],
    until: {
      exited = exited || waitpid(pid, &status, WNOHANG) == pid
      return exited
    }, output)
  if !exited { guard (try? valueOrErrno({ waitpid(pid, &status, 0) })) != nil else { return -1 } }
  // WIFEXITED / WEXITSTATUS, spelled out: the macros do not import.
  if status & 0x7f == 0 { return (status >> 8) & 0xff }
  return 128 + (status & 0x7f)
}

/// Hands each line read from `descriptor` to `body` (the last one even without its newline),
/// until the end of the stream, or until a quarter second passes with nothing to read and
/// `done()` says to stop.
private func forEachLine(_ descriptor: Int32, until done: () -> Bool, _ body: (String) -> Void) {
  var pending: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 4096)
  while true {
    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    let ready = poll(&poller, 1, 250)
    if ready == 0 {
      if done() { break }
      continue
    }
    if ready < 0 && errno == EINTR { continue }
    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    if count < 0 && errno == EINTR { continue }
    guard count > 0 else { break }
    pending += chunk[..<count]
    while let newline = pending.firstIndex(of: 0x0A) {
      body(String(decoding: pending[..<newline], as: UTF8.self))
      pending.removeSubrange(...newline)
    }
  }
  if !pending.isEmpty { body(String(decoding: pending, as: UTF8.self)) }
}

/// Starts a program (`arguments` exclude its name, which is `executable`) with every signal at
/// its default action and unblocked except `blocking`, stdin from /dev/null, and the descriptor
/// `passing.from` as `passing.as` if given; `newGroup`: as the leader of a process group of its
/// own, so that it and what it starts can be signalled together; `output`: a descriptor its
/// stdout and stderr go to. Returns its process ID, or nil when it could not be started. The
/// corresponding C function is `posix_spawn`.
func spawn(
  _ executable: String, _ arguments: [String], environment: [String: String], passing: (from: Int32, as: Int32)? = nil,
  output: Int32? = nil, blocking: [Int32] = [], newGroup: Bool = false
) -> pid_t? {
  var attributes = posix_spawnattr_t()
  posix_spawnattr_init(&attributes)
  defer { posix_spawnattr_destroy(&attributes) }
  var mask = sigset_t()
  sigemptyset(&mask)
  for number in blocking { sigaddset(&mask, number) }
  var all = sigset_t()
  sigfillset(&all)
  posix_spawnattr_setsigmask(&attributes, &mask)
  posix_spawnattr_setsigdefault(&attributes, &all)
  posix_spawnattr_setpgroup(&attributes, 0)
  posix_spawnattr_setflags(
    &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (newGroup ? POSIX_SPAWN_SETPGROUP : 0)))
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
  if let passing { posix_spawn_file_actions_adddup2(&actions, passing.from, passing.as) }
  if let output {
    posix_spawn_file_actions_adddup2(&actions, output, 1)
    posix_spawn_file_actions_adddup2(&actions, output, 2)
  }

  let argv = ([executable] + arguments).map { strdup($0) } + [nil]
  let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
  defer {
    argv.forEach { free($0) }
    envp.forEach { free($0) }
  }
  var pid: pid_t = 0
  guard posix_spawn(&pid, executable, &actions, &attributes, argv, envp) == 0 else { return nil }
  return pid
}
