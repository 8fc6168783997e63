import Foundation
import Synchronization
import XCTest
@testable import CloudAnchor

/// The contract's reads: prefetch in batches of eight with two in flight, never throwing, and
/// reads and downloads served from a cache while the file's change tag is unchanged.
final class PrefetchAndCacheTests: XCTestCase {
    func testPrefetchRunsBatchesOfEightWithTwoInFlightAndHandsEveryPathOverOnce() async {
        let paths = (0..<21).map { "f\($0)" }
        let batches = Recorder<[String]>()
        let flight = Mutex((now: 0, most: 0, started: 0))
        let bothStarted = Signal()
        await BatchedPrefetch.run(paths) { batch in
            let started = flight.withLock { flight in
                flight.now += 1
                flight.started += 1
                flight.most = max(flight.most, flight.now)
                return flight.started
            }
            if started == 2 { bothStarted.fire() }
            if started <= 2 { await bothStarted.wait() }
            batches.append(batch)
            flight.withLock { $0.now -= 1 }
        }
        XCTAssertEqual(batches.all.map(\.count).sorted(), [5, 8, 8])
        XCTAssertEqual(batches.all.flatMap { $0 }.sorted(), paths.sorted())
        XCTAssertEqual(flight.withLock { $0.most }, 2, "two batches in flight, never more")
    }

    func testWebDAVPrefetchFillsTheCacheAndDownloadsAndReadsAreServedFromItWhileTheETagHolds() async throws {
        let server = try await WebDAVServer.running(for: self)
        let directory = try temporaryDirectory()
        let collection = "cache-\(UUID().uuidString)"
        let writer = server.storage(collection: collection)
        let paths = (0..<20).map { "d\($0 % 3)/f\($0).bin" }
        for (index, path) in paths.enumerated() { _ = try await writer.writeBytes(path, Data(repeating: UInt8(index), count: 3_000)) }
        _ = try await writer.writeBytes(markerPath, Data("marker".utf8))

        let recording = RecordingTransport()
        let storage = WebDAVStorage(baseURL: server.url.appendingPathComponent(collection, isDirectory: true),
                                    credentials: server.credentials, transport: recording,
                                    cacheFolder: directory.appendingPathComponent("cache"))
        _ = try await storage.list()
        await storage.prefetch(paths + ["not/listed"])
        XCTAssertEqual(recording.requests("GET").count, 20, "every listed file fetched once")
        XCTAssertEqual(recording.mostInFlight, 2, "two requests in flight")
        for (index, path) in paths.enumerated() {
            let local = directory.appendingPathComponent("f\(index)")
            try await storage.downloadFile(path, to: local)
            XCTAssertEqual(try Data(contentsOf: local), Data(repeating: UInt8(index), count: 3_000))
        }
        XCTAssertEqual(recording.requests("GET").count, 20, "downloads were served from the cache")

        _ = try await writer.writeBytes(paths[0], Data("rewritten".utf8))
        _ = try await storage.list()
        await storage.prefetch([paths[1]])
        try await storage.downloadFile(paths[0], to: directory.appendingPathComponent("again"))
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent("again")), Data("rewritten".utf8),
                       "a changed ETag is fetched again")
        XCTAssertEqual(recording.requests("GET").count, 22, "one fetch for the changed file, one for the file moved out")

        let first = try await storage.readBytes(markerPath)
        let second = try await storage.readBytes(markerPath)
        XCTAssertEqual([first, second], [Data("marker".utf8), Data("marker".utf8)])
        XCTAssertEqual(recording.requests("GET").count, 23, "the second read of an unchanged marker is cached")
    }

    func testWebDAVListsTheWholeTreeInOneRequestAndFallsBackWhenTheServerRefusesInfiniteDepth() async throws {
        let server = try await WebDAVServer.running(for: self)
        let collection = "depth-\(UUID().uuidString)"
        let writer = server.storage(collection: collection)
        for path in ["a", "b/c", "b/d/e", "f/g/h/i"] { _ = try await writer.writeBytes(path, Data(path.utf8)) }
        let recording = RecordingTransport()
        let storage = WebDAVStorage(baseURL: server.url.appendingPathComponent(collection, isDirectory: true),
                                    credentials: server.credentials, transport: recording)
        let listed = try await storage.list().map(\.path)
        XCTAssertEqual(listed, ["a", "b/c", "b/d/e", "f/g/h/i"])
        XCTAssertEqual(recording.sent.all.count, 1, "one PROPFIND for the whole tree")

        let refused = "<d:error xmlns:d=\"DAV:\"><d:propfind-finite-depth/></d:error>"
        let scripted = ScriptedTransport([.success(HTTPResponse(status: 403, body: Data(refused.utf8)))])
        let finite = WebDAVStorage(baseURL: server.url.appendingPathComponent(collection, isDirectory: true),
                                   credentials: server.credentials, transport: FallThrough(first: scripted, then: recording))
        let walked = try await finite.list().map(\.path)
        XCTAssertEqual(walked, listed, "folder by folder after the refusal")
        XCTAssertEqual(scripted.sent.all.count, 1)
        XCTAssertEqual(recording.requests("PROPFIND").count, 1 + 6, "one PROPFIND per folder: root, b, b/d, f, f/g, f/g/h")
    }

    func testStatusDecisionsForLocksAndWholeTreeListingsDoNotLeakIntoOtherRequests() {
        XCTAssertEqual(WebDAVStatusPolicy.decide(HTTPResponse(status: 423), for: .lock), .success)
        XCTAssertEqual(WebDAVStatusPolicy.decide(HTTPResponse(status: 423), for: .write), .fail(.transport))
        XCTAssertEqual(WebDAVStatusPolicy.decide(HTTPResponse(status: 405), for: .write), .fail(.transport))
        XCTAssertEqual(WebDAVStatusPolicy.decide(HTTPResponse(status: 403), for: .listWholeTree), .success)
        XCTAssertEqual(WebDAVStatusPolicy.decide(HTTPResponse(status: 403), for: .read), .fail(.authRevoked))
        XCTAssertEqual(WebDAVStatusPolicy.decide(HTTPResponse(status: 400), for: .list), .fail(.transport))
    }
}

/// Answers the first request from one transport and every later one from another.
private final class FallThrough: HTTPTransport {
    private let first: any HTTPTransport
    private let then: any HTTPTransport
    private let used = Mutex(false)

    init(first: any HTTPTransport, then: any HTTPTransport) {
        self.first = first
        self.then = then
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let isFirst = used.withLock { used in
            defer { used = true }
            return !used
        }
        return try await (isFirst ? first : then).send(request)
    }
}
