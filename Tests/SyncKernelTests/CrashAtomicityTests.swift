import Foundation
import NotebookNamespace
import SyncKernel
import SyncKernelSimulator
import XCTest

/// A real process killed with SIGKILL in the middle of applying a response leaves the store at
/// one whole generation: the old state or the new one, never part of each.
final class CrashAtomicityTests: XCTestCase {
    private func probe() throws -> URL {
        let folder = try XCTUnwrap(Bundle.main.executableURL).deletingLastPathComponent()
        let url = folder.appendingPathComponent("synckernel-crashprobe")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            XCTFail("no synckernel-crashprobe at \(url.path): build with `swift build --build-tests`")
            throw SyncKernelError(.storeClosed)
        }
        return url
    }

    func testAKilledApplyLeavesTheOldStateOrTheNewOne() throws {
        let world = try TestWorld()
        var random = SeededGenerator(seed: 41)
        let rows = 1_500
        var generations: [Int] = []
        for round in 0..<5 {
            let path = world.path("crash-\(round)")
            let process = Process()
            process.executableURL = try probe()
            process.arguments = [path, String(rows)]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let killAfter = 1 + Int(random.next() % 3)
            var seen = ""
            while seen.components(separatedBy: "\n").filter({ $0.hasPrefix("committed ") }).count < killAfter {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "round \(round): the probe must die mid-run")

            let store = try KernelStore(path: path, namespaces: NamespaceSet([NotebookNamespace.self]))
            let notes = try store.rows(NotebookNamespace.self)
            XCTAssertEqual(notes.count, rows, "round \(round)")
            let titles = Set(notes.map(\.title))
            XCTAssertEqual(titles.count, 1, "round \(round): a mix of generations \(titles.sorted().prefix(3))")
            XCTAssertEqual(try store.recomputedStateDigest(), store.stateDigest(), "round \(round)")
            XCTAssertNoThrow(try store.verifyStructures(), "round \(round): the persisted structure is the rows' own")
            let generation = Int(titles.first?.dropFirst(4) ?? "") ?? 0
            XCTAssertGreaterThanOrEqual(generation, killAfter, "round \(round): a reported commit was lost")
            generations.append(generation)
            store.close()
        }
        XCTAssertEqual(generations.count, 5)
    }
}
