import SyncKernel
import SyncKernelSimulator
import XCTest

final class BucketizeTests: XCTestCase {
    private func index(_ count: Int, seed: UInt64 = 1) -> SortedLeaves {
        var random = SeededGenerator(seed: seed)
        return SortedLeaves((0..<count).map { _ in Leaf(key: random.bytes(8), hash: random.bytes(32)) })
    }

    private func assertTiles(_ buckets: [RangeBucket], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(buckets.first?.range.lo, [], file: file, line: line)
        XCTAssertNil(buckets.last?.range.hi, file: file, line: line)
        for index in buckets.indices.dropLast() {
            XCTAssertEqual(buckets[index].range.hi, buckets[index + 1].range.lo, file: file, line: line)
        }
    }

    func testAtOrBelowTheThresholdEachRowIsItsOwnBucketWhoseRootIsItsLeaf() {
        let leaves = index(256)
        let buckets = Bucketizer.bucketize(leaves)
        XCTAssertEqual(buckets.count, 256)
        XCTAssertEqual(buckets.map(\.root), leaves.leaves.map(\.hash))
        XCTAssertTrue(buckets.allSatisfy { $0.count == 1 })
        for (bucket, position) in zip(buckets.dropFirst(), 1...) {
            let (previous, first) = (leaves.leaves[position - 1].key, leaves.leaves[position].key)
            XCTAssertTrue(previous.lexicographicallyPrecedes(bucket.range.lo), "boundary sorts after the previous key")
            XCTAssertTrue(first.starts(with: bucket.range.lo), "boundary is a prefix of the bucket's first key")
            XCTAssertEqual(Array(leaves.leaves(in: bucket.range).map(\.key)), [first])
        }
        XCTAssertLessThan(buckets.map(\.range.lo.count).reduce(0, +), 256 * 3, "short boundaries on the wire")
        assertTiles(buckets)
    }

    func testAboveTheThresholdGroupsHoldCeilOfNOver256() {
        let leaves = index(20_000)
        let buckets = Bucketizer.bucketize(leaves)
        XCTAssertEqual(buckets.first?.count, 79)
        XCTAssertEqual(buckets.reduce(0) { $0 + $1.count }, 20_000)
        XCTAssertLessThanOrEqual(buckets.count, 256)
        assertTiles(buckets)
        XCTAssertEqual(MerkleTree.root(buckets.map(\.root)).count, 32)
        XCTAssertEqual(Bucketizer.mismatchingRanges(buckets, over: leaves), [])
        let removed = SortedLeaves(leaves.leaves.filter { $0.key != leaves.leaves[5000].key })
        XCTAssertEqual(Bucketizer.mismatchingRanges(buckets, over: removed).count, 1)
    }

    func testEmptyNamespaceSendsOneBucketCoveringEverything() {
        let buckets = Bucketizer.bucketize(SortedLeaves())
        XCTAssertEqual(buckets, [RangeBucket(range: .all, root: MerkleTree.emptyRoot, count: 0)])
        let responder = SortedLeaves([Leaf(key: [9], hash: [UInt8](repeating: 1, count: 32))])
        XCTAssertEqual(Bucketizer.mismatchingRanges(buckets, over: responder), [.all])
    }

    func testAKeyOnlyTheResponderHoldsLandsInExactlyOneBucket() {
        let requester = index(1000)
        let buckets = Bucketizer.bucketize(requester)
        let below = Leaf(key: [0x00], hash: [UInt8](repeating: 7, count: 32))
        let above = Leaf(key: [UInt8](repeating: 0xff, count: 9), hash: [UInt8](repeating: 8, count: 32))
        let responder = SortedLeaves(requester.leaves + [below, above])
        let ranges = Bucketizer.mismatchingRanges(buckets, over: responder)
        XCTAssertEqual(ranges.count, 2)
        XCTAssertTrue(ranges[0].contains(below.key))
        XCTAssertTrue(ranges[1].contains(above.key))
    }

    func testCountIsComparedAlongsideTheRoot() {
        let leaf = Leaf(key: [5], hash: [UInt8](repeating: 3, count: 32))
        let forged = [RangeBucket(range: .all, root: leaf.hash, count: 2)]
        XCTAssertEqual(Bucketizer.mismatchingRanges(forged, over: SortedLeaves([leaf])), [.all])
    }
}
