/// Size caps and time limits for one HTTP/1.1 connection. Values only: the parser enforces the
/// sizes, the connection's I/O layer enforces the durations (as socket timeouts and deadlines).
package struct HTTPLimits: Sendable, Equatable {
  /// Longest head (request or status line plus header fields, final CRLF included).
  package var maxHeadBytes: Int
  /// Most header fields in one head.
  package var maxHeaderCount: Int
  /// Longest request target (path and query).
  package var maxTargetBytes: Int
  /// A client must deliver a whole request head within this time of its first byte.
  package var headTimeout: Duration
  /// A peer that sends or takes nothing for this long while a message is under way is dropped.
  package var idleTimeout: Duration
  /// How long an open connection may wait for its next request.
  package var keepAliveTimeout: Duration

  package init(
    maxHeadBytes: Int = 16 * 1024, maxHeaderCount: Int = 64, maxTargetBytes: Int = 4096,
    headTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(30),
    keepAliveTimeout: Duration = .seconds(15)
  ) {
    self.maxHeadBytes = maxHeadBytes
    self.maxHeaderCount = maxHeaderCount
    self.maxTargetBytes = maxTargetBytes
    self.headTimeout = headTimeout
    self.idleTimeout = idleTimeout
    self.keepAliveTimeout = keepAliveTimeout
  }

  package static let `default` = HTTPLimits()
}
