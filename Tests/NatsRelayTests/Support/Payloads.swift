import SyncKernelSimulator
import XCTest

/// Seeded payload bytes, so every run sends the same bytes.
///
/// Invariant: `bytes(count, seed:)` is exactly `count` bytes: the outputs of
/// `SeededGenerator(seed:)` in order, each as its 8 little-endian bytes, cut at `count`; so a
/// shorter payload of a seed is a prefix of a longer one.
enum Payloads {
    /// `count` bytes drawn from `seed`.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var bytes = [UInt8]()
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next().littleEndian) { bytes += $0 }
        }
        return Array(bytes.prefix(count))
    }
}

/// The payloads are what the relay tests compare: check they are what `Payloads` promises.
final class PayloadsSelfTests: XCTestCase {
    func testBytesAreSplitMix64OutputsInLittleEndianOrder() {
        // SplitMix64's published first outputs for seed 1234567: 6457827717110365317, 3203168211198807973.
        XCTAssertEqual(Payloads.bytes(16, seed: 1_234_567), [0x85, 0xFC, 0x08, 0xFB, 0x17, 0xD0, 0x9E, 0x59,
                                                             0xA5, 0x0F, 0x54, 0x58, 0x84, 0xF0, 0x73, 0x2C])
    }

    func testEveryLengthIsExactAndAPrefixOfALongerPayload() {
        let long = Payloads.bytes(100_003, seed: 9)
        XCTAssertEqual(long.count, 100_003)
        for count in [0, 1, 7, 8, 9, 15, 16, 17, 1_000] {
            XCTAssertEqual(Payloads.bytes(count, seed: 9), Array(long.prefix(count)), "count \(count)")
        }
    }

    func testTheSameSeedRepeatsAndAnotherSeedDiffers() {
        XCTAssertEqual(Payloads.bytes(300, seed: 1), Payloads.bytes(300, seed: 1))
        XCTAssertNotEqual(Payloads.bytes(300, seed: 1), Payloads.bytes(300, seed: 2))
    }
}
