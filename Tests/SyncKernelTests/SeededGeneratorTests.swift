import SyncKernelSimulator
import XCTest

/// `SeededGenerator` is the one seeded source of the tests and simulations: check it is SplitMix64.
final class SeededGeneratorTests: XCTestCase {
    func testItReproducesSplitMix64sPublishedOutputs() {
        var generator = SeededGenerator(seed: 1_234_567)
        XCTAssertEqual((0..<5).map { _ in generator.next() }, [
            6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423,
            4_593_380_528_125_082_431, 16_408_922_859_458_223_821,
        ])
        var zero = SeededGenerator(seed: 0)
        XCTAssertEqual(zero.next(), 0xE220_A839_7B1D_CDAF)
    }

    func testBytesAreTheLowByteOfEachOutputAndChanceKeepsItsBounds() {
        var outputs = SeededGenerator(seed: 42)
        var bytes = SeededGenerator(seed: 42)
        XCTAssertEqual(bytes.bytes(20), (0..<20).map { _ in UInt8(truncatingIfNeeded: outputs.next()) })
        var chances = SeededGenerator(seed: 42)
        XCTAssertFalse((0..<1_000).contains { _ in chances.chance(0) })
        XCTAssertTrue((0..<1_000).allSatisfy { _ in chances.chance(1) })
    }
}
