import Foundation
import KernelBench
import XCTest

/// The benchmark library at a size a debug build runs in moments: both modes converge, the
/// byte accounting adds up and never ships less than the differing rows, and the grid skips
/// what its estimate puts above the bound. Numbers are printed, never asserted as timings.
final class KernelBenchTests: XCTestCase {
    func testSmallRunsConvergeInBothModesAndShipAtLeastTheDifferingRows() throws {
        for mode in BenchMode.allCases {
            for differences in [0, 5] {
                let report = try KernelBench.run(BenchConfig(rows: 200, differences: differences, mode: mode, seed: 3))
                print(report.json())
                let label = "\(mode.rawValue), D=\(differences)"
                XCTAssertTrue(report.converged, "\(label)\n\(report.text())")
                XCTAssertEqual(report.totalBytes, report.rowBytesShipped + report.detectionBytes, label)
                XCTAssertGreaterThanOrEqual(report.rowBytesShipped, report.rowBytes, label)
                if differences == 0 {
                    XCTAssertEqual(report.rowBytesShipped, 0, "\(label): nothing differs, so no row ships")
                    XCTAssertEqual(report.rowBytes, 0, label)
                } else {
                    XCTAssertGreaterThan(report.rowBytes, 0, label)
                    XCTAssertEqual(report.differingRows, differences, "\(label): every difference is a differing row")
                }
                let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
                for key in ["bytes_total", "bytes_rows", "bytes_detection", "row_bytes", "round_trips", "frames", "detect_cpu_ms",
                            "write_overhead_us", "structure_bytes", "peak_rss_mb", "load_seconds", "converged", "rows", "diff",
                            "mode", "seed"] {
                    XCTAssertNotNil(json[key], "\(label): \(key)")
                }
            }
        }
    }

    /// The bytes of one configuration are the same in every run: the copied stores' epochs come
    /// from the seed, so the epoch's place in each frame's device table (and the width of the
    /// 400 references to it here, one to three bytes) does not move by chance. With system-random
    /// epoch nonces the table positions' odds make five runs agree about 7 times in 100 (it
    /// failed so on the old code).
    func testOneConfigurationShipsTheSameBytesInEveryRun() throws {
        let config = BenchConfig(rows: 2_000, differences: 1_200, mode: .fast, seed: 5)
        let totals = try (0..<5).map { _ in try KernelBench.run(config).totalBytes }
        XCTAssertEqual(Set(totals).count, 1, "bytes by run: \(totals)")
    }

    func testTheGridSkipsARowCountWhoseEstimatedLoadPassesTheBound() throws {
        var grid = BenchGrid()
        grid.rowCounts = [100, 200]
        grid.differences = [0, 2]
        grid.boundSeconds = 1e-6
        let result = try grid.run { print($0) }
        print(result.table())
        XCTAssertEqual(result.points.count, 8)
        XCTAssertTrue(result.points.filter { $0.rows == 100 }.allSatisfy { $0.report?.converged == true },
                      "the first row count has nothing to estimate from, so it runs")
        XCTAssertTrue(result.points.filter { $0.rows == 200 }.allSatisfy { $0.skipped?.hasPrefix("skipped: load of 200 rows estimated at") == true })
        XCTAssertEqual(result.csv().split(separator: "\n").count, 9, "a header and one line per point")
        XCTAssertTrue(result.table().contains("skipped: load of 200 rows"))
    }
}
