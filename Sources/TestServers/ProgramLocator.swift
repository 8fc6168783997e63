import Foundation

/// Finds the programs tests start.
///
/// Invariant: looks only at an explicit override, then `PATH`, then the system directories
/// Debian installs servers into (`nats-server` goes to /usr/sbin, which a user's `PATH` may lack).
package enum ProgramLocator {
    /// Directories searched after `PATH`.
    package static let systemDirectories = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]

    /// The path of `program`: the environment variable `override` if set, else the first
    /// executable file of that name; throws `notInstalled` when there is none.
    package static func locate(_ program: String, override: String) throws(TestServerError) -> String {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment[override], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else { throw .notInstalled(program: program) }
            return path
        }
        let directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init) + systemDirectories
        for directory in directories where !directory.isEmpty {
            let candidate = directory + "/" + program
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw .notInstalled(program: program)
    }
}
