import Foundation
import Synchronization
import TestServers
import XCTest
@testable import CloudAnchor

/// A WebDAV server (`rclone serve webdav`) the test started on loopback, as the tests reach it.
struct WebDAVServer {
    let url: URL
    let credentials: WebDAVStorage.Credentials

    /// Starts a server for `testCase` on a free loopback port, stopped when the test ends (pass
    /// or fail). A missing `rclone` fails the test with what to do: these tests never skip.
    static func running(for testCase: XCTestCase, file: StaticString = #filePath,
                        line: UInt = #line) async throws -> WebDAVServer {
        let process: WebDAVServerProcess
        do {
            process = try await WebDAVServerProcess.start()
        } catch {
            XCTFail("No WebDAV test server: \(error)", file: file, line: line)
            throw CloudError.offline
        }
        testCase.addTeardownBlock { await process.stop() }
        let server = WebDAVServer(url: process.url, credentials: .init(user: process.user, password: process.password))
        do {
            _ = try await server.storage(collection: "").list()
        } catch CloudError.offline {
            XCTFail("rclone serve webdav started but nothing answers at \(process.url)", file: file, line: line)
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

/// A transport that records every request it passes on (method and path) and the most requests
/// it ever had in flight at once.
final class RecordingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let sent = Recorder<String>()
    private let flight = Mutex((now: 0, most: 0))

    init(_ inner: any HTTPTransport = URLSessionTransport()) {
        self.inner = inner
    }

    /// The most requests in flight at once so far.
    var mostInFlight: Int {
        flight.withLock { $0.most }
    }

    /// The recorded requests of `method`.
    func requests(_ method: String) -> [String] {
        sent.all.filter { $0.hasPrefix(method + " ") }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        sent.append("\(request.method) \(request.url.path)")
        flight.withLock { flight in
            flight.now += 1
            flight.most = max(flight.most, flight.now)
        }
        defer { flight.withLock { $0.now -= 1 } }
        return try await inner.send(request)
    }
}
