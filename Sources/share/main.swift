import Foundation
import ShareCLI

exit(Entrypoint.run(environment: ProcessInfo.processInfo.environment))
