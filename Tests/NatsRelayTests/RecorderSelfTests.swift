import TestServerSupport
import XCTest

/// The relay tests wait on recorders: check they record in order, wake and time out as they
/// claim, and refuse a second source.
final class RecorderSelfTests: XCTestCase {
    /// Failures an expected misuse raised, instead of failing this test.
    private var caught: [(description: String, line: Int)] = []
    private var catching = false

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
                                expected: Bool) {
        guard catching else {
            return super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
        caught.append((description, lineNumber))
    }

    func testAStreamIsRecordedInArrivalOrder() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let recorder = Recorder(stream)
        for item in 0..<200 { continuation.yield(item) }
        continuation.finish()
        let all = await recorder.wait(timeout: .seconds(60)) { $0.count == 200 }
        XCTAssertTrue(all)
        XCTAssertEqual(recorder.items, Array(0..<200))
    }

    func testAWaitHoldsAtOnceOrWakesOnTheItemThatMakesItHold() async {
        let recorder = Recorder<Int>()
        recorder.append(1)
        let now = await recorder.wait(timeout: .seconds(60)) { $0 == [1] }
        XCTAssertTrue(now)
        let later = Task { await recorder.wait(timeout: .seconds(60)) { $0.count == 3 } }
        recorder.append(2)
        recorder.append(3)
        let elapsed = await ContinuousClock().measure {
            let held = await later.value
            XCTAssertTrue(held)
        }
        XCTAssertLessThan(elapsed, .seconds(60), "woken by the third item, not by the timeout")
        XCTAssertEqual(recorder.items, [1, 2, 3])
    }

    func testAWaitReturnsFalseAtItsTimeout() async {
        let recorder = Recorder<Int>()
        recorder.append(1)
        let start = ContinuousClock.now
        let held = await recorder.wait(timeout: .milliseconds(50)) { $0.count > 1 }
        XCTAssertFalse(held)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(50))
    }

    func testRejectAHandAppendToARecorderThatDrainsAStream() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let recorder = Recorder(stream)
        catching = true
        let misuseLine = #line + 1
        recorder.append(7)
        catching = false
        XCTAssertEqual(caught.map(\.line), [misuseLine], "failed once, at the caller")
        XCTAssertTrue(caught.first?.description.contains("not fed by hand") ?? false, "\(caught)")
        continuation.yield(1)
        continuation.finish()
        let one = await recorder.wait(timeout: .seconds(60)) { !$0.isEmpty }
        XCTAssertTrue(one)
        XCTAssertEqual(recorder.items, [1], "the refused item was not recorded")
    }
}
