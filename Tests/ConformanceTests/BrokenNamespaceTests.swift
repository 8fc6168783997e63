import Foundation
import SyncKernel
import SyncKernelTestKit
import XCTest

/// The kit must catch each deliberately broken namespace, and its report must name the cause.
final class BrokenNamespaceTests: XCTestCase {
    /// The first failure the kit reports for `subject` (the one to fix first).
    private func failure<Subject: NamespaceConformance>(_ subject: Subject.Type, file: StaticString = #filePath,
                                                        line: UInt = #line) -> ConformanceFailure? {
        kitReport(subject, file: file, line: line)?.failures.first
    }

    func testAHashedPerDeviceTimestampFailsNamingTheField() throws {
        let report = try XCTUnwrap(failure(HashedPerDeviceTimestampSubject.self))
        XCTAssertEqual(report.check, .receiveRewriteExcluded)
        XCTAssertEqual(report.field, "stamp")
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

    func testACustomCodecWithoutAMutationFailsTheDeclarations() throws {
        let report = try XCTUnwrap(failure(UnmutatedCustomCodecSubject.self))
        XCTAssertEqual(report.check, .declarations)
        XCTAssertEqual(report.field, "text")
        XCTAssertTrue(report.description.contains("fieldMutations"), report.description)
    }

    func testAMutationNamingNoDeclaredFieldFailsTheDeclarations() throws {
        let report = try XCTUnwrap(failure(StrayMutationSubject.self))
        XCTAssertEqual(report.check, .declarations)
        XCTAssertEqual(report.field, "txt")
    }

    func testADeclarationTheKernelRefusesFailsTheDeclarations() throws {
        let report = try XCTUnwrap(failure(UndeclaredPropertySubject.self))
        XCTAssertEqual(report.check, .declarations)
        XCTAssertTrue(report.description.contains("stored property tags is not declared"), report.description)
    }

    func testAnExcludedFieldThatALeafContributionStillReadsFails() throws {
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

/// Builders for the fixtures' declarations (each fixture breaks one thing, the rest is correct).
enum BrokenFields {
    static let blank = BrokenRow(id: [], text: "", stamp: .distantPast, tags: [])

    static func make(_ generator: inout FieldGenerator) -> BrokenRow {
        BrokenRow(id: generator.bytes(16), text: generator.text(), stamp: generator.date(), tags: [generator.word()])
    }

    /// A join over the four fields with the given field merges.
    static func joined(text: FieldMerge<String>, stamp: FieldMerge<Date>, tags: FieldMerge<[String]>) -> RowSchema<BrokenRow> {
        RowSchema(blank: blank, key: \.id, [
            .hashed("id", \.id, .bytes(count: 16)), .hashed("text", \.text, .text, merge: text),
            .hashed("stamp", \.stamp, .date, merge: stamp), .hashed("tags", \.tags, .array(.text), merge: tags),
        ])
    }

    /// Every field hashed, no merges (for `.insertIfAbsent`).
    static let appendOnly = RowSchema<BrokenRow>(blank: blank, key: \.id, [
        .hashed("id", \.id, .bytes(count: 16)), .hashed("text", \.text, .text), .hashed("stamp", \.stamp, .date),
        .hashed("tags", \.tags, .array(.text)),
    ])

    /// "Keep mine": a merge that ignores the sibling's value.
    static func keepLocal<Value>() -> FieldMerge<Value> { .custom("keepLocal") { local, _ in local } }
}

/// Broken: hashes `stamp`, which each device sets when it first sees the row (a per-device timestamp).
enum HashedPerDeviceTimestamp: SyncNamespace {
    static let name = "broken_seen_at"
    static let schema = BrokenFields.joined(text: .max, stamp: BrokenFields.keepLocal(), tags: BrokenFields.keepLocal())
    static let mergeRule = MergeRule<BrokenRow>.join()
}

enum HashedPerDeviceTimestampSubject: NamespaceConformance {
    typealias Namespace = HashedPerDeviceTimestamp
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenFields.make(&generator) }
    static func received(_ row: BrokenRow, at clock: Date) -> BrokenRow {
        BrokenRow(id: row.id, text: row.text, stamp: clock, tags: row.tags)
    }
}

/// Broken: hashes `tags`, but the join keeps the local tags whatever the sibling holds.
enum IgnoredHashedField: SyncNamespace {
    static let name = "broken_ignored_field"
    static let schema = BrokenFields.joined(text: .max, stamp: .max, tags: BrokenFields.keepLocal())
    static let mergeRule = MergeRule<BrokenRow>.join()
}

enum IgnoredHashedFieldSubject: NamespaceConformance {
    typealias Namespace = IgnoredHashedField
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenFields.make(&generator) }
}

/// Broken: a hand-written codec writes the moment it encodes.
enum NonDeterministicEncoding: SyncNamespace {
    static let name = "broken_encoding"
    static let clockedText = FieldCodec<String>.custom("clockedText", write: { text, writer in
        writer.writeArrayHeader(count: 2)
        writer.write(text)
        writer.write(Int64(Date().timeIntervalSince1970 * 1_000_000_000))
    }, read: { value throws(SyncKernelError) in try value.fields(2, of: "clocked text")[0].text() })
    static let schema = RowSchema<BrokenRow>(blank: BrokenFields.blank, key: \.id, [
        .hashed("id", \.id, .bytes(count: 16)), .hashed("text", \.text, clockedText), .hashed("stamp", \.stamp, .date),
        .hashed("tags", \.tags, .array(.text)),
    ])
    static let mergeRule = MergeRule<BrokenRow>.insertIfAbsent
}

enum NonDeterministicEncodingSubject: NamespaceConformance {
    typealias Namespace = NonDeterministicEncoding
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenFields.make(&generator) }
    static let fieldMutations: [FieldSpec<BrokenRow>] = [.keyPath("text", \.text, .text)]
}

/// Broken: the text "join" takes whatever arrives last, so the result depends on delivery order.
enum NonCommutativeMerge: SyncNamespace {
    static let name = "broken_last_applied"
    static let schema = BrokenFields.joined(text: .custom("lastApplied") { _, incoming in incoming }, stamp: .max,
                                            tags: .greaterEncoding)
    static let mergeRule = MergeRule<BrokenRow>.join()
}

enum NonCommutativeMergeSubject: NamespaceConformance {
    typealias Namespace = NonCommutativeMerge
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenFields.make(&generator) }
}

/// Broken: the calendar ingester inserts synced rows with freshly minted ids on every pass.
enum RemintingIngester: SyncNamespace {
    static let name = "broken_ingester"
    static let schema = BrokenFields.appendOnly
    static let mergeRule = MergeRule<BrokenRow>.insertIfAbsent
}

enum RemintingIngesterSubject: NamespaceConformance {
    typealias Namespace = RemintingIngester
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenFields.make(&generator) }
    static let localPasses = [
        LocalPass<RemintingIngester>("calendar ingester") { tx, clock in
            let fresh = Array(SHA256.hash(domain: Array("mint".utf8), Array(UUID().uuidString.utf8)).prefix(16))
            try tx.save(BrokenRow(id: fresh, text: "standup", stamp: clock, tags: ["calendar"]))
        },
    ]
}

/// Broken: declares `tags` excluded, but the leaf contribution of `text` still reads them.
enum LyingExclusion: SyncNamespace {
    static let name = "broken_exclusion"
    static let schema = RowSchema<BrokenRow>(blank: BrokenFields.blank, key: \.id, [
        .hashed("id", \.id, .bytes(count: 16)),
        .hashed("text", \.text, .text, leaf: .derived("textAndTags", .text) { $0.text + $0.tags.joined() }),
        .hashed("stamp", \.stamp, .date),
        .excluded("tags", \.tags, .array(.text), .perDevice, reason: "claimed per device"),
    ])
    static let mergeRule = MergeRule<BrokenRow>.insertIfAbsent
}

enum LyingExclusionSubject: NamespaceConformance {
    typealias Namespace = LyingExclusion
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenFields.make(&generator) }
}

/// Broken: a custom codec the subject gives the kit no values for.
enum UnmutatedCustomCodecSubject: NamespaceConformance {
    typealias Namespace = NonDeterministicEncoding
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenFields.make(&generator) }
}

/// Broken: a mutation for a field the schema does not declare (a typo).
enum StrayMutationSubject: NamespaceConformance {
    typealias Namespace = RemintingIngester
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenFields.make(&generator) }
    static let fieldMutations: [FieldSpec<BrokenRow>] = [.keyPath("txt", \.text, .text)]
}

/// Broken: `tags` is a stored property the declaration leaves out.
enum UndeclaredProperty: SyncNamespace {
    static let name = "broken_undeclared"
    static let schema = RowSchema<BrokenRow>(blank: BrokenFields.blank, key: \.id, [
        .hashed("id", \.id, .bytes(count: 16)), .hashed("text", \.text, .text), .hashed("stamp", \.stamp, .date),
    ])
    static let mergeRule = MergeRule<BrokenRow>.insertIfAbsent
}

enum UndeclaredPropertySubject: NamespaceConformance {
    typealias Namespace = UndeclaredProperty
    static func makeRow(_ generator: inout FieldGenerator) -> BrokenRow { BrokenFields.make(&generator) }
}
