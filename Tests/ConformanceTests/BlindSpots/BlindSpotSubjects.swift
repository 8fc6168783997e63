import Foundation
import SyncKernel
import SyncKernelTestKit
import XCTest

/// A subject over items: rows from `ItemRows.make`, the score's hand-written codec mutated.
protocol ItemSubject: NamespaceConformance where Namespace.Row == Item {}

extension ItemSubject {
    static func makeRow(_ generator: inout FieldGenerator) -> Item { ItemRows.make(&generator) }
    static var fieldMutations: [FieldSpec<Item>] { [ItemFields.scoreMutation] }
}

/// Items with every nested and optional time filled, so noise has somewhere to go.
enum ItemRows {
    static func make(_ generator: inout FieldGenerator) -> Item {
        var item = ItemFields.make(&generator)
        item.due = generator.date()
        item.events = [Item.Event(at: generator.date(), label: generator.word())]
        item.note = generator.word()
        return item
    }

    /// Notes absent, empty or a word.
    static let noteMutation = FieldSpec<Item>.custom("note", read: { AnyHashable($0.note) }, mutate: { item, generator in
        var changed = item
        changed.note = generator.pick([nil, "", generator.word()])
        return changed
    })
}

enum LossyLeafSubject: ItemSubject {
    typealias Namespace = LossyLeaf
}

enum AbsentIsEmptySubject: NamespaceConformance {
    typealias Namespace = AbsentIsEmpty
    static func makeRow(_ generator: inout FieldGenerator) -> Item { ItemRows.make(&generator) }
    static let fieldMutations = [ItemFields.scoreMutation, ItemRows.noteMutation]
}

enum LossyNumberSubject: NamespaceConformance {
    typealias Namespace = LossyNumber
    static func makeRow(_ generator: inout FieldGenerator) -> Item {
        var item = ItemRows.make(&generator)
        item.score = Double(generator.int(0...1_000)) / 8
        return item
    }
    static let fieldMutations = [ItemFields.scoreMutation]
}

enum CanonicalLabelSetSubject: ItemSubject {
    typealias Namespace = CanonicalLabelSet
}

enum CanonicalMaxTitleSubject: ItemSubject {
    typealias Namespace = CanonicalMaxTitle
}

enum MillisecondLeafSubject: ItemSubject {
    typealias Namespace = MillisecondLeaf
}

enum NestedRawTimesSubject: ItemSubject {
    typealias Namespace = NestedRawTimes
}

enum OptionalRawDueSubject: ItemSubject {
    typealias Namespace = OptionalRawDue
}

enum BodyHashedDirectlySubject: NamespaceConformance {
    typealias Namespace = BodyHashedDirectly
    static func makeRow(_ generator: inout FieldGenerator) -> Doc { DocFields.make(&generator) }
    static let residency: Residency<BodyHashedDirectly>? = DocFields.residency(BodyHashedDirectly.self)
}

enum OffloadIsAnEditSubject: NamespaceConformance {
    typealias Namespace = OffloadIsAnEdit
    static func makeRow(_ generator: inout FieldGenerator) -> Doc { DocFields.make(&generator) }
    static let residency: Residency<OffloadIsAnEdit>? = DocFields.residency(OffloadIsAnEdit.self, bumpsStamp: true)
}

enum RestoreChangesContentSubject: NamespaceConformance {
    typealias Namespace = RestoreChangesContent
    static func makeRow(_ generator: inout FieldGenerator) -> Doc {
        var doc = DocFields.make(&generator)
        doc.body = "lower " + generator.word()
        return doc
    }
    static let residency: Residency<RestoreChangesContent>? = DocFields.residency(RestoreChangesContent.self, restoresUppercased: true)
}

enum CorrectOffloadSubject: NamespaceConformance {
    typealias Namespace = CorrectOffload
    static func makeRow(_ generator: inout FieldGenerator) -> Doc { DocFields.make(&generator) }
    static let residency: Residency<CorrectOffload>? = DocFields.residency(CorrectOffload.self)
}

enum WallClockTitleSubject: ItemSubject {
    typealias Namespace = WallClockTitle

    /// The app stamps every edit with its wall clock, which the merge then trusts.
    static func touched(_ row: Item, at clock: Date) -> Item? {
        var item = row
        item.updatedAt = clock
        return item
    }
}

enum LiveWinsSubject: ItemSubject {
    typealias Namespace = LiveWins
    static let retraction: Retraction<Item>? = Retraction(retract: { item, _, _ in
        var deleted = item
        deleted.deleted = true
        return deleted
    }, isRetracted: \.deleted)
}

enum RegisterCardSubject: NamespaceConformance {
    typealias Namespace = RegisterCard
    static func makeRow(_ generator: inout FieldGenerator) -> Card {
        var title = Register("")
        title.set(generator.text())
        return Card(id: generator.bytes(16), title: title, done: false, watchers: [generator.anyBytes()])
    }
}

/// An importer namespace: causal items, plus a pass that imports the "standup" item.
enum Imported: SyncNamespace {
    static let name = "imported"
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: false))
    static let mergeRule = MergeRule<Item>.causal(changeStamp: \.updatedAt)
    static let standupKey = Array(SHA256.hash(domain: Array("standup".utf8), []).prefix(16))
}

enum PerDeviceImporterSubject: ItemSubject {
    typealias Namespace = Imported
    static let localPasses = [
        LocalPass<Imported>("standup importer") { tx, clock in
            guard try !tx.allRows().contains(where: { $0.title == "standup" }) else { return }
            let fresh = Array(SHA256.hash(domain: Array("mint".utf8), Array(UUID().uuidString.utf8)).prefix(16))
            try tx.save(Item(id: fresh, title: "standup", updatedAt: Date(timeIntervalSince1970: 1_700_000_000)))
        },
    ]
}

enum ResurrectingImporterSubject: ItemSubject {
    typealias Namespace = Imported
    static let localPasses = [
        LocalPass<Imported>("standup importer") { tx, _ in
            try tx.save(Item(id: Imported.standupKey, title: "standup", updatedAt: Date(timeIntervalSince1970: 1_700_000_000)))
        },
    ]
}

enum CorrectImporterSubject: ItemSubject {
    typealias Namespace = Imported
    static let localPasses = [
        LocalPass<Imported>("standup importer") { tx, _ in
            guard try !tx.isDeleted(key: Imported.standupKey), try tx.row(forKey: Imported.standupKey) == nil else { return }
            try tx.save(Item(id: Imported.standupKey, title: "standup", updatedAt: Date(timeIntervalSince1970: 1_700_000_000)))
        },
    ]
}

/// An append-only log whose backfill rewrites titles in place.
enum Backfilled: SyncNamespace {
    static let name = "backfilled"
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: false))
    static let mergeRule = MergeRule<Item>.insertIfAbsent
}

enum InPlaceBackfillSubject: ItemSubject {
    typealias Namespace = Backfilled
    static let localPasses = [
        LocalPass<Backfilled>("uppercase backfill") { tx, _ in
            if try tx.row(forKey: Imported.standupKey) == nil {
                try tx.save(Item(id: Imported.standupKey, title: "standup", updatedAt: Date(timeIntervalSince1970: 1_700_000_000)))
            }
            for var item in try tx.allRows() where item.title != item.title.uppercased() {
                item.title = item.title.uppercased()
                try tx.save(item)
            }
        },
    ]
}

/// Rows without tags are taken for calendar rows, re-derived per device.
enum DerivedByHashedField: SyncNamespace {
    static let name = "derived_by_hashed_field"
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: false))
    static let mergeRule = MergeRule<Item>.insertIfAbsent
    static func isDeviceDerived(_ row: Item) -> Bool { row.tags.isEmpty }
}

enum DerivedByHashedFieldSubject: ItemSubject {
    typealias Namespace = DerivedByHashedField
}

/// A join that appends the incoming tags to its own.
enum AppendingJoin: SyncNamespace {
    static let name = "appending_join"
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: true, replacing: [
        .hashed("tags", \.tags, .array(.text), merge: .custom("append") { $0 + $1 }),
    ]))
    static let mergeRule = MergeRule<Item>.join()
}

enum AppendingJoinSubject: ItemSubject {
    typealias Namespace = AppendingJoin
}

/// The subjects' rows are valid for their namespaces and give the checks something to work on.
final class BlindSpotSubjectTests: XCTestCase {
    func testItemRowsFillEveryTimeAndDecode() throws {
        var generator = FieldGenerator(seed: 3)
        for _ in 0..<20 {
            let item = ItemRows.make(&generator)
            XCTAssertNotNil(item.due)
            XCTAssertFalse(item.events.isEmpty, "nested times for the noise to reach")
            XCTAssertFalse(item.tags.isEmpty, "a synced row for DerivedByHashedField")
            XCTAssertEqual(try Imported.decodeRow(bytes: Imported.rowEncoding(of: item)).id, item.id)
        }
    }

    func testTheNoteMutationReachesAbsentEmptyAndAWord() {
        var generator = FieldGenerator(seed: 4)
        let notes = Set((0..<60).map { _ in ItemRows.noteMutation.mutate(Item(id: [], title: ""), &generator).note.map { $0.isEmpty ? "empty" : "word" } ?? "absent" })
        XCTAssertEqual(notes, ["absent", "empty", "word"])
    }
}
