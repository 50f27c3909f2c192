import CLinux
import Glibc
import TextEscaping

/// The running process as a whole.
package enum CurrentProcess {
  /// The running executable, even when its file has been replaced or removed since it started.
  package static let executable = "/proc/self/exe"

  /// The arguments the process was started with (the first is its name), each exactly as
  /// given: one that is not UTF-8 (a file's name) keeps its bytes (`FileNameText`), where
  /// `CommandLine.arguments` repairs it into U+FFFD and the file can no longer be named.
  package static var arguments: [String] {
    (0..<Int(CommandLine.argc)).map { index in
      guard let argument = CommandLine.unsafeArgv[index] else { return "" }
      return FileNameText.decoding(UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
    }
  }

  /// Replaces the process image with `executable`, run with `arguments` (the first is its name)
  /// and exactly `environment`. The process keeps its ID, its descriptors not marked
  /// close-on-exec, its signal mask and pending signals; every other thread ends. Returns only by
  /// throwing. The corresponding C function is `execve`.
  package static func replace(
    with executable: String, arguments: [String], environment: [String: String]
  ) throws(Errno) -> Never {
    let argv = arguments.map { FileNameText.withCString($0) { strdup($0) } } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }
    execve(executable, argv, envp)
    throw Errno.current
  }

  /// Names the process as ps, top, pgrep and killall show it (the kernel keeps the first 15
  /// bytes): an image started from `/proc/self/exe` would otherwise be called `exe`. Call it on
  /// the main thread. The corresponding C function is `prctl` (`PR_SET_NAME`).
  package static func setName(_ name: String) throws(Errno) {
    try nothingOrErrno { clinux_set_name(name) }
  }

  /// Lets malloc keep at most `count` arenas instead of its default of 8 per core: a process
  /// with many short-lived threads (a daemon serving many connections at once) then reuses
  /// what its threads freed instead of holding it in an arena each. Call it before starting
  /// threads. Returns whether malloc took it. The corresponding C function is `mallopt`
  /// (`M_ARENA_MAX`).
  @discardableResult
  package static func limitMallocArenas(_ count: Int) -> Bool {
    clinux_limit_malloc_arenas(Int32(clamping: count)) == 1
  }

  /// Has malloc give every allocation of at least `bytes` a mapping of its own, returned to the
  /// system when freed, instead of raising that bound each time such a block is freed (glibc's
  /// default, up to 32 MiB): with the raised bound, large blocks a thread frees stay in its
  /// arena, and a daemon receiving thousands of small files grew 8 MiB of such memory. Returns
  /// whether malloc took it. The corresponding C function is `mallopt` (`M_MMAP_THRESHOLD`).
  @discardableResult
  package static func fixMallocMapThreshold(_ bytes: Int) -> Bool {
    clinux_fix_malloc_mmap_threshold(Int32(clamping: bytes)) == 1
  }

  /// Has malloc keep up to `bytes` of free memory at the top of each arena instead of giving it
  /// back to the system once it passes 128 KiB (glibc's default while the map threshold is
  /// fixed): a thread that allocates and frees the same large blocks over and over then reuses
  /// the same pages instead of faulting fresh zeroed ones in each time. Returns whether malloc
  /// took it. The corresponding C function is `mallopt` (`M_TRIM_THRESHOLD`).
  @discardableResult
  package static func fixMallocTrimThreshold(_ bytes: Int) -> Bool {
    clinux_fix_malloc_trim_threshold(Int32(clamping: bytes)) == 1
  }

  /// Gives back the resident pages of the program's and its shared libraries' read-only
  /// mappings (code, read-only data). They stay in the page cache and come back (minor faults)
  /// when used again, so afterwards only what runs again is resident. Worth it once a long-lived
  /// process has started (start-up code runs once). Mappings holding private copies of pages
  /// (relocated data), in memory or swapped out, are left alone, and so are other files'
  /// mappings (their owners release them: `ContentSniffer.releaseDatabasePages`). Returns how
  /// many mappings were trimmed. The corresponding C function is `madvise` (`MADV_DONTNEED`),
  /// over /proc/self/smaps.
  @discardableResult
  package static func trimFilePages() -> Int {
    Int(clinux_trim_file_mappings())
  }

  /// Gives the memory malloc holds free (in every arena, not only at the top of each heap) back
  /// to the system. Returns whether there was some. The corresponding C function is
  /// `malloc_trim`.
  @discardableResult
  package static func trimHeap() -> Bool {
    clinux_malloc_trim() == 1
  }
}

extension FileDescriptor {
  /// Two connected Unix-domain stream sockets, both close-on-exec: a private channel to a child
  /// process. The corresponding C function is `socketpair`.
  package static func unixSocketPair() throws(Errno) -> (FileDescriptor, FileDescriptor) {
    var ends: [Int32] = [-1, -1]
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    try nothingOrErrno { socketpair(AF_UNIX, type, 0, &ends) }
    return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
  }

  /// Whether the descriptor is closed when the process image is replaced. The corresponding C
  /// function is `fcntl` (`F_SETFD` with `FD_CLOEXEC`).
  package func setCloseOnExec(_ enabled: Bool) throws(Errno) {
    try nothingOrErrno { fcntl(rawValue, F_SETFD, enabled ? FD_CLOEXEC : 0) }
  }
}
