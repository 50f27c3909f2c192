import Foundation
import PackagePlugin

/// Embeds the repository's Markdown that the man page draws its prose from into ShareCLI, at
/// build time: `share man` then needs no file beside the binary, and the prose has one home, the
/// README (its `<!-- man: SECTION -->` regions), instead of a copy that could drift from it.
@main
struct EmbedDocuments: BuildToolPlugin {
  /// The documents, relative to the package's folder.
  static let documents = ["README.md", "Inbox/README.md"]

  func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
    let inputs = Self.documents.map { context.package.directoryURL.appending(path: $0) }
    let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedDocuments.swift")
    var arguments = [output.path]
    for (name, url) in zip(Self.documents, inputs) { arguments += [name, url.path] }
    return [
      .buildCommand(
        displayName: "Embedding \(Self.documents.joined(separator: ", ")) for the man page",
        executable: try context.tool(named: "EmbedDocumentsTool").url,
        arguments: arguments, inputFiles: inputs, outputFiles: [output])
    ]
  }
}
