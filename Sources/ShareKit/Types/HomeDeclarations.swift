import Foundation
import UniformTypes

/// How a home's type declarations are read and made into a policy: one path for the daemon
/// (`TypeGate.load`) and for `share types accept|exclude|forget`, which validates what it is about
/// to write exactly as the daemon will read it.
enum HomeDeclarations {
  /// The home's file when it exists, else the built-in default.
  /// - Throws: `ShareError.configuration` naming the file, the key and what is wrong.
  static func read(_ file: URL) throws(ShareError) -> Declarations {
    guard FileManager.default.fileExists(atPath: file.path) else { return Declarations.builtinDefault }
    do {
      return try Declarations.load(from: file)
    } catch {
      throw .configuration("the declarations are invalid: \(error)")
    }
  }

  /// Parses bytes as if they had been read from `file`.
  static func parse(_ data: Data, as file: URL) throws(ShareError) -> Declarations {
    do {
      return try Declarations.parse(data, source: file.path)
    } catch {
      throw .configuration("the declarations are invalid: \(error)")
    }
  }

  /// The policy `declarations` make over `registry` (the system's, without declared types).
  /// - Throws: `ShareError.configuration` for an unknown identifier, a conflict or a cycle.
  static func policy(_ declarations: Declarations, registry: TypeRegistry) throws(ShareError) -> TypePolicy {
    do {
      return try TypePolicy(registry: registry, declarations: declarations)
    } catch {
      throw .configuration("the declarations are invalid: \(error)")
    }
  }
}
