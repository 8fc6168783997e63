import Foundation
import Synchronization
import XCTest
@testable import CloudAnchor

/// A placement that records every offered group and answers with a test's rule.
final class RecordingPlacement: RestorePlacement {
    let offered = Recorder<[String]>()
    private let decide: @Sendable (RestoreGroup) async -> PlacementDecision

    init(decide: @escaping @Sendable (RestoreGroup) async -> PlacementDecision = { _ in .placed }) {
        self.decide = decide
    }

    func place(_ group: RestoreGroup) async -> PlacementDecision {
        offered.append(group.files.map(\.remotePath))
        return await decide(group)
    }
}

/// Rejects the groups named in `rejections` as many times as given, then places them.
final class RejectingPlacement: RestorePlacement {
    private let remaining: Mutex<[String: Int]>

    init(_ rejections: [String: Int]) {
        remaining = Mutex(rejections)
    }

    func place(_ group: RestoreGroup) async -> PlacementDecision {
        remaining.withLock { remaining in
            guard let name = group.name, let count = remaining[name], count > 0 else { return .placed }
            remaining[name] = count - 1
            return .rejected
        }
    }
}

extension Rig {
    /// Backs `files` up through the engine and returns what a probe finds.
    func backUp(_ files: [(String, String)], marker: String = "marker v1") async throws -> FoundBackup {
        _ = try await engine().sync(snapshot(files, marker: marker))
        guard case .found(let found) = await (try engine()).probe() else {
            throw CloudError.notFound
        }
        return found
    }

    /// A plan restoring every found file below `localRoot/restored`, with per-path required flags
    /// and groups (paths not named are required and ungrouped).
    func plan(_ found: FoundBackup, optional: Set<String> = [], groups: [String: String] = [:],
              order: [String]? = nil) -> RestorePlan {
        let byPath = Dictionary(uniqueKeysWithValues: found.files.map { ($0.path, $0) })
        let paths = order ?? found.files.map(\.path)
        return RestorePlan(source: found.source, files: paths.compactMap { path in
            guard let file = byPath[path] else { return nil }
            return RestoreFile(remotePath: path, localURL: restoredURL(path), required: !optional.contains(path),
                               group: groups[path], size: file.size)
        })
    }

    /// Where `path` is restored.
    func restoredURL(_ path: String) -> URL {
        localRoot.appendingPathComponent("restored").appendingPathComponent(path)
    }

    /// The restored content of `path`, or nil.
    func restored(_ path: String) -> String? {
        (try? Data(contentsOf: restoredURL(path))).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The restore record as the state file holds it now.
    func savedRecord() async throws -> RestoreRecord? {
        try await StateStore(path: statePath).loadRecord()
    }
}

/// The placements the restore tests stand on: check their rules.
final class PlacementFixtureTests: XCTestCase {
    func testRejectingPlacementRejectsANamedGroupTheGivenNumberOfTimesThenPlacesIt() async {
        let placement = RejectingPlacement(["photos": 2])
        let photos = RestoreGroup(name: "photos", files: [])
        let other = RestoreGroup(name: "notes", files: [])
        var answers: [PlacementDecision] = []
        for _ in 0..<3 { answers.append(await placement.place(photos)) }
        XCTAssertEqual(answers, [.rejected, .rejected, .placed])
        let otherAnswer = await placement.place(other)
        XCTAssertEqual(otherAnswer, .placed)
    }

    func testRecordingPlacementRecordsEveryOfferedGroup() async {
        let placement = RecordingPlacement { _ in .rejected }
        let answer = await placement.place(RestoreGroup(name: nil, files: []))
        XCTAssertEqual(answer, .rejected)
        XCTAssertEqual(placement.offered.all, [[]])
    }
}
