import Glibc

/// Writes `bytes` to `path` atomically and durably: the one durable write of the code base.
///
/// The bytes go to a new temporary file in the same folder (created exclusively, with exactly
/// `permissions`: owner-only by default, whatever the umask), which is written, flushed with
/// `fsync`, then renamed over `path`; finally the folder is flushed, so the new name survives a
/// crash. A reader sees the old file or the new one, never a mix, and a failure leaves `path`
/// as it was and no temporary file behind.
///
/// With `replacing` false the rename never replaces anything (`renameat2(RENAME_NOREPLACE)`):
/// if `path` exists, `.fileExists` is thrown and nothing changes, so of several processes
/// creating the same file exactly one wins.
///
/// `chunk` caps each `write` call: the page cache keeps what one call wrote in folios of up to
/// 2 MiB, and a process that maps the file then has a whole folio mapped (and resident) for
/// each page it reads. A file that is mapped and read in parts is written in small calls.
package func writeDurably(
  _ bytes: some Collection<UInt8>, to path: String,
  permissions: FilePermissions = .ownerReadWrite, replacing: Bool = true, chunk: Int = .max
) throws(Errno) {
  let folder = FileSystem.parentDirectory(of: path)
  let name = path.split(separator: "/").last.map(String.init) ?? path
  let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
  let temporary = (folder == "/" ? "" : folder) + "/.\(name).\(random).tmp"
  let file = try FileDescriptor.open(
    temporary, .writeOnly, options: [.create, .exclusiveCreate], permissions: permissions)
  var placed = false
  defer {
    if !placed { try? FileSystem.remove(temporary) }
  }
  try file.closeAfter { () throws(Errno) in
    try file.setPermissions(permissions)
    try file.writeAll(bytes, atMost: chunk)
    try file.sync()
  }
  if replacing {
    try FileSystem.rename(temporary, to: path)
  } else {
    try FileSystem.renameNoReplace(temporary, to: path)
  }
  placed = true
  try FileSystem.syncDirectory(folder)
}
