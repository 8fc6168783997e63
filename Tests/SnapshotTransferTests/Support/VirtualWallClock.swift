import SyncEnvelope
import Synchronization
import XCTest

/// A wall clock a test moves by hand.
///
/// Invariant: reads exactly the time last set; never moves by itself.
final class VirtualWallClock: WallClock {
    private let now: Mutex<Int64>

    init(_ start: Int64 = 1_790_000_000_000) {
        now = Mutex(start)
    }

    var millisecondsSince1970: Int64 { now.withLock { $0 } }

    /// Moves the clock forward by `duration`.
    func advance(by duration: Duration) {
        let parts = duration.components
        now.withLock { $0 += parts.seconds * 1_000 + parts.attoseconds / 1_000_000_000_000_000 }
    }
}

/// The helper checked against what it promises: it moves only when advanced, so a broken helper fails on
/// its own instead of making the tests that use it pass or fail for the wrong reason.
final class VirtualWallClockSelfTests: XCTestCase {
    func testTheVirtualClockMovesOnlyWhenAdvanced() {
        let clock = VirtualWallClock(1_000)
        XCTAssertEqual(clock.millisecondsSince1970, 1_000)
        XCTAssertEqual(clock.millisecondsSince1970, 1_000, "never moves by itself")
        clock.advance(by: .milliseconds(250))
        XCTAssertEqual(clock.millisecondsSince1970, 1_250)
        clock.advance(by: .seconds(2))
        XCTAssertEqual(clock.millisecondsSince1970, 3_250)
    }
}
