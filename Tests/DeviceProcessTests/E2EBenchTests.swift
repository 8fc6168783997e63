import Foundation
import TestServers
import XCTest

/// `synckernel bench-e2e` on a tiny point: two device processes over the nats-server the command
/// starts converge on 1,000 preloaded rows and 10 differences, and the command prints the point's
/// row with a ratio of bytes through the relay to changed row bytes, writes its CSV, and leaves
/// nothing running (the process test harness fails the run otherwise).
final class E2EBenchTests: XCTestCase {
    func testATinyPointConvergesAndPrintsItsRatio() async throws {
        let directory = NSTemporaryDirectory() + "synckernel-e2e-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let csv = directory + "/bench-e2e.csv"
        let result = try await SynckernelProgram.run(["bench-e2e", "--rows", "1000", "--diff", "10", "--row-bytes", "500",
                                                      "--directory", directory, "--csv", csv, "--no-in-memory",
                                                      "--negentropy", directory + "/no-driver"], timeout: .seconds(300))
        XCTAssertEqual(result.status, 0, result.errors)
        let row = result.output.split(separator: "\n").first { $0.hasPrefix("| 1e3 | 500 | 10 | one | none | yes |") }
        let cells = try XCTUnwrap(row, result.output).split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        let ratio = try XCTUnwrap(Double(cells[8]), "no ratio in \(cells)")
        XCTAssertGreaterThan(ratio, 1, "bytes through the relay cannot be fewer than the changed rows' bytes")
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[1].hasPrefix("1000,500,10,one,none,true,"), String(lines[1]))
    }
}
