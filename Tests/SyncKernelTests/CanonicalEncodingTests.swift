import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest

final class CanonicalEncodingTests: XCTestCase {
    private func encode(_ body: (inout CanonicalWriter) -> Void) -> [UInt8] {
        var writer = CanonicalWriter()
        body(&writer)
        return writer.bytes
    }

    func testIntegersUseTheShortestForm() {
        XCTAssertEqual(encode { $0.write(UInt64(23)) }, [0x17])
        XCTAssertEqual(encode { $0.write(UInt64(24)) }, [0x18, 24])
        XCTAssertEqual(encode { $0.write(UInt64(255)) }, [0x18, 0xff])
        XCTAssertEqual(encode { $0.write(UInt64(256)) }, [0x19, 0x01, 0x00])
        XCTAssertEqual(encode { $0.write(UInt64(65_536)) }, [0x1a, 0, 1, 0, 0])
        XCTAssertEqual(encode { $0.write(UInt64(1) << 32) }, [0x1b, 0, 0, 0, 1, 0, 0, 0, 0])
        XCTAssertEqual(encode { $0.write(Int64(-1)) }, [0x20])
        XCTAssertEqual(encode { $0.write(Int64(-500)) }, [0x39, 0x01, 0xf3])
    }

    func testDatesEncodeWholeSecondsSoSubSecondNoiseVanishes() {
        let exact = Date(timeIntervalSince1970: 1_700_000_000)
        let noisy = Date(timeIntervalSince1970: 1_700_000_000.999_7)
        XCTAssertEqual(encode { $0.write(exact) }, encode { $0.write(noisy) })
        XCTAssertEqual(encode { $0.write(exact) }, [0xc1, 0x1a, 0x65, 0x53, 0xf1, 0x00])
        XCTAssertNotEqual(encode { $0.write(exact) }, encode { $0.write(exact.addingTimeInterval(1)) })
        let before1970 = Date(timeIntervalSince1970: -1.5)
        XCTAssertEqual(try CBORReader.decode(encode { $0.write(before1970) }).date(), Date(timeIntervalSince1970: -2))
    }

    func testAbsentAndEmptyOptionalsNeverEncodeTheSame() {
        let absent = encode { $0.writeOptional(String?.none) { $0.write($1) } }
        let empty = encode { $0.writeOptional(String?.some("")) { $0.write($1) } }
        XCTAssertNotEqual(absent, empty)
        XCTAssertEqual(absent, [0x00])
        XCTAssertEqual(empty, [0x01, 0x60])
    }

    func testMapKeysAreSortedBytewiseWhateverTheWriteOrder() {
        let first = encode { writer in
            writer.writeMap { map in
                map.entry("kind") { $0.write("x") }
                map.entry("a") { $0.write(UInt64(1)) }
                map.entry("zz") { $0.write(true) }
            }
        }
        let second = encode { writer in
            writer.writeMap { map in
                map.entry("zz") { $0.write(true) }
                map.entry("a") { $0.write(UInt64(1)) }
                map.entry("kind") { $0.write("x") }
            }
        }
        XCTAssertEqual(first, second)
        XCTAssertEqual(Array(first.prefix(3)), [0xa3, 0x61, 0x61])
    }

    func testDecodeThenEncodeIsTheIdentity() throws {
        let bytes = encode { writer in
            writer.writeMap { map in
                map.entry("list") { $0.writeArray([1, 2, 3000]) { $0.write(UInt64($1)) } }
                map.entry("neg") { $0.write(Int64(-70_000)) }
                map.entry("bytes") { $0.write(bytes: [1, 2, 3]) }
                map.entry("date") { $0.write(Date(timeIntervalSince1970: 99)) }
                map.entry("null") { $0.writeNull() }
                map.entry("flag") { $0.write(false) }
            }
        }
        XCTAssertEqual(try CBORReader.decode(bytes).encoded(), bytes)
    }

    // MARK: Refusals

    private func assertRejected(_ bytes: [UInt8], _ code: SyncKernelError.Code, limits: CBORLimits = .frame,
                                file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try CBORReader.decode(bytes, limits: limits), file: file, line: line) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, code, "\(error)", file: file, line: line)
        }
    }

    func testRejectNonShortestIntegers() {
        assertRejected([0x18, 0x17], .nonCanonicalEncoding)
        assertRejected([0x19, 0x00, 0xff], .nonCanonicalEncoding)
        assertRejected([0x1a, 0x00, 0x00, 0xff, 0xff], .nonCanonicalEncoding)
        assertRejected([0x1b, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff], .nonCanonicalEncoding)
        assertRejected([0x59, 0x00, 0x01, 0xaa], .nonCanonicalEncoding)
    }

    func testRejectIndefiniteLengths() {
        assertRejected([0x9f, 0x01, 0xff], .unsupportedEncoding)
        assertRejected([0x5f, 0x41, 0x00, 0xff], .unsupportedEncoding)
    }

    func testRejectUnsortedAndDuplicateMapKeys() {
        assertRejected([0xa2, 0x61, 0x62, 0x01, 0x61, 0x61, 0x02], .nonCanonicalEncoding)
        assertRejected([0xa2, 0x61, 0x61, 0x01, 0x61, 0x61, 0x02], .duplicateMapKey)
    }

    func testRejectFloatsTruncationTrailingBytesAndBadText() {
        assertRejected([0xf9, 0x3c, 0x00], .unsupportedEncoding)
        assertRejected([0x43, 0x01], .truncatedInput)
        assertRejected([0x01, 0x02], .trailingBytes)
        assertRejected([0x62, 0xc3, 0x28], .invalidText)
        assertRejected([], .truncatedInput)
    }

    func testRejectBeyondLimits() {
        let deep = [UInt8](repeating: 0x81, count: 40) + [0x00]
        assertRejected(deep, .limitExceeded)
        assertRejected([0x9a, 0x7f, 0xff, 0xff, 0xff], .limitExceeded)
        let tight = CBORLimits(maxDepth: 4, maxContainerCount: 2, maxInputBytes: 8)
        assertRejected([0x83, 0x01, 0x02, 0x03], .limitExceeded, limits: tight)
        assertRejected([UInt8](repeating: 0x00, count: 9), .limitExceeded, limits: tight)
        // A container that claims more elements than bytes remain is refused before allocating.
        assertRejected([0x9a, 0x00, 0x0f, 0xff, 0xff], .truncatedInput)
    }

    func testRandomInputNeverTrapsAndAcceptedInputReencodesIdentically() {
        var random = SeededGenerator(seed: 0xC0FFEE)
        var accepted = 0
        for _ in 0..<20_000 {
            let bytes = random.bytes(Int(random.next() % 24))
            if let value = try? CBORReader.decode(bytes) {
                accepted += 1
                XCTAssertEqual(value.encoded(), bytes, "seed 0xC0FFEE input \(bytes)")
            }
        }
        XCTAssertGreaterThan(accepted, 0)
    }
}
