import Foundation
import ShareCLI

exit(Entrypoint.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
