import Foundation
import Synchronization

/// A WebDAV server (`rclone serve webdav`) a test started on loopback over a fresh temporary
/// folder, stopped when the test ends.
///
/// Invariants: the server picks a free port itself (`--addr 127.0.0.1:0`) and `url` is the one it
/// reported listening on; it requires `user` and `password`; `stop()` leaves no process behind
/// (see `TestServerProcess`) and removes the folder.
package final class WebDAVServerProcess: Sendable {
    /// Seconds a start may take before it counts as failed.
    package static let startTimeoutSeconds = 20
    /// The server's root URL.
    package let url: URL
    /// The user it requires.
    package let user: String
    /// The password it requires.
    package let password: String
    private let process: TestServerProcess
    private let directory: URL

    /// Starts a server requiring `user` and `password`.
    package static func start(user: String = "cloudanchor",
                              password: String = "cloudanchor-test") async throws(TestServerError) -> WebDAVServerProcess {
        let executable = try ProgramLocator.locate("rclone", override: "RCLONE")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synckernel-webdav-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("data"),
                                                    withIntermediateDirectories: true)
        } catch {
            throw .launchFailed(program: "rclone", reason: "cannot create its folder: \(error)")
        }
        let process = try await TestServerProcess.launch(executable, [
            "serve", "webdav", "--addr", "127.0.0.1:0", "--user", user, "--pass", password,
            "--config", directory.appendingPathComponent("rclone.conf").path, directory.appendingPathComponent("data").path,
        ])
        let line = await process.log.firstLine(matching: { $0.contains("Server started on") },
                                               timeout: .seconds(startTimeoutSeconds))
        guard let line, let url = serverURL(in: line) else {
            let tail = process.log.tail()
            await process.stop()
            try? FileManager.default.removeItem(at: directory)
            throw .notReady(program: "rclone serve webdav", log: tail)
        }
        return WebDAVServerProcess(url: url, user: user, password: password, process: process, directory: directory)
    }

    private init(url: URL, user: String, password: String, process: TestServerProcess, directory: URL) {
        self.url = url
        self.user = user
        self.password = password
        self.process = process
        self.directory = directory
    }

    /// The server's process id.
    package var pid: Int32 { process.pid }

    /// Stops the server and removes its folder; idempotent.
    package func stop() async {
        await process.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The URL in rclone's "... Server started on http://127.0.0.1:PORT/" line (some versions
    /// put it in brackets).
    private static func serverURL(in line: String) -> URL? {
        guard let start = line.range(of: "http://") else { return nil }
        let address = line[start.lowerBound...].prefix { !$0.isWhitespace && $0 != "]" }
        return URL(string: String(address))
    }
}
