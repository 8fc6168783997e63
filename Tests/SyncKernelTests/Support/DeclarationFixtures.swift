import Foundation
import SyncKernel
import XCTest

/// Variations of one small declaration, each changing or breaking one thing (all named `decl`,
/// so fingerprints differ only by what the variation changes).
enum Decl {
    struct Row: Sendable, Hashable {
        var id: String
        var value: String
        var count: Int64
        var seenBy: String = ""

        /// A computed stamp (for a rule whose stamp is not a declared field).
        var shadowCount: Int64 {
            get { count }
            set { count = newValue }
        }
    }

    /// `Row` with one more property, as a later build declares it.
    struct RowV2: Sendable, Hashable {
        var id: String
        var value: String
        var count: Int64
        var seenBy: String = ""
        var extra: String = "(none)"
    }

    /// `Row` with `value` renamed.
    struct RenamedRow: Sendable, Hashable {
        var id: String
        var text: String
        var count: Int64
        var seenBy: String
    }

    /// A row holding a record value.
    struct PairRow: Sendable, Hashable {
        struct Pair: Sendable, Hashable {
            var a: String
            var b: String
        }

        var id: String
        var pair: Pair
    }

    static let blank = Row(id: "", value: "", count: 0)
    static let id = Field<Row>.hashed("id", \.id, .text)
    static let value = Field<Row>.hashed("value", \.value, .text)
    static let count = Field<Row>.hashed("count", \.count, .int64)
    static let seenBy = Field<Row>.excluded("seenBy", \.seenBy, .text, .perDevice, reason: "which device saw it first")
    static let baseSchema = RowSchema(blank: blank, key: \.id, [id, value, count, seenBy])
    static let causal = MergeRule<Row>.causal(changeStamp: \.count)

    /// The earlier declaration `FieldAdded` migrates from, restated over `RowV2`.
    static let v1OverV2 = RowSchema<RowV2>(blank: RowV2(id: "", value: "", count: 0), key: \.id, [
        .hashed("id", \.id, .text), .hashed("value", \.value, .text), .hashed("count", \.count, .int64),
        .excluded("seenBy", \.seenBy, .text, .perDevice, reason: "which device saw it first"),
    ])
    static let v2Schema = RowSchema<RowV2>(blank: RowV2(id: "", value: "", count: 0), key: \.id, [
        .hashed("id", \.id, .text), .hashed("value", \.value, .text), .hashed("count", \.count, .int64),
        .excluded("seenBy", \.seenBy, .text, .perDevice, reason: "which device saw it first"), .hashed("extra", \.extra, .text),
    ])

    enum Base: SyncNamespace {
        static let name = "decl"
        static let schema = baseSchema
        static let mergeRule = causal
    }

    enum AppendOnly: SyncNamespace {
        static let name = "decl"
        static let schema = baseSchema
        static let mergeRule = MergeRule<Row>.insertIfAbsent
    }

    enum OtherStamp: SyncNamespace {
        static let name = "decl"
        static let schema = baseSchema
        static let mergeRule = MergeRule<Row>.causal(changeStamp: \.shadowCount)
    }

    enum Joined: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, [
            id, .hashed("value", \.value, .text, merge: .max), .hashed("count", \.count, .int64, merge: .max), seenBy,
        ])
        static let mergeRule = MergeRule<Row>.join()
    }

    enum JoinedOtherMerge: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, [
            id, .hashed("value", \.value, .text, merge: .fillIfEmpty), .hashed("count", \.count, .int64, merge: .max), seenBy,
        ])
        static let mergeRule = MergeRule<Row>.join()
    }

    enum JoinedNormalized: SyncNamespace {
        static let name = "decl"
        static let schema = Joined.schema
        static let mergeRule = MergeRule<Row>.join { $0 }
    }

    enum FieldAdded: SyncNamespace {
        static let name = "decl"
        static let schema = v2Schema
        static let mergeRule = MergeRule<RowV2>.causal(changeStamp: \.count)
        static let migrations = [RowMigration(from: v1OverV2)]
    }

    enum FieldAddedNoMigration: SyncNamespace {
        static let name = "decl"
        static let schema = v2Schema
        static let mergeRule = MergeRule<RowV2>.causal(changeStamp: \.count)
    }

    enum RekeyingMigration: SyncNamespace {
        static let name = "decl"
        static let schema = v2Schema
        static let mergeRule = MergeRule<RowV2>.causal(changeStamp: \.count)
        static let migrations = [RowMigration<RowV2>(fromFormat: baseSchema.rowFormatID) { value throws(SyncKernelError) in
            var row = try v1OverV2.decodeRow(value)
            row.id += "!"
            return row
        }]
    }

    enum CodecChanged: SyncNamespace {
        static let name = "decl"
        static let shouted = FieldCodec<String>.custom("shouted", write: { $1.write($0.uppercased()) },
                                                       read: { value throws(SyncKernelError) in try value.text() })
        static let schema = RowSchema(blank: blank, key: \.id, [id, .hashed("value", \.value, shouted), count, seenBy])
        static let mergeRule = causal
    }

    enum RoleChanged: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, [
            id, .excluded("value", \.value, .text, .perDevice, reason: "now per device"), count, seenBy,
        ])
        static let mergeRule = causal
    }

    enum CategoryChanged: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, [
            id, value, count, .excluded("seenBy", \.seenBy, .text, .localIdentifier, reason: "a local id"),
        ])
        static let mergeRule = causal
    }

    enum Reordered: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, [value, id, count, seenBy])
        static let mergeRule = causal
    }

    enum LeafDerived: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, [
            id, .hashed("value", \.value, .text, leaf: .derived("valueLength", .int64) { Int64($0.value.utf8.count) }), count, seenBy,
        ])
        static let mergeRule = causal
    }

    enum AllHashed: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, [id, value, count, .hashed("seenBy", \.seenBy, .text)])
        static let mergeRule = causal
    }

    enum AllHashedWholeRow: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, layout: .wholeRow, [id, value, count, .hashed("seenBy", \.seenBy, .text)])
        static let mergeRule = causal
    }

    enum VersionBumped: SyncNamespace {
        static let name = "decl"
        static let schema = baseSchema
        static let mergeRule = causal
        static let schemaVersion = 2
    }

    enum WholeNamespace: SyncNamespace {
        static let name = "decl"
        static let schema = baseSchema
        static let mergeRule = causal
        static let granularity = ReconcileGranularity.wholeNamespace
    }

    enum Renamed: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema<RenamedRow>(blank: RenamedRow(id: "", text: "", count: 0, seenBy: ""), key: \.id, [
            .hashed("id", \.id, .text), .hashed("text", \.text, .text), .hashed("count", \.count, .int64),
            .excluded("seenBy", \.seenBy, .text, .perDevice, reason: "which device saw it first"),
        ])
        static let mergeRule = MergeRule<RenamedRow>.causal(changeStamp: \.count)
    }

    enum Undeclared: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, [id, value, count])
        static let mergeRule = causal
    }

    enum Ghost: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, [id, .hashed("valu", \.value, .text), count, seenBy])
        static let mergeRule = causal
    }

    enum Twice: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, [id, value, value, count, seenBy])
        static let mergeRule = causal
    }

    enum JoinWithoutMerge: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, [id, value, .hashed("count", \.count, .int64, merge: .max), seenBy])
        static let mergeRule = MergeRule<Row>.join()
    }

    enum MergeUnderCausal: SyncNamespace {
        static let name = "decl"
        static let schema = Joined.schema
        static let mergeRule = causal
    }

    enum WholeRowExcluding: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, layout: .wholeRow, [id, value, count, seenBy])
        static let mergeRule = causal
    }

    enum UnhashedKey: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, [
            .excluded("id", \.id, .text, .localIdentifier, reason: "wrongly"), value, count, seenBy,
        ])
        static let mergeRule = causal
    }

    enum RecordMissingMember: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema<PairRow>(blank: PairRow(id: "", pair: .init(a: "", b: "")), key: \.id, [
            .hashed("id", \.id, .text),
            .hashed("pair", \.pair, .record(PairRow.Pair(a: "", b: ""), [.member("a", \.a, .text)])),
        ])
        static let mergeRule = MergeRule<PairRow>.insertIfAbsent
    }

    enum Validated: SyncNamespace {
        static let name = "decl"
        static let schema = RowSchema(blank: blank, key: \.id, validate: { row throws(SyncKernelError) in
            guard !row.value.isEmpty else { throw SyncKernelError(.malformedFrame, "a value is never empty") }
        }, [id, value, count, seenBy])
        static let mergeRule = causal
    }

    enum LossyCodec: SyncNamespace {
        static let name = "decl"
        static let writeOnly = FieldCodec<String>.custom("writeOnly", write: { $1.write($0) }, read: { _ throws(SyncKernelError) in
            throw SyncKernelError(.malformedFrame, "this codec cannot read")
        })
        static let schema = RowSchema(blank: blank, key: \.id, [id, .hashed("value", \.value, writeOnly), count, seenBy])
        static let mergeRule = causal
    }

    enum LeafChangingAdopt: SyncNamespace {
        static let name = "decl"
        static let schema = baseSchema
        static let mergeRule = causal

        static func adopt(_ incoming: Row, over local: Row?) -> Row {
            var changed = incoming
            changed.value += " (adopted)"
            return changed
        }
    }
}

/// The fixtures keep the claims the declaration tests rest on.
final class DeclarationFixtureTests: XCTestCase {
    func testTheEarlierDeclarationRestatedOverTheNewRowHasTheOriginalRowFormat() {
        XCTAssertEqual(Decl.v1OverV2.rowFormatID, Decl.baseSchema.rowFormatID, "the migration reads what Base wrote")
        XCTAssertNotEqual(Decl.v2Schema.rowFormatID, Decl.baseSchema.rowFormatID, "adding a field changes the row format")
    }

    func testTheCorrectVariationsAreAccepted() throws {
        for namespace: any SyncNamespace.Type in [Decl.Base.self, Decl.Joined.self, Decl.FieldAdded.self, Decl.Renamed.self,
                                                  Decl.AllHashedWholeRow.self, Decl.Validated.self] {
            XCTAssertNoThrow(try NamespaceSet([namespace]), "\(namespace)")
        }
    }
}
