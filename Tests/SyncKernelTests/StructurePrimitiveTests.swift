import SyncKernel
import SyncKernelSimulator
import XCTest

/// The primitives of the persisted structure on their own: the prefix trie's nodes tile the key
/// space at every depth and every key lies in its bucket's node, the set hash depends on the
/// item set alone, and range fingerprints combine in any order and invert; each persisted form
/// round-trips and refuses a wrong length with a typed error.
final class StructurePrimitiveTests: XCTestCase {
    /// A key of 0...40 bytes, biased towards the edges: empty, all zero bytes, all 0xFF bytes,
    /// or random bytes mixed with both.
    private func randomKey(_ random: inout SeededGenerator) -> [UInt8] {
        let length = Int(random.next() % 41)
        switch random.next() % 4 {
        case 0: return [UInt8](repeating: 0, count: length)
        case 1: return [UInt8](repeating: 0xFF, count: length)
        default:
            return (0..<length).map { _ in
                switch random.next() % 4 {
                case 0: return 0
                case 1: return 0xFF
                default: return UInt8(truncatingIfNeeded: random.next())
                }
            }
        }
    }

    /// The key's first `depth` nibbles, high half first, a short key padded with zero nibbles.
    private func nibbles(of key: [UInt8], depth: Int) -> [UInt8] {
        (0..<depth).map { index in
            let byte = index / 2 < key.count ? key[index / 2] : 0
            return index % 2 == 0 ? byte >> 4 : byte & 15
        }
    }

    private func randomNode(_ random: inout SeededGenerator, maxDepth: Int) throws -> PrefixNode {
        let depth = Int(random.next() % UInt64(maxDepth + 1))
        return try XCTUnwrap(PrefixNode(nibbles: (0..<depth).map { _ in UInt8(random.next() % 16) }))
    }

    func testPrefixNodeChildrenTileTheirParentInOrder() throws {
        var random = SeededGenerator(seed: 1)
        var nodes: [PrefixNode] = [.root] + PrefixNode.root.children
        nodes += [try XCTUnwrap(PrefixNode(nibbles: [15, 15, 15])), try XCTUnwrap(PrefixNode(nibbles: [0, 0, 0, 0, 0])),
                  try XCTUnwrap(PrefixNode(nibbles: [UInt8](repeating: 15, count: 9)))]
        for _ in 0..<300 { nodes.append(try randomNode(&random, maxDepth: 12)) }
        for node in nodes {
            let children = node.children
            XCTAssertEqual(children.count, 16)
            XCTAssertEqual(children.first?.range.lo, node.range.lo, "\(node.nibbles)")
            XCTAssertEqual(children.last?.range.hi, node.range.hi, "\(node.nibbles)")
            for index in 0..<15 {
                XCTAssertEqual(children[index].range.hi, children[index + 1].range.lo, "\(node.nibbles) child \(index)")
                let hi = try XCTUnwrap(children[index].range.hi, "\(node.nibbles) child \(index): only the last node is unbounded")
                XCTAssertTrue(children[index].range.lo.lexicographicallyPrecedes(hi), "\(node.nibbles) child \(index) is empty")
            }
            XCTAssertEqual(children.map(\.depth), [Int](repeating: node.depth + 1, count: 16))
        }
        XCTAssertEqual(PrefixNode.root.range, KeyRange.all)
    }

    func testEveryKeyLiesInItsBucketAndInExactlyOneChildAtEachDepth() throws {
        var random = SeededGenerator(seed: 2)
        var keys: [[UInt8]] = [[], [0], [0, 0], [0xFF], [0xFF, 0xFF], [0, 0x10], [0x0F, 0xFF], [0x10], [0xFF, 0xF0, 0]]
        for _ in 0..<400 { keys.append(randomKey(&random)) }
        for key in keys {
            let bucket = PrefixNode.bucket(of: key)
            XCTAssertTrue((0..<PrefixNode.bucketCount).contains(bucket), "\(key)")
            let bucketNode = PrefixNode.node(ofBucket: bucket)
            XCTAssertTrue(bucketNode.range.contains(key), "\(key) outside bucket \(bucket)")
            XCTAssertEqual(bucketNode.nibbles, nibbles(of: key, depth: PrefixNode.bucketDepth), "\(key)")
            XCTAssertEqual(bucketNode.buckets, bucket..<(bucket + 1))
            var node = PrefixNode.root
            XCTAssertTrue(node.range.contains(key))
            for depth in 1...6 {
                let holding = node.children.filter { $0.range.contains(key) }
                XCTAssertEqual(holding.count, 1, "\(key) at depth \(depth)")
                guard let child = holding.first else { break }
                XCTAssertEqual(child.nibbles, nibbles(of: key, depth: depth), "\(key) at depth \(depth)")
                XCTAssertTrue(child.buckets.contains(bucket) || depth > PrefixNode.bucketDepth, "\(key) at depth \(depth)")
                node = child
            }
        }
    }

    func testRejectPrefixNodesWithANibbleOver15OrTooDeep() {
        XCTAssertNil(PrefixNode(nibbles: [16]))
        XCTAssertNil(PrefixNode(nibbles: [1, 2, 0xFF]))
        XCTAssertNil(PrefixNode(nibbles: [UInt8](repeating: 1, count: PrefixNode.maxDepth + 1)))
        XCTAssertNotNil(PrefixNode(nibbles: [UInt8](repeating: 15, count: PrefixNode.maxDepth)))
    }

    private func itemHashes(_ count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { _ in random.bytes(32) }
    }

    private func setHash(_ hashes: [[UInt8]]) -> SetHash {
        var value = SetHash()
        for hash in hashes { value.apply(itemHash: hash, direction: 1) }
        return value
    }

    func testTheSetHashDependsOnTheItemsNotTheirOrder() {
        let hashes = itemHashes(60, seed: 3)
        let forward = setHash(hashes)
        XCTAssertNotEqual(forward, SetHash())
        XCTAssertEqual(setHash(hashes.reversed()), forward)
        var random = SeededGenerator(seed: 4)
        for _ in 0..<5 { XCTAssertEqual(setHash(hashes.shuffled(using: &random)), forward) }
        XCTAssertNotEqual(setHash(Array(hashes.dropLast())), forward)
        XCTAssertEqual(forward.root(count: 60), setHash(hashes.shuffled(using: &random)).root(count: 60))
        XCTAssertNotEqual(forward.root(count: 60), forward.root(count: 59), "the count is part of the root")
        XCTAssertEqual(SetHash().root(count: 0), SetHash.emptyRoot)
        XCTAssertEqual(forward.root(count: 60).count, 32)
    }

    func testAddingThenRemovingAnItemRestoresTheSetHash() {
        let hashes = itemHashes(40, seed: 5)
        let base = setHash(Array(hashes.prefix(20)))
        var value = base
        for hash in hashes.suffix(20) { value.apply(itemHash: hash, direction: 1) }
        XCTAssertNotEqual(value, base)
        for hash in hashes.suffix(20).reversed() { value.apply(itemHash: hash, direction: -1) }
        XCTAssertEqual(value, base)
        for hash in hashes.prefix(20) { value.apply(itemHash: hash, direction: -1) }
        XCTAssertEqual(value, SetHash(), "removing every item gives the empty set's hash")
        var twice = SetHash()
        twice.apply(itemHash: hashes[0], direction: 1)
        twice.apply(itemHash: hashes[0], direction: 1)
        XCTAssertNotEqual(twice, setHash([hashes[0]]), "a multiset: an item added twice counts twice")
    }

    func testTheSetHashRoundTripsItsPersistedForm() throws {
        let value = setHash(itemHashes(25, seed: 6))
        let bytes = value.encoded()
        XCTAssertEqual(bytes.count, SetHash.byteCount)
        XCTAssertEqual(try SetHash(decoding: bytes), value)
        XCTAssertEqual(try SetHash(decoding: SetHash().encoded()), SetHash())
    }

    func testRejectASetHashOfTheWrongLength() {
        let bytes = setHash(itemHashes(3, seed: 7)).encoded()
        for wrong in [[], Array(bytes.dropLast()), bytes + [0], [UInt8](repeating: 0, count: 32)] {
            XCTAssertThrowsError(try SetHash(decoding: wrong), "\(wrong.count) bytes") { error in
                XCTAssertEqual((error as? SyncKernelError)?.code, .corruptBookkeeping)
            }
        }
    }

    func testRangeFingerprintsCombineInAnyOrderAndSubtractingInvertsAdding() {
        let parts = itemHashes(50, seed: 8).map(RangeFingerprint.init(itemHash:))
        let total = parts.reduce(RangeFingerprint.empty) { $0.adding($1) }
        XCTAssertEqual(total.count, 50)
        XCTAssertEqual(parts.reversed().reduce(RangeFingerprint.empty) { $0.adding($1) }, total)
        var random = SeededGenerator(seed: 9)
        let shuffled = parts.shuffled(using: &random)
        XCTAssertEqual(shuffled.reduce(RangeFingerprint.empty) { $0.adding($1) }, total)
        let firstHalf = shuffled.prefix(25).reduce(RangeFingerprint.empty) { $0.adding($1) }
        let secondHalf = shuffled.suffix(25).reduce(RangeFingerprint.empty) { $0.adding($1) }
        XCTAssertEqual(firstHalf.adding(secondHalf), total, "a range is the sum of its sub-ranges")
        XCTAssertEqual(total.subtracting(secondHalf), firstHalf)
        XCTAssertEqual(shuffled.reduce(total) { $0.subtracting($1) }, .empty)
        XCTAssertTrue(total.subtracting(total).isEmpty)
        XCTAssertFalse(total.isEmpty)
        let wrapping = RangeFingerprint(count: 1, sum: .max).adding(RangeFingerprint(count: 1, sum: 2))
        XCTAssertEqual(wrapping, RangeFingerprint(count: 2, sum: 1), "the sum wraps modulo 2^128")
        XCTAssertEqual(wrapping.subtracting(RangeFingerprint(count: 1, sum: 2)), RangeFingerprint(count: 1, sum: .max))
    }

    func testRangeFingerprintsRoundTripTheirEncodedForm() throws {
        let failure = SyncKernelError(.malformedFrame, "test")
        var random = SeededGenerator(seed: 10)
        let samples = [RangeFingerprint.empty, RangeFingerprint(count: -3, sum: .max), RangeFingerprint(count: .max, sum: 1)]
            + itemHashes(20, seed: 11).map(RangeFingerprint.init(itemHash:))
            + (0..<20).map { _ in
                RangeFingerprint(count: Int64(bitPattern: random.next()), sum: UInt128(random.next()) << 64 | UInt128(random.next()))
            }
        for fingerprint in samples {
            let bytes = fingerprint.encoded()
            XCTAssertEqual(bytes.count, 24)
            XCTAssertEqual(try RangeFingerprint(decoding: bytes, failure: failure), fingerprint)
        }
    }

    func testRejectARangeFingerprintOfTheWrongLength() {
        let bytes = RangeFingerprint(count: 4, sum: 12_345).encoded()
        for code in [SyncKernelError.Code.malformedFrame, .corruptBookkeeping] {
            for wrong in [[], Array(bytes.dropLast()), bytes + [0], [UInt8](repeating: 1, count: 32)] {
                XCTAssertThrowsError(try RangeFingerprint(decoding: wrong, failure: SyncKernelError(code, "test")),
                                     "\(wrong.count) bytes") { error in
                    XCTAssertEqual((error as? SyncKernelError)?.code, code, "the caller's error, not a trap")
                }
            }
        }
    }
}
