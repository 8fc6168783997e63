import SyncKernel
import SyncKernelSimulator
import XCTest

/// The rateless sketch: its index mapping, item-by-item upkeep, peeling decoder and the wire and
/// persisted forms of its symbols. Every random input comes from a seeded generator.
final class RatelessSketchTests: XCTestCase {
    // MARK: Mapping

    func testMappingStartsAtZeroAscendsStrictlyAndIsAFunctionOfTheSeed() {
        var random = SeededGenerator(seed: 11)
        for _ in 0..<2000 {
            let item = Self.item(&random)
            let indices = RatelessSketch.indices(of: item, below: 5000)
            XCTAssertEqual(indices.first, 0)
            XCTAssertTrue(zip(indices, indices.dropFirst()).allSatisfy { $0 < $1 }, "strictly ascending")
            XCTAssertTrue(indices.allSatisfy { $0 < 5000 })
            XCTAssertEqual(Self.mapping(seed: item.seed, below: 5000), indices, "the mapping reads the seed only")
            XCTAssertEqual(SketchItem(key: item.key, tag: item.tag), item, "the seed is a function of the key and the tag")
            XCTAssertEqual(item.seed, SketchItem.keyHash(item.key, identity: item.identity))
            XCTAssertEqual(RatelessSketch.indices(of: item, below: 300), indices.filter { $0 < 300 },
                           "a smaller limit cuts the same sequence")
        }
    }

    /// Vectors from a transcription of the reference's `nextIndex` (IEEE doubles throughout).
    func testMappingMatchesTheReferenceSequence() {
        let expected: [UInt64: [Int]] = [
            0: [0],
            1: [0, 1, 2, 3, 6, 11, 19, 44, 116, 122, 341, 972, 3263, 8777, 9660, 13568, 18043],
            0xdead_beef: [0, 1, 2, 3, 5, 213, 537, 844, 1099, 1757, 1901, 3544, 7281, 11208, 23555, 77547, 93139],
            0x0123_4567_89ab_cdef: [0, 1, 2, 4, 6, 8, 20, 24, 34, 36, 126, 153, 155, 1225, 2837, 3114, 3242, 7220,
                                    8569, 13648, 14833, 15115, 58349, 81321],
            .max: [0, 3, 29, 59, 80, 101, 128, 145, 158, 520, 558, 597, 626, 675, 1619, 2307, 3501, 3535, 4711,
                   33678, 39924],
            0x9e37_79b9_7f4a_7c15: [0, 1, 2, 6, 12, 24, 28, 34, 54, 65, 81, 173, 295, 353, 464, 728, 735, 1364, 1374,
                                    1482, 1622, 2395, 2732, 4783, 9154, 12352, 14769, 17408, 54792],
        ]
        for (seed, indices) in expected {
            XCTAssertEqual(Self.mapping(seed: seed, below: 100_000), indices, "seed \(seed)")
        }
    }

    /// The reference draws each gap as a rounded-up approximation of the paper's distribution,
    /// which leaves index 1 about 4% under 2/3 (0.641); the bound allows 5% plus sampling noise.
    func testIndexFrequencyIsCloseToOneOverOnePlusHalfTheIndex() {
        var random = SeededGenerator(seed: 12)
        let probes = [0, 1, 2, 3, 10, 50, 200]
        let trials = 100_000
        var hits = [Int: Int]()
        for _ in 0..<trials {
            for index in Self.mapping(seed: random.next(), below: 201)
            where probes.contains(index) {
                hits[index, default: 0] += 1
            }
        }
        for index in probes {
            let expected = 1 / (1 + Double(index) / 2)
            let observed = Double(hits[index, default: 0]) / Double(trials)
            let sigma = (expected * (1 - expected) / Double(trials)).squareRoot()
            XCTAssertLessThanOrEqual(abs(observed - expected), 0.05 * expected + 5 * sigma,
                                     "index \(index): observed \(observed), expected \(expected)")
        }
    }

    func testMappingEndsWithoutTrapForExtremeSeedsAndLimits() {
        var inverse: UInt64 = 0xda94_2042_e4dd_58b5
        for _ in 0..<6 {
            inverse = inverse &* (2 &- 0xda94_2042_e4dd_58b5 &* inverse)
        }
        XCTAssertEqual(inverse &* 0xda94_2042_e4dd_58b5, 1)
        let topState = UInt64.max &* inverse
        let topIndices = Self.mapping(seed: topState, below: 1000)
        XCTAssertEqual(Array(topIndices.prefix(2)), [0, 1], "a gap that rounds to zero still moves one index on")
        for seed: UInt64 in [0, 1, .max, topState, 0x8000_0000_0000_0000] {
            for limit in [Int.min, -1, 0, 1, 2, 1 << 40, Int.max] {
                let indices = Self.mapping(seed: seed, below: limit)
                XCTAssertEqual(indices.first, limit > 0 ? 0 : nil)
                XCTAssertTrue(zip(indices, indices.dropFirst()).allSatisfy { $0 < $1 })
                XCTAssertTrue(indices.allSatisfy { $0 < limit })
            }
        }
    }

    // MARK: Upkeep

    func testAddingThenRemovingEveryItemLeavesEverySymbolZero() {
        var random = SeededGenerator(seed: 13)
        let items = (0..<300).map { _ in
            let length = Int(random.next() % 40)
            return Self.item(&random, keyLength: length)
        }
        var sketch = RatelessSketch(capacity: 512)
        for item in items { sketch.apply(item, direction: 1) }
        XCTAssertFalse(sketch.symbols.allSatisfy(\.isZero))
        for item in items.shuffled(using: &random) { sketch.apply(item, direction: -1) }
        XCTAssertEqual(sketch, RatelessSketch(capacity: 512))
        XCTAssertTrue(sketch.symbols.allSatisfy { $0.isZero && $0.keySum.isEmpty && $0 == .zero })
    }

    func testTheSketchDependsOnTheSetNotTheOrderOfUpdates() {
        var random = SeededGenerator(seed: 14)
        let kept = (0..<400).map { _ in Self.item(&random) }
        let dropped = (0..<50).map { _ in Self.item(&random) }
        var forward = RatelessSketch(capacity: 700)
        for item in kept + dropped { forward.apply(item, direction: 1) }
        for item in dropped { forward.apply(item, direction: -1) }
        var backward = RatelessSketch(capacity: 700)
        for item in dropped.reversed() { backward.apply(item, direction: -1) }
        for item in (kept + dropped).shuffled(using: &random) { backward.apply(item, direction: 1) }
        XCTAssertEqual(forward, backward)
        XCTAssertEqual(forward.symbols.count, 700)
        var prefix = RatelessSketch(capacity: 100)
        for item in kept { prefix.apply(item, direction: 1) }
        XCTAssertEqual(prefix.symbols, Array(forward.symbols.prefix(100)), "a smaller capacity keeps a prefix")
    }

    func testApplyTouchesExactlyTheMappedIndicesOnce() {
        var random = SeededGenerator(seed: 15)
        var sketch = RatelessSketch()
        XCTAssertEqual(sketch.capacity, RatelessSketch.standardCapacity)
        for _ in 0..<200 {
            let item = Self.item(&random)
            var touched: [Int] = []
            let before = sketch.symbols
            sketch.apply(item, direction: 1) { touched.append($0) }
            XCTAssertEqual(touched, RatelessSketch.indices(of: item, below: sketch.capacity))
            let changed = (0..<sketch.capacity).filter { before[$0] != sketch.symbols[$0] }
            XCTAssertEqual(changed, touched)
        }
        sketch.setSymbol(CodedSymbol(count: 3, keySum: [1, 0], tagSum: 4), at: 7)
        XCTAssertEqual(sketch.symbols[7], CodedSymbol(count: 3, keySum: [1], tagSum: 4))
        XCTAssertEqual(RatelessSketch(capacity: -3).symbols, [])
    }

    // MARK: Decoding

    /// Decodes differences of several sizes over 20 seeds (an edit counts as two items unless its
    /// two versions share their 16-bit identity, when they are one item that cancels), asserts
    /// every recovery is exact and
    /// that 1.5 d + 10 symbols suffice for d = 1000, and prints the symbols each needed (with the
    /// share of seeds 1.5 d + 10 would have served: at d = 100 it is only about 90%).
    func testDecodingRecoversTheExactDifferenceAndReportsSymbolsNeeded() {
        let sizes = [1, 2, 3, 5, 10, 100, 1000]
        let seeds = 20
        let capacity = 3 * 1000 + 64
        var needed = [Int: [Int]]()
        var collisions = 0
        for seed in 0..<seeds {
            var random = SeededGenerator(seed: 0x5eed_0000 + UInt64(seed))
            var shared = RatelessSketch(capacity: capacity)
            for _ in 0..<2000 { shared.apply(Self.item(&random), direction: 1) }
            for size in sizes {
                let pairs = size >= 2 && seed % 2 == 1 ? max(1, size / 3) : size / 3
                let singles = size - 2 * pairs
                var remoteOnly = (0..<(singles + 1) / 2).map { _ in Self.item(&random) }
                var localOnly = (0..<singles / 2).map { _ in Self.item(&random) }
                for _ in 0..<pairs {
                    let key = random.bytes(1 + Int(random.next() % 24))
                    remoteOnly.append(SketchItem(key: key, itemHash: random.bytes(32)))
                    localOnly.append(SketchItem(key: key, itemHash: random.bytes(32)))
                }
                var remote = shared
                var local = shared
                for item in remoteOnly { remote.apply(item, direction: 1) }
                for item in localOnly { local.apply(item, direction: 1) }
                // An edit whose two versions share the 16-bit identity (about 1 in 65,536) gives one
                // item on both sides, which cancels: the sketch sees the set difference.
                let common = Set(remoteOnly).intersection(localOnly)
                collisions += common.count
                let truth = SketchDifference(remoteOnly: Self.sorted(remoteOnly.filter { !common.contains($0) }),
                                             localOnly: Self.sorted(localOnly.filter { !common.contains($0) }))
                func decodes(_ width: Int) -> SketchDifference? {
                    SketchDecoder.decode(remote: Array(remote.symbols.prefix(width)), local: local.symbols[...])
                }
                guard decodes(capacity) == truth else {
                    XCTFail("d \(size) seed \(seed): \(capacity) symbols do not decode")
                    continue
                }
                var low = 0
                var high = capacity
                while high - low > 1 {
                    let middle = (low + high) / 2
                    if decodes(middle) == nil { low = middle } else { high = middle }
                }
                XCTAssertEqual(decodes(high), truth, "d \(size) seed \(seed) at \(high) symbols")
                needed[size, default: []].append(high)
                if size >= 1000 {
                    let budget = (3 * size + 1) / 2 + 10
                    XCTAssertEqual(decodes(budget), truth, "d \(size) seed \(seed) within 1.5 d + 10 = \(budget)")
                }
            }
        }
        var table = "rateless sketch: smallest prefix that decodes, over \(seeds) seeds, 2000 shared items"
        table += " (\(collisions) edits with one identity on both sides)\n"
        table += "     d   mean m   mean m/d   min m   p90 m   max m   max m/d   within 1.5d+10\n"
        for size in sizes {
            let values = needed[size, default: []].sorted()
            guard let least = values.first, let worst = values.last else { continue }
            let mean = Double(values.reduce(0, +)) / Double(values.count)
            let p90 = values[(values.count * 9 + 9) / 10 - 1]
            let served = values.filter { $0 <= (3 * size + 1) / 2 + 10 }.count
            table += String(format: "%6d %8.1f %10.3f %7d %7d %7d %9.3f   %d/%d\n", size, mean, mean / Double(size),
                            least, p90, worst, Double(worst) / Double(size), served, values.count)
        }
        print(table)
    }

    /// The wide sizing (`KernelStore.sketchSymbols` past `wideSizingItems`: 1.5 per item plus
    /// 64) decodes large differences: seeded differences of 20,000 and 50,000 items, split
    /// between the two sides, each decoded exactly from a sketch of that size; prints the fewest
    /// symbols each needed (the smallest prefix that decodes, found by bisection).
    func testAtScaleTheWideSizingDecodesDifferencesOfTwentyAndFiftyThousandItems() {
        for (items, seeds) in [(20_000, 4), (50_000, 2)] {
            let size = KernelStore.sketchSymbols(forExpectedItems: items, capacity: SketchRequest.maxSymbols)
            XCTAssertEqual(size, items + items / 2 + 64)
            for seed in 0..<UInt64(seeds) {
                var random = SeededGenerator(seed: 900 + seed)
                var remote = RatelessSketch(capacity: size)
                var local = RatelessSketch(capacity: size)
                var remoteItems: [SketchItem] = []
                var localItems: [SketchItem] = []
                for index in 0..<items {
                    let item = Self.item(&random)
                    if index % 2 == 0 {
                        remote.apply(item, direction: 1)
                        remoteItems.append(item)
                    } else {
                        local.apply(item, direction: 1)
                        localItems.append(item)
                    }
                }
                let decoded = SketchDecoder.decode(remote: remote.symbols, local: local.symbols[...])
                XCTAssertEqual(decoded?.remoteOnly, Self.sorted(remoteItems), "\(items) items, seed \(seed)")
                XCTAssertEqual(decoded?.localOnly, Self.sorted(localItems), "\(items) items, seed \(seed)")
                var (low, high) = (items, size)
                while low < high {
                    let middle = (low + high) / 2
                    if SketchDecoder.decode(remote: Array(remote.symbols.prefix(middle)), local: local.symbols[..<middle]) != nil {
                        high = middle
                    } else {
                        low = middle + 1
                    }
                }
                print(String(format: "wide sizing: %d items, seed %d: decoded from %d symbols (%.3f per item; sent %d)",
                             items, seed, low, Double(low) / Double(items), size))
            }
        }
    }

    func testDecodingFailsCleanlyOnTooFewShortOrGarbageSymbols() {
        var random = SeededGenerator(seed: 16)
        var remote = RatelessSketch(capacity: 256)
        var local = RatelessSketch(capacity: 256)
        for _ in 0..<500 {
            let item = Self.item(&random)
            remote.apply(item, direction: 1)
            local.apply(item, direction: 1)
        }
        for _ in 0..<60 { remote.apply(Self.item(&random), direction: 1) }
        XCTAssertNil(SketchDecoder.decode(remote: Array(remote.symbols.prefix(20)), local: local.symbols[...]),
                     "20 symbols cannot carry 60 items")
        XCTAssertNotNil(SketchDecoder.decode(remote: remote.symbols, local: local.symbols[...]))
        XCTAssertNil(SketchDecoder.decode(remote: remote.symbols, local: local.symbols.prefix(255)),
                     "local shorter than remote")
        XCTAssertNil(SketchDecoder.decode(remote: remote.symbols, local: local.symbols[...], maxItems: 59),
                     "more items than allowed")
        XCTAssertEqual(SketchDecoder.decode(remote: remote.symbols, local: local.symbols[...], maxItems: 60)?
            .remoteOnly.count, 60, "exactly as many items as allowed")
        XCTAssertEqual(SketchDecoder.decode(remote: [], local: []), SketchDifference(remoteOnly: [], localOnly: []))
        XCTAssertEqual(SketchDecoder.decode(remote: Array(local.symbols.prefix(9)), local: local.symbols[...]),
                       SketchDifference(remoteOnly: [], localOnly: []), "equal sets decode to nothing")

        let zeros = [CodedSymbol](repeating: .zero, count: 64)
        for round in 0..<300 {
            let garbage = (0..<64).map { _ in
                CodedSymbol(count: Int64(bitPattern: random.next()) >> (random.next() % 64),
                            keySum: random.bytes(Int(random.next() % 30)), tagSum: UInt32(truncatingIfNeeded: random.next()))
            }
            XCTAssertNil(SketchDecoder.decode(remote: garbage, local: zeros[...]), "garbage round \(round)")
            XCTAssertNil(SketchDecoder.decode(remote: zeros, local: garbage[...]), "garbage round \(round)")
        }
        let extremes = [CodedSymbol(count: .min, keySum: [0x80], tagSum: .max), CodedSymbol(count: .max)]
        XCTAssertNil(SketchDecoder.decode(remote: extremes, local: extremes.reversed()[...]), "counts wrap, never trap")

        let lone = Self.item(&random)
        var twice = [CodedSymbol](repeating: .zero, count: 64)
        twice[0].apply(lone, direction: 1)
        XCTAssertGreaterThan(RatelessSketch.indices(of: lone, below: 64).count, 1)
        XCTAssertNil(SketchDecoder.decode(remote: twice, local: zeros[...]),
                     "an item that peels out of symbols it was never in comes out twice")
    }

    // MARK: Items and pure symbols

    func testKeysOfEveryShapeRoundTripThroughPureSymbols() throws {
        var random = SeededGenerator(seed: 17)
        let keys: [[UInt8]] = [
            [], [0], [7], random.bytes(16), random.bytes(200), [1, 2, 0, 0], [0, 0, 0],
            [UInt8](repeating: 0, count: 200),
            random.bytes(127) + [0], random.bytes(128), random.bytes(SketchItem.maxKeyBytes),
            random.bytes(SketchItem.maxKeyBytes - 1) + [0],
        ]
        for key in keys {
            let item = SketchItem(key: key, itemHash: random.bytes(32))
            for direction: Int64 in [1, -1] {
                var symbol = CodedSymbol.zero
                symbol.apply(item, direction: direction)
                XCTAssertNotEqual(symbol.keySum.last, 0, "trimmed")
                XCTAssertEqual(symbol.count, direction)
                XCTAssertEqual(symbol.pureItem, item, "key of \(key.count) bytes")
                let reloaded = try CodedSymbol(decoding: symbol.encoded())
                XCTAssertEqual(reloaded, symbol)
                XCTAssertEqual(reloaded.pureItem, item)
                symbol.apply(item, direction: -direction)
                XCTAssertEqual(symbol, .zero)
            }
        }
    }

    /// The expected hashes come from an independent SipHash-2-4 (a Python transcription checked
    /// against the reference's test vector, key 00..0f and message 00..0e: a129ca6149be45e5).
    func testItemTagsJoinTheItemHashAndTheKeyCheck() {
        let hash: [UInt8] = [0xde, 0xad, 0xbe, 0xef] + [UInt8](repeating: 0x55, count: 28)
        let item = SketchItem(key: [1, 2, 3], itemHash: hash)
        XCTAssertEqual(item.identity, 0xdead, "the first two bytes of the item hash, big-endian")
        XCTAssertEqual(item.tag >> 16, 0xdead)
        XCTAssertEqual(SketchItem.keyHash([1, 2, 3], identity: 0xdead), 0xdf1a_1192_f7a3_d0ef,
                       "SipHash-2-4 keyed by the identity's big-endian bytes, then fourteen zeros")
        XCTAssertEqual(item.seed, 0xdf1a_1192_f7a3_d0ef, "the mapping seed is the whole hash")
        XCTAssertEqual(item.check, 0xd0ef, "the check is its low 16 bits")
        XCTAssertEqual(item.tag, 0xdead_d0ef)
        XCTAssertEqual(SketchItem(key: [1, 2, 3], itemHash: [0xde]).identity, 0xde00, "a short hash pads with zeros")
        XCTAssertEqual(SketchItem(key: [1, 2, 3], itemHash: []).tag, 0x77fd, "identity 0: the all-zero key")
        XCTAssertEqual(SketchItem.keyHash([]), 0x1e92_4b9d_7377_00d7, "SipHash-2-4 of nothing, zero key")
        XCTAssertEqual(SketchItem.keyHash([1, 2, 3]), 0x63dd_a4d2_4540_77fd)
        XCTAssertEqual(SketchItem.keyHash([1, 2, 3, 0]), 0x5250_9a79_2c42_51bf)
        XCTAssertEqual(SketchItem(key: [1, 2], tag: 0).framedKey, [2, 1, 2])
        XCTAssertEqual(SketchItem(key: [UInt8](repeating: 9, count: 300), tag: 0).framedKey.prefix(3), [0xac, 0x02, 9])
    }

    func testMixturesAndBadChecksAreNotPure() {
        var random = SeededGenerator(seed: 18)
        let first = Self.item(&random)
        let second = Self.item(&random)
        var symbol = CodedSymbol.zero
        symbol.apply(first, direction: 1)
        symbol.apply(second, direction: 1)
        symbol.apply(Self.item(&random), direction: -1)
        XCTAssertEqual(symbol.count, 1)
        XCTAssertNil(symbol.pureItem)
        XCTAssertNil(CodedSymbol(count: 1, keySum: first.framedKey, tagSum: first.tag ^ 1).pureItem, "bad check")
        XCTAssertNil(CodedSymbol(count: 1, keySum: first.framedKey, tagSum: first.tag ^ 1 << 20).pureItem,
                     "the check covers the identity")
        var takenForPure = 0
        for _ in 0..<1000 {
            let key = random.bytes(16)
            var edited = CodedSymbol.zero
            edited.apply(SketchItem(key: key, itemHash: random.bytes(32)), direction: 1)
            edited.apply(SketchItem(key: key, itemHash: random.bytes(32)), direction: -1)
            edited.apply(first, direction: 1)
            XCTAssertEqual(edited.keySum, first.framedKey, "the edited row's keys cancel")
            if edited.pureItem != nil { takenForPure += 1 }
        }
        XCTAssertLessThanOrEqual(takenForPure, 2, "but their check bits do not (1000 edits, each about 2 in 65,536)")
        XCTAssertNil(CodedSymbol(count: 2, keySum: first.framedKey, tagSum: first.tag).pureItem, "count 2")
        XCTAssertNil(CodedSymbol(count: 0, keySum: first.framedKey, tagSum: first.tag).pureItem, "count 0")
        XCTAssertNil(CodedSymbol(count: 1, keySum: first.framedKey + [1], tagSum: first.tag).pureItem, "too long")
        XCTAssertNil(CodedSymbol(count: 1, keySum: [0x81], tagSum: 0).pureItem, "length varint cut short")
        XCTAssertNil(CodedSymbol(count: 1, keySum: [0x81, 0x40], tagSum: 0).pureItem, "key longer than allowed")
        XCTAssertNil(CodedSymbol(count: -1, keySum: [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f],
                                 tagSum: 0).pureItem, "length wider than 64 bits")
        let emptyCheck = UInt32(UInt16(truncatingIfNeeded: SketchItem.keyHash([])))
        XCTAssertEqual(CodedSymbol(count: 1, keySum: [0, 0, 0], tagSum: emptyCheck).pureItem,
                       SketchItem(key: [], tag: emptyCheck), "an untrimmed input is trimmed")
        var sum = CodedSymbol(count: 5, keySum: first.framedKey, tagSum: 9)
        sum.subtract(CodedSymbol(count: 5, keySum: first.framedKey, tagSum: 9))
        XCTAssertTrue(sum.isZero)
        XCTAssertEqual(sum, .zero)
    }

    /// A mixture of three items of one key length with count +1 (the case the framing cannot
    /// tell apart: the key sum parses) passes the 16-bit check about once in 65,536 tests; over
    /// 2^20 seeded mixtures the count of false pures must lie within 5 sigma of 16.
    func testMixturesPassTheSixteenBitCheckAboutOnceIn65536() {
        var random = SeededGenerator(seed: 21)
        let pool = (0..<3000).map { _ in Self.item(&random) }
        let trials = 1 << 20
        var passed = 0
        for _ in 0..<trials {
            var symbol = CodedSymbol.zero
            let first = Int(random.next() % 3000)
            let second = (first + 1 + Int(random.next() % 2999)) % 3000
            var third = Int(random.next() % 3000)
            while third == first || third == second { third = Int(random.next() % 3000) }
            symbol.apply(pool[first], direction: 1)
            symbol.apply(pool[second], direction: 1)
            symbol.apply(pool[third], direction: -1)
            XCTAssertEqual(symbol.count, 1)
            if symbol.pureItem != nil { passed += 1 }
        }
        print("false pure: \(passed) of \(trials) three-item mixtures")
        XCTAssertGreaterThanOrEqual(passed, 1)
        XCTAssertLessThanOrEqual(passed, 36, "expected 16")
    }

    // MARK: Codec and persisted blobs

    func testCodecRoundTripsSymbols() throws {
        var random = SeededGenerator(seed: 19)
        var sketch = RatelessSketch(capacity: 200)
        for _ in 0..<150 {
            let length = Int(random.next() % 300)
            sketch.apply(Self.item(&random, keyLength: length), direction: 1)
        }
        sketch.setSymbol(CodedSymbol(count: .min, keySum: [1], tagSum: .max), at: 3)
        sketch.setSymbol(CodedSymbol(count: .max), at: 4)
        let bytes = SketchCodec.encode(sketch.symbols)
        XCTAssertEqual(try SketchCodec.decode(bytes, maxSymbols: 200), sketch.symbols)
        XCTAssertEqual(try SketchCodec.decode(SketchCodec.encode(sketch.symbols[10..<20]), maxSymbols: 10),
                       Array(sketch.symbols[10..<20]))
        XCTAssertEqual(SketchCodec.encode([CodedSymbol]()), [0])
        XCTAssertEqual(try SketchCodec.decode([0], maxSymbols: 0), [])
        XCTAssertEqual(CodedSymbol(count: -1, keySum: [5], tagSum: 0x0102).encoded(),
                       [0x01, 0x01, 0x05, 0, 0, 0x01, 0x02], "the tag sum in 4 big-endian bytes")
        for symbol in sketch.symbols {
            XCTAssertEqual(try CodedSymbol(decoding: symbol.encoded()), symbol)
        }
    }

    func testRejectTruncatedInput() {
        var random = SeededGenerator(seed: 20)
        var sketch = RatelessSketch(capacity: 6)
        for _ in 0..<4 { sketch.apply(Self.item(&random), direction: 1) }
        let bytes = SketchCodec.encode(sketch.symbols)
        for length in 0..<bytes.count {
            Self.assertMalformed(Array(bytes.prefix(length)), "prefix of \(length) bytes")
        }
        let blob = sketch.symbols[0].encoded()
        for length in 0..<blob.count {
            Self.assertCorrupt(Array(blob.prefix(length)), "blob prefix of \(length) bytes")
        }
    }

    func testRejectTrailingBytes() {
        let bytes = SketchCodec.encode([CodedSymbol(count: 1, keySum: [3], tagSum: 7)])
        Self.assertMalformed(bytes + [0], "a byte after the symbols")
        Self.assertCorrupt(CodedSymbol(count: 1, keySum: [3], tagSum: 7).encoded() + [0], "a byte after the blob")
        Self.assertMalformed([0x01, 0x02, 0x01, 0x03, 0, 0, 0, 0x07, 0x00, 0x00], "a symbol longer than its parts")
    }

    func testRejectNonMinimalVarint() {
        let symbol: [UInt8] = [0x02, 0x01, 0x03, 0, 0, 0, 0x07]
        XCTAssertNoThrow(try CodedSymbol(decoding: symbol))
        XCTAssertNoThrow(try SketchCodec.decode([0x01] + symbol, maxSymbols: 1))
        Self.assertMalformed([0x81, 0x00] + symbol, "symbol count in two bytes")
        Self.assertMalformed([0x01, 0x82, 0x00, 0x01, 0x03, 0, 0, 0, 0x07], "a symbol's count in two bytes")
        Self.assertMalformed([0x01, 0x02, 0x81, 0x00, 0x03, 0, 0, 0, 0x07], "a symbol's key-sum length in two bytes")
        Self.assertCorrupt([0x82, 0x00, 0x01, 0x03, 0, 0, 0, 0x07], "count in two bytes")
        Self.assertCorrupt([0x02, 0x81, 0x00, 0x03, 0, 0, 0, 0x07], "key-sum length in two bytes")
        var offset = 0
        XCTAssertThrowsError(try LEB128.read([0x80, 0x80, 0x00], at: &offset))
        XCTAssertEqual(offset, 0, "a refused read leaves the offset")
    }

    func testRejectKeySumEndingInZero() {
        Self.assertCorrupt([0x02, 0x02, 0x03, 0x00, 0, 0, 0, 0x07], "key sum ending in 0x00")
        Self.assertMalformed([0x01, 0x02, 0x02, 0x03, 0x00, 0, 0, 0, 0x07], "on the wire too")
    }

    func testRejectOversizedKeySum() throws {
        var accepted: [UInt8] = [0x02]
        LEB128.append(UInt64(CodedSymbol.maxKeySumBytes), to: &accepted)
        accepted += [UInt8](repeating: 1, count: CodedSymbol.maxKeySumBytes) + [UInt8](repeating: 0, count: 4)
        XCTAssertEqual(try CodedSymbol(decoding: accepted).keySum.count, SketchItem.maxKeyBytes + 5)
        var refused: [UInt8] = [0x02]
        LEB128.append(UInt64(CodedSymbol.maxKeySumBytes + 1), to: &refused)
        refused += [UInt8](repeating: 1, count: CodedSymbol.maxKeySumBytes + 1) + [UInt8](repeating: 0, count: 4)
        Self.assertCorrupt(refused, "key sum over the limit")
    }

    func testRejectSymbolCountAboveMaxSymbols() throws {
        let bytes = SketchCodec.encode([CodedSymbol](repeating: .zero, count: 5))
        XCTAssertEqual(try SketchCodec.decode(bytes, maxSymbols: 5).count, 5)
        Self.assertMalformed(bytes, maxSymbols: 4, "five symbols, four allowed")
        Self.assertMalformed(bytes, maxSymbols: -1, "a negative limit allows none")
        Self.assertMalformed([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], maxSymbols: .max,
                             "a count the input cannot hold")
    }

    func testRejectHugeLengthPrefix() {
        var bytes: [UInt8] = [0x01]
        LEB128.append(1 << 62, to: &bytes)
        Self.assertMalformed(bytes + [0x02, 0x00], maxSymbols: .max, "a symbol length of 2^62")
        Self.assertMalformed([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], maxSymbols: 1,
                             "a symbol length of 2^64 - 1")
        Self.assertCorrupt([0x02, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0], "a key-sum length of 2^32 - 1")
    }

    /// A tag sum is 32 bits: no form has room for more. The 8-byte tag sums of the earlier
    /// format, here with bits above 32 set, are refused in a persisted blob and in the spec
    /// frame's run, alone or among other symbols, while the same symbols with 4-byte tag sums read.
    func testRejectTagSumsWiderThan32Bits() throws {
        let symbols = [CodedSymbol(count: 1, keySum: [0x05], tagSum: 0x0000_0007),
                       CodedSymbol(count: -3, keySum: [0x10, 0x01, 0x02], tagSum: 0x8000_0001),
                       CodedSymbol(count: 2, keySum: [], tagSum: 0xffff_ffff)]
        let high: [UInt8] = [0xde, 0xad, 0xbe, 0xef]
        func wide(_ symbol: CodedSymbol) -> [UInt8] {
            let narrow = symbol.encoded()
            return Array(narrow.dropLast(CodedSymbol.tagBytes)) + high + narrow.suffix(CodedSymbol.tagBytes)
        }
        for symbol in symbols {
            XCTAssertEqual(try CodedSymbol(decoding: symbol.encoded()), symbol)
            Self.assertCorrupt(wide(symbol), "a blob with an 8-byte tag sum: \(symbol)")
            Self.assertMalformed([0x01] + wide(symbol), "a one-symbol run with an 8-byte tag sum: \(symbol)")
        }
        XCTAssertEqual(try SketchCodec.decode(SketchCodec.encode(symbols), maxSymbols: 3), symbols)
        Self.assertMalformed([0x03] + symbols.flatMap(wide), "a run of 8-byte tag sums")
        Self.assertMalformed([0x03] + wide(symbols[0]) + symbols[1].encoded() + symbols[2].encoded(), "one 8-byte tag sum among 4-byte ones")
    }

    func testLEB128RoundTripsAndRefusesWideValues() throws {
        for value: UInt64 in [0, 1, 127, 128, 255, 300, 16383, 16384, 1 << 32, 1 << 63, .max - 1, .max] {
            var bytes: [UInt8] = []
            LEB128.append(value, to: &bytes)
            XCTAssertEqual(bytes.count, LEB128.byteCount(value))
            var offset = 0
            XCTAssertEqual(try LEB128.read(bytes, at: &offset), value)
            XCTAssertEqual(offset, bytes.count)
        }
        for wide: [UInt8] in [[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
                              [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x81, 0x00],
                              [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]] {
            var offset = 0
            XCTAssertThrowsError(try LEB128.read(wide, at: &offset)) { error in
                XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame)
            }
        }
        var offset = 3
        XCTAssertThrowsError(try LEB128.read([1, 2], at: &offset), "an offset past the end")
        offset = -1
        XCTAssertThrowsError(try LEB128.read([1, 2], at: &offset), "a negative offset")
    }

    // MARK: Helpers

    /// The indices `SymbolMapping` yields for `seed` below `limit`.
    private static func mapping(seed: UInt64, below limit: Int) -> [Int] {
        var mapping = SymbolMapping(seed: seed, limit: limit)
        var indices: [Int] = []
        while let index = mapping.next() { indices.append(index) }
        return indices
    }

    /// A random item: a random key of `keyLength` bytes and a tag from a random item hash.
    private static func item(_ random: inout SeededGenerator, keyLength: Int = 16) -> SketchItem {
        SketchItem(key: random.bytes(keyLength), itemHash: random.bytes(32))
    }

    /// Items in a difference's order: by key, then tag.
    private static func sorted(_ items: [SketchItem]) -> [SketchItem] {
        items.sorted { $0.key == $1.key ? $0.tag < $1.tag : $0.key.lexicographicallyPrecedes($1.key) }
    }

    /// Asserts the wire decoder refuses `bytes` with `.malformedFrame`.
    private static func assertMalformed(_ bytes: [UInt8], maxSymbols: Int = 100, _ message: String,
                                        file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try SketchCodec.decode(bytes, maxSymbols: maxSymbols), message, file: file, line: line) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .malformedFrame, message, file: file, line: line)
        }
    }

    /// Asserts the persisted-blob decoder refuses `bytes` with `.corruptBookkeeping`.
    private static func assertCorrupt(_ bytes: [UInt8], _ message: String,
                                      file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try CodedSymbol(decoding: bytes), message, file: file, line: line) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .corruptBookkeeping, message, file: file, line: line)
        }
    }
}
