import Dispatch
import Synchronization

/// Runs async work from synchronous code (a command, a thread of its own) and waits for it.
package func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
  let result = Mutex<Result<T, any Error>?>(nil)
  let done = DispatchSemaphore(value: 0)
  Task {
    do {
      let value = try await body()
      result.withLock { $0 = .success(value) }
    } catch {
      result.withLock { $0 = .failure(error) }
    }
    done.signal()
  }
  done.wait()
  guard let outcome = result.withLock({ $0 }) else { fatalError("runBlocking finished without a result") }
  return try outcome.get()
}
