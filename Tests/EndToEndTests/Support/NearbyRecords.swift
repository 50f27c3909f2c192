import Foundation

extension ShareHome {
  /// What `share peers --json` lists now, and the names of those entries (name and aliases).
  func nearbyPeers(timeout: Int = 3) throws -> [[String: Any]] {
    let result = try share("peers", "--json", "--timeout", String(timeout))
    guard result.exited(with: 0) else { throw HarnessError("'share peers' failed:\n\(result)") }
    return try parseJSONLines(result.stdoutText)
  }

  /// Waits (bounded) until `share peers` lists every one of `names`; the listing then.
  func waitToSee(_ names: [String], timeout: Duration = .seconds(30)) throws -> [[String: Any]] {
    let deadline = ContinuousClock.now + timeout
    var listed: [[String: Any]] = []
    while ContinuousClock.now < deadline {
      listed = try nearbyPeers()
      let seen = Set(listed.flatMap { [$0["name"] as? String ?? ""] + ($0["aliases"] as? [String] ?? []) })
      if seen.isSuperset(of: names) { return listed }
    }
    throw HarnessError("share peers never listed all of \(names); last listing:\n\(listed)")
  }
}
