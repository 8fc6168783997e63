import Foundation
import SyncKernel
import SyncKernelTestKit
import XCTest

/// The kit must catch each deliberately broken namespace, and its report must name the cause.
final class BrokenNamespaceTests: XCTestCase {
    private func failure<Subject: NamespaceConformance>(_ subject: Subject.Type, file: StaticString = #filePath,
                                                        line: UInt = #line) -> ConformanceFailure? {
        do {
            try ConformanceSuite(subject, seed: 7).run()
            XCTFail("\(Subject.Namespace.name) passed the suite but is broken", file: file, line: line)
            return nil
        } catch let failure as ConformanceFailure {
            return failure
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
            return nil
        }
    }

    func testAHashedPerDeviceTimestampFailsNamingTheField() throws {
        let report = try XCTUnwrap(failure(HashedPerDeviceTimestampSubject.self))
        XCTAssertEqual(report.check, .receiveRewriteExcluded)
        XCTAssertEqual(report.field, "seenAt")
        XCTAssertTrue(report.description.contains("per-device field storms"), report.description)
        XCTAssertTrue(report.description.contains("seed 7"), report.description)
        XCTAssertTrue(report.description.contains("≠"), "the differing leaf items are shown:\n\(report.description)")
    }

    func testAHashedFieldTheMergeIgnoresFailsNamingTheField() throws {
        let report = try XCTUnwrap(failure(IgnoredHashedFieldSubject.self))
        XCTAssertEqual(report.check, .hashedFieldMerges)
        XCTAssertEqual(report.field, "tags")
        XCTAssertTrue(report.description.contains("never converges"), report.description)
        XCTAssertTrue(report.description.contains("replica A | replica B"), report.description)
    }

    func testANonDeterministicEncodingFails() throws {
        let report = try XCTUnwrap(failure(NonDeterministicEncodingSubject.self))
        XCTAssertEqual(report.check, .canonicalEncoding)
        XCTAssertTrue(report.description.contains("non-deterministic"), report.description)
    }

    func testAMergeThatIsNotCommutativeFails() throws {
        let report = try XCTUnwrap(failure(NonCommutativeMergeSubject.self))
        XCTAssertEqual(report.check, .mergeLaws)
        XCTAssertTrue(report.description.contains("not commutative"), report.description)
    }

    func testAnIngesterThatRemintsIdsFails() throws {
        let report = try XCTUnwrap(failure(RemintingIngesterSubject.self))
        XCTAssertEqual(report.check, .localPassIdempotent)
        XCTAssertEqual(report.field, "calendar ingester")
        XCTAssertTrue(report.description.contains("re-mints ids"), report.description)
    }

    func testAnExcludedFieldThatIsStillHashedFails() throws {
        let report = try XCTUnwrap(failure(LyingExclusionSubject.self))
        XCTAssertEqual(report.check, .excludedFieldExcluded)
        XCTAssertEqual(report.field, "tags")
    }
}

/// A row shape the broken fixtures share: an id, some text, a date, a tag list.
struct BrokenRow: Sendable, Hashable {
    var id: [UInt8]
    var text: String
    var stamp: Date
    var tags: [String]
}

/// The shared codec of the fixtures (correct in itself; each fixture breaks one other thing).
enum BrokenCodec {
    static func encode(_ row: BrokenRow, into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 4)
        writer.write(bytes: row.id)
        writer.write(row.text)
        writer.write(row.stamp)
        writer.write(texts: row.tags)
    }

    static func decode(_ value: CBORValue) throws(SyncKernelError) -> BrokenRow {
        let fields = try value.fields(4, of: "a broken row")
        return BrokenRow(id: try fields[0].bytes(count: 16), text: try fields[1].text(), stamp: try fields[2].date(),
                         tags: try fields[3].texts())
    }

    static func make(_ generator: inout FieldGenerator) -> BrokenRow {
        BrokenRow(id: generator.bytes(16), text: generator.text(), stamp: generator.date(), tags: [generator.word()])
    }
}

/// The declarations every fixture shares, so each fixture states only what it breaks.
protocol BrokenShape: SyncNamespace where Row == BrokenRow {}

extension BrokenShape {
    static var leafSchemaVersion: Int { 1 }
    static var causalMembership: CausalMembership<BrokenRow> { .untracked }
    static func key(of row: BrokenRow) -> [UInt8] { row.id }
    static func encodeLeaf(_ row: BrokenRow, into writer: inout CanonicalWriter) { BrokenCodec.encode(row, into: &writer) }
    static func encodeRow(_ row: BrokenRow, into writer: inout CanonicalWriter) { BrokenCodec.encode(row, into: &writer) }
    static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> BrokenRow { try BrokenCodec.decode(value) }
}

/// Broken: hashes `stamp`, which each device sets when it first sees the row (a per-device timestamp).
enum HashedPerDeviceTimestamp: BrokenShape {
    static let name = "broken_seen_at"
    static let excludedFields: [ExcludedField] = []
    static let mergeRule: MergeRule<BrokenRow> = .fold { local, incoming in
        BrokenRow(id: local.id, text: max(local.text, incoming.text), stamp: local.stamp, tags: local.tags)
    }
}

enum HashedPerDeviceTimestampSubject: NamespaceConformance {
    typealias Namespace = HashedPerDeviceTimestamp
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenCodec.make(&generator) }
    static let hashedFields: [FieldSpec<BrokenRow>] = [.keyPath("text", \.text, .text), .date("seenAt", \.stamp)]
    static func received(_ row: BrokenRow, at clock: Date) -> BrokenRow {
        BrokenRow(id: row.id, text: row.text, stamp: clock, tags: row.tags)
    }
}

/// Broken: hashes `tags`, but the join keeps the local tags whatever the sibling holds.
enum IgnoredHashedField: BrokenShape {
    static let name = "broken_ignored_field"
    static let excludedFields: [ExcludedField] = []
    static let mergeRule: MergeRule<BrokenRow> = .fold { local, incoming in
        BrokenRow(id: local.id, text: max(local.text, incoming.text), stamp: max(local.stamp, incoming.stamp), tags: local.tags)
    }
}

enum IgnoredHashedFieldSubject: NamespaceConformance {
    typealias Namespace = IgnoredHashedField
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenCodec.make(&generator) }
    static let hashedFields: [FieldSpec<BrokenRow>] = [
        .keyPath("text", \.text, .text), .date("stamp", \.stamp), .keyPath("tags", \.tags, .array(.text)),
    ]
}

/// Broken: the leaf includes the moment it was encoded.
enum NonDeterministicEncoding: BrokenShape {
    static let name = "broken_encoding"
    static let excludedFields: [ExcludedField] = []
    static let mergeRule: MergeRule<BrokenRow> = .insertIfAbsent
    static func encodeLeaf(_ row: BrokenRow, into writer: inout CanonicalWriter) {
        BrokenCodec.encode(row, into: &writer)
        writer.write(Int64(Date().timeIntervalSince1970 * 1_000_000_000))
    }
}

enum NonDeterministicEncodingSubject: NamespaceConformance {
    typealias Namespace = NonDeterministicEncoding
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenCodec.make(&generator) }
    static let hashedFields: [FieldSpec<BrokenRow>] = [.keyPath("text", \.text, .text)]
}

/// Broken: the "join" takes whatever arrives last, so the result depends on delivery order.
enum NonCommutativeMerge: BrokenShape {
    static let name = "broken_last_applied"
    static let excludedFields: [ExcludedField] = []
    static let mergeRule: MergeRule<BrokenRow> = .monotone { _, incoming in incoming }
}

enum NonCommutativeMergeSubject: NamespaceConformance {
    typealias Namespace = NonCommutativeMerge
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenCodec.make(&generator) }
    static let hashedFields: [FieldSpec<BrokenRow>] = [.keyPath("text", \.text, .text)]
}

/// Broken: the calendar ingester inserts synced rows with freshly minted ids on every pass.
enum RemintingIngester: BrokenShape {
    static let name = "broken_ingester"
    static let excludedFields: [ExcludedField] = []
    static let mergeRule: MergeRule<BrokenRow> = .insertIfAbsent
}

enum RemintingIngesterSubject: NamespaceConformance {
    typealias Namespace = RemintingIngester
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenCodec.make(&generator) }
    static let hashedFields: [FieldSpec<BrokenRow>] = [.keyPath("text", \.text, .text)]
    static let localPasses = [
        LocalPass<RemintingIngester>("calendar ingester") { tx, clock in
            let fresh = Array(SHA256.hash(domain: Array("mint".utf8), Array(UUID().uuidString.utf8)).prefix(16))
            try tx.save(BrokenRow(id: fresh, text: "standup", stamp: clock, tags: ["calendar"]))
        },
    ]
}

/// Broken: declares `tags` excluded but still hashes them.
enum LyingExclusion: BrokenShape {
    static let name = "broken_exclusion"
    static let excludedFields = [ExcludedField("tags", .perDevice, reason: "claimed per device")]
    static let mergeRule: MergeRule<BrokenRow> = .insertIfAbsent
}

enum LyingExclusionSubject: NamespaceConformance {
    typealias Namespace = LyingExclusion
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenCodec.make(&generator) }
    static let hashedFields: [FieldSpec<BrokenRow>] = [.keyPath("text", \.text, .text)]
    static let excludedFields: [FieldSpec<BrokenRow>] = [.keyPath("tags", \.tags, .array(.text))]
}
