import SyncKernel
import XCTest

/// `ChangeMarks`: the bound on the difference since the last equal roots, and the marks dropped
/// when a peer's store goes back in time (a restored or rebuilt store no longer holds what the
/// mark says it held, and a mark kept then stalls the exchange: each side wants the other's row).
final class ChangeMarksTests: XCTestCase {
    private let names = ["a", "b", "c"]

    private func marked() -> ChangeMarks {
        var marks = ChangeMarks()
        marks.record(equal: names, names: names, mine: [10, 20, 30], theirs: [5, 6, 7])
        return marks
    }

    func testAMarkBoundsTheDifferenceByBothCountersSinceIt() {
        let marks = marked()
        XCTAssertEqual(marks.myCounter(at: "b"), 20)
        XCTAssertEqual(marks.expectedItems("b", names: names, mine: [10, 23, 30], theirs: [5, 8, 7]), 5)
        XCTAssertNil(marks.expectedItems("b", names: names, mine: [10, 19, 30], theirs: [5, 8, 7]),
                     "a counter of ours that went backwards makes the bound unknown")
        XCTAssertNil(ChangeMarks().myCounter(at: "a"), "no mark before equal roots")
    }

    func testAPeerCounterThatWentBackwardsDropsThatNamespacesMarkOnly() {
        var marks = marked()
        marks.forgetRolledBack(names: names, theirs: [5, 2, 9])
        XCTAssertEqual(marks.myCounter(at: "a"), 10, "an unchanged counter keeps its mark")
        XCTAssertNil(marks.myCounter(at: "b"), "the peer's store went back: it may lack what it held at the mark")
        XCTAssertEqual(marks.myCounter(at: "c"), 30, "a counter that moved on keeps its mark")
    }

    func testAMismatchedCounterListChangesNothing() {
        var marks = marked()
        marks.forgetRolledBack(names: names, theirs: [0, 0])
        XCTAssertEqual(names.map { marks.myCounter(at: $0) }, [10, 20, 30])
    }

    func testForgetDropsOneNamespace() {
        var marks = marked()
        marks.forget("c")
        XCTAssertNil(marks.myCounter(at: "c"))
        XCTAssertEqual(marks.myCounter(at: "a"), 10)
        XCTAssertNil(marks.expectedItems("c", names: names, mine: [10, 20, 31], theirs: [5, 6, 7]))
    }
}
