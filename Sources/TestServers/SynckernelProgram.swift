import Foundation

/// The `synckernel` binary the tests run, and one run of it to completion.
///
/// Invariants: the binary is the one `swift build --build-tests` put next to the test bundle
/// (never one on `PATH`); a run returns only after the process exited (it runs under the
/// `WatchedProgram` watchdog, so it cannot outlive the test process either) and gives its status
/// and both outputs whole.
package enum SynckernelProgram {
    /// What one run gave.
    package struct Result: Sendable {
        /// The exit status (128 + the signal when a signal ended it).
        package let status: Int32
        /// Standard output.
        package let output: String
        /// Standard error.
        package let errors: String

        /// Whether a signal ended the process (the commands themselves exit below 128).
        package var crashed: Bool { status > 128 }
    }

    /// The binary's path: `SYNCKERNEL_BINARY` when the environment names one (`make test-large`
    /// runs a release build this way), else the one built beside the tests; throws `launchFailed`
    /// when there is no executable there.
    package static func path() throws(TestServerError) -> String {
        let folder = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent()
        let path = ProcessInfo.processInfo.environment["SYNCKERNEL_BINARY"] ?? folder.appendingPathComponent("synckernel").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw .launchFailed(program: "synckernel", reason: "no binary at \(path): build with `swift build --build-tests`")
        }
        return path
    }

    /// Runs `synckernel` with `arguments`, writing `input` to its standard input and closing it,
    /// and waits (up to `timeout`, then kills it) until it exits.
    package static func run(_ arguments: [String], input: String = "",
                            timeout: Duration = .seconds(120)) async throws(TestServerError) -> Result {
        let program = try await WatchedProgram.launch(try path(), arguments)
        program.send(input)
        program.closeInput()
        if await program.waitForExit(timeout: timeout) == nil { await program.kill() }
        _ = await program.output.wait(timeout: .seconds(10)) { _ in program.output.hasEnded }
        _ = await program.errors.wait(timeout: .seconds(10)) { _ in program.errors.hasEnded }
        return Result(status: program.exitStatus ?? 128 + SIGKILL, output: String(decoding: program.outputBytes, as: UTF8.self),
                      errors: String(decoding: program.errorBytes, as: UTF8.self))
    }
}
