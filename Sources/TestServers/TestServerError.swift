/// Why a test server could not be started.
///
/// Invariant: `description` says what to do about it; for a missing program, that `make test`
/// installs it.
package enum TestServerError: Error, CustomStringConvertible {
    /// The program is not installed (not on `PATH` nor in the system directories).
    case notInstalled(program: String)
    /// The wrapper process could not be launched.
    case launchFailed(program: String, reason: String)
    /// The program started but did not report itself ready in time; its last log lines.
    case notReady(program: String, log: String)

    package var description: String {
        switch self {
        case .notInstalled(let program):
            "\(program) is not installed: run `make test` (it installs \(program)), or scripts/ensure-packages.sh \(program)"
        case .launchFailed(let program, let reason):
            "could not launch \(program): \(reason)"
        case .notReady(let program, let log):
            "\(program) did not become ready; its log ends with:\n\(log)"
        }
    }
}
