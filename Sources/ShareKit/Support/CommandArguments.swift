import System

/// The arguments this process was started with (the first is its name), each exactly as given:
/// one that is not UTF-8 (a file's name) keeps its bytes, so `share send` can open the file it
/// names (review 27: `CommandLine.arguments` repaired it into U+FFFD, "No such file").
package func commandArguments() -> [String] { CurrentProcess.arguments }
