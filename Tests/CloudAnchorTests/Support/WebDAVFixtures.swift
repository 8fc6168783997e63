import Foundation
import Synchronization
import XCTest
@testable import CloudAnchor

/// The WebDAV server `make test` starts (scripts/webdav-server.sh), as the tests reach it.
struct WebDAVServer {
    let url: URL
    let credentials: WebDAVStorage.Credentials

    /// Reads `.build/cloudanchor-webdav/server`, failing the test with what to do when the
    /// server is not there: these tests never skip.
    static func running(file: StaticString = #filePath, line: UInt = #line) async throws -> WebDAVServer {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let info = root.appendingPathComponent(".build/cloudanchor-webdav/server")
        let message = "No WebDAV test server: run `make test` (or scripts/webdav-server.sh) to start rclone serve webdav"
        guard let text = try? String(contentsOf: info, encoding: .utf8) else {
            XCTFail(message, file: file, line: line)
            throw CloudError.offline
        }
        var fields: [String: String] = [:]
        for row in text.split(separator: "\n") {
            let parts = row.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let address = fields["url"], let url = URL(string: address), let user = fields["user"],
              let password = fields["password"] else {
            XCTFail(message, file: file, line: line)
            throw CloudError.offline
        }
        let server = WebDAVServer(url: url, credentials: .init(user: user, password: password))
        do {
            _ = try await server.storage(collection: "").list()
        } catch CloudError.offline {
            XCTFail("\(message) (nothing answers at \(url))", file: file, line: line)
            throw CloudError.offline
        }
        return server
    }

    /// A storage over `collection` below the server root.
    func storage(collection: String, password: String? = nil, transport: any HTTPTransport = URLSessionTransport())
        -> WebDAVStorage {
        let base = collection.isEmpty ? url : url.appendingPathComponent(collection, isDirectory: true)
        let credentials = WebDAVStorage.Credentials(user: credentials.user, password: password ?? credentials.password)
        return WebDAVStorage(baseURL: base, credentials: credentials, transport: transport)
    }
}

/// A transport that answers from a script and records what it was sent.
final class ScriptedTransport: HTTPTransport {
    private let script: Mutex<[Result<HTTPResponse, URLError>]>
    let sent = Recorder<String>()

    /// Answers with `script` in order, then 201 to everything.
    init(_ script: [Result<HTTPResponse, URLError>]) {
        self.script = Mutex(script)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        sent.append("\(request.method) \(request.url.path)")
        let next = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        return try (next ?? .success(HTTPResponse(status: 201))).get()
    }
}

/// A transport that counts the requests it passes on to another.
final class CountingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let statuses = Recorder<Int>()

    init(_ inner: any HTTPTransport) {
        self.inner = inner
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await inner.send(request)
        statuses.append(response.status)
        return response
    }
}
