import Foundation
import SyncKernel
import SyncKernelTestKit
import XCTest

// Plausible namespaces with one realistic defect each, declared the way their authors would
// believe is right, grouped by the blind spot of the old kit that let them pass.

/// A second row shape for fixtures that need more than text, a date and tags.
struct Item: Sendable, Hashable {
    var id: [UInt8]
    var title: String
    var score: Double = 0
    var at: Date = .distantPast
    var due: Date?
    var note: String?
    var events: [Event] = []
    var labels: [Label] = []
    var updatedAt: Date = .distantPast
    var deleted: Bool = false
    var tags: [String] = []

    /// A dated entry inside an item.
    struct Event: Sendable, Hashable {
        var at: Date
        var label: String
    }

    /// A label with an owner: equality is Swift's (canonical) string equality, the trap.
    struct Label: Sendable, Hashable, Comparable {
        var owner: [UInt8]
        var text: String

        static func < (lhs: Label, rhs: Label) -> Bool {
            if lhs.owner != rhs.owner { return lhs.owner.lexicographicallyPrecedes(rhs.owner) }
            return Array(lhs.text.utf8).lexicographicallyPrecedes(Array(rhs.text.utf8))
        }
    }
}

enum ItemFields {
    static let blank = Item(id: [], title: "")
    static let event = FieldCodec<Item.Event>.record(Item.Event(at: .distantPast, label: ""), [
        .member("at", \.at, .date), .member("label", \.label, .text),
    ])
    static let label = FieldCodec<Item.Label>.record(Item.Label(owner: [], text: ""), [
        .member("owner", \.owner, .bytes()), .member("text", \.text, .text),
    ])

    static func make(_ generator: inout FieldGenerator) -> Item {
        Item(id: generator.bytes(16), title: generator.text(), at: generator.date(), updatedAt: generator.date(), tags: [generator.word()])
    }

    /// The fields every fixture declares the same way, all hashed, with `changed` replacing any by name.
    static func fields(merge: Bool, replacing changed: [Field<Item>] = []) -> [Field<Item>] {
        let standard: [Field<Item>] = merge ? [
            .hashed("id", \.id, .bytes(count: 16)), .hashed("title", \.title, .text, merge: .greaterEncoding), .hashed("score", \.score, score, merge: .max),
            .hashed("at", \.at, .date, merge: .max), .hashed("due", \.due, .optional(.date), merge: .greaterEncoding),
            .hashed("note", \.note, .optional(.text), merge: .greaterEncoding),
            .hashed("events", \.events, .array(event), merge: .greaterEncoding),
            .hashed("labels", \.labels, .array(label), merge: .greaterEncoding),
            .hashed("updatedAt", \.updatedAt, .date, merge: .max), .hashed("deleted", \.deleted, .bool, merge: .or),
            .hashed("tags", \.tags, .array(.text), merge: .greaterEncoding),
        ] : [
            .hashed("id", \.id, .bytes(count: 16)), .hashed("title", \.title, .text), .hashed("score", \.score, score),
            .hashed("at", \.at, .date), .hashed("due", \.due, .optional(.date)), .hashed("note", \.note, .optional(.text)),
            .hashed("events", \.events, .array(event)), .hashed("labels", \.labels, .array(label)),
            .hashed("updatedAt", \.updatedAt, .date), .hashed("deleted", \.deleted, .bool), .hashed("tags", \.tags, .array(.text)),
        ]
        return standard.map { field in changed.first { $0.name == field.name } ?? field }
    }

    /// A score held exactly (its bit pattern).
    static let score = FieldCodec<Double>.custom("scoreBits", write: { $1.write($0.bitPattern) }, read: { value throws(SyncKernelError) in
        Double(bitPattern: try value.uint())
    })

    /// Mutations for the hand-written score codec.
    static let scoreMutation = FieldSpec<Item>.keyPath("score", \.score, ValueGenerator { Double($0.int(0...1_000)) / 7 })
}

// MARK: Injectivity

/// Hashes the title's length instead of the title: two titles of one length share a leaf.
enum LossyLeaf: SyncNamespace {
    static let name = "lossy_leaf"
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: false, replacing: [
        .hashed("title", \.title, .text, leaf: .derived("titleLength", .int64) { Int64($0.title.count) }),
    ]))
    static let mergeRule = MergeRule<Item>.causal(changeStamp: \.updatedAt)
}

/// Writes an absent note as an empty one: a saved nil reads back as "" (or the reverse).
enum AbsentIsEmpty: SyncNamespace {
    static let name = "absent_is_empty"
    static let noteCodec = FieldCodec<String?>.custom("noteOrEmpty", write: { $1.write($0 ?? "") }, read: { value throws(SyncKernelError) in
        let text = try value.text()
        return text.isEmpty ? nil : text
    })
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: false, replacing: [
        .hashed("note", \.note, noteCodec),
    ]))
    static let mergeRule = MergeRule<Item>.causal(changeStamp: \.updatedAt)
}

/// Keeps a score as whole units: 2.5 saved reads back as 2.
enum LossyNumber: SyncNamespace {
    static let name = "lossy_number"
    static let rounded = FieldCodec<Double>.custom("scoreUnits", write: { $1.write(Int64($0)) }, read: { value throws(SyncKernelError) in
        Double(try value.int64())
    })
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: false, replacing: [
        .hashed("score", \.score, rounded),
    ]))
    static let mergeRule = MergeRule<Item>.causal(changeStamp: \.updatedAt)
}

// MARK: Text

/// Unions labels in a `Set` whose equality is Swift's canonical string equality.
enum CanonicalLabelSet: SyncNamespace {
    static let name = "canonical_label_set"
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: true, replacing: [
        .hashed("labels", \.labels, .array(ItemFields.label), merge: .sortedUnion()),
    ]))
    static let mergeRule = MergeRule<Item>.join()
}

/// Keeps the greater title by Swift's `max`, which calls "é" and "e\u{301}" equal.
enum CanonicalMaxTitle: SyncNamespace {
    static let name = "canonical_max_title"
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: true, replacing: [
        .hashed("note", \.note, .optional(.text), merge: .custom("swiftMax") { Swift.max($0 ?? "", $1 ?? "") }),
    ]))
    static let mergeRule = MergeRule<Item>.join()
}

// MARK: Precision

/// Stores whole seconds but hashes milliseconds of the time held in memory.
enum MillisecondLeaf: SyncNamespace {
    static let name = "millisecond_leaf"
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: false, replacing: [
        .hashed("at", \.at, .date, leaf: .derived("atMillis", .int64) { Int64(($0.at.timeIntervalSince1970 * 1000).rounded(.down)) }),
    ]))
    static let mergeRule = MergeRule<Item>.causal(changeStamp: \.updatedAt)
}

/// Hashes the raw times of nested events.
enum NestedRawTimes: SyncNamespace {
    static let name = "nested_raw_times"
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: false, replacing: [
        .hashed("events", \.events, .array(ItemFields.event),
                leaf: .derived("eventTimes", .text) { $0.events.map { "\($0.at.timeIntervalSince1970)" }.joined(separator: ",") }),
    ]))
    static let mergeRule = MergeRule<Item>.causal(changeStamp: \.updatedAt)
}

/// Hashes an optional due date's raw seconds.
enum OptionalRawDue: SyncNamespace {
    static let name = "optional_raw_due"
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: false, replacing: [
        .hashed("due", \.due, .optional(.date), leaf: .derived("dueSeconds", .text) { "\($0.due?.timeIntervalSince1970 ?? 0)" }),
    ]))
    static let mergeRule = MergeRule<Item>.causal(changeStamp: \.updatedAt)
}

// MARK: Residency

/// A note whose body can be offloaded: `body`, the offload flag and the holder.
struct Doc: Sendable, Hashable {
    var id: [UInt8]
    var body: String
    var digest: [UInt8]?
    var offloaded: Bool = false
    var holder: [UInt8]?
    var updatedAt: Date
}

enum DocFields {
    static let blank = Doc(id: [], body: "", updatedAt: .distantPast)
    static func digest(_ body: String) -> [UInt8] { SHA256.hash(domain: Array("doc".utf8), Array(body.utf8)) }
    static func leafDigest(_ doc: Doc) -> [UInt8] { doc.offloaded ? doc.digest ?? [] : digest(doc.body) }

    static func schema(hashingBodyDirectly: Bool) -> RowSchema<Doc> {
        RowSchema(blank: blank, key: \.id, validate: { doc throws(SyncKernelError) in
            guard !doc.offloaded || (doc.digest != nil && doc.body.isEmpty) else {
                throw SyncKernelError(.malformedFrame, "an offloaded doc keeps a digest and no body")
            }
        }, [
            .hashed("id", \.id, .bytes(count: 16)),
            hashingBodyDirectly ? .hashed("body", \.body, .text)
                : .hashed("body", \.body, .text, leaf: .derived("bodyDigest", .bytes(), leafDigest)),
            .excluded("digest", \.digest, .optional(.bytes()), .residency, reason: "the body's digest an offloaded copy keeps"),
            .excluded("offloaded", \.offloaded, .bool, .residency, reason: "whether this device holds the bytes"),
            .excluded("holder", \.holder, .optional(.bytes()), .residency, reason: "which device holds them"),
            .hashed("updatedAt", \.updatedAt, .date),
        ])
    }

    static func make(_ generator: inout FieldGenerator) -> Doc {
        Doc(id: generator.bytes(16), body: generator.text(words: 2...9), updatedAt: generator.date())
    }

    /// Offloading as a correct mutator does it, with `stamp` optionally also moving `updatedAt`.
    static func residency<N: SyncNamespace>(_ namespace: N.Type, bumpsStamp: Bool = false, restoresUppercased: Bool = false) -> Residency<N>
        where N.Row == Doc {
        Residency(offload: { tx, key, holder in
            guard var doc = try tx.row(forKey: key), !doc.offloaded else { return false }
            doc.digest = digest(doc.body)
            doc.body = ""
            doc.offloaded = true
            doc.holder = holder
            if bumpsStamp { doc.updatedAt = doc.updatedAt.addingTimeInterval(1) }
            try tx.save(doc)
            return true
        }, restore: { tx, key, original in
            guard var doc = try tx.row(forKey: key) else { return }
            doc.body = restoresUppercased ? original.body.uppercased() : original.body
            doc.offloaded = false
            doc.holder = nil
            try tx.save(doc)
        })
    }
}

/// Hashes the body text itself, so an offloaded copy (empty body) hashes differently.
enum BodyHashedDirectly: SyncNamespace {
    static let name = "body_hashed_directly"
    static let schema = DocFields.schema(hashingBodyDirectly: true)
    static let mergeRule = MergeRule<Doc>.causal(changeStamp: \.updatedAt)
}

/// Hashes the body through its digest, but its offload mutator touches `updatedAt`.
enum OffloadIsAnEdit: SyncNamespace {
    static let name = "offload_is_an_edit"
    static let schema = DocFields.schema(hashingBodyDirectly: false)
    static let mergeRule = MergeRule<Doc>.causal(changeStamp: \.updatedAt)
}

/// Offloads correctly, but its restore does not bring back the same text.
enum RestoreChangesContent: SyncNamespace {
    static let name = "restore_changes_content"
    static let schema = DocFields.schema(hashingBodyDirectly: false)
    static let mergeRule = MergeRule<Doc>.causal(changeStamp: \.updatedAt)
}

/// Offloads and restores correctly (the control: it must pass).
enum CorrectOffload: SyncNamespace {
    static let name = "correct_offload"
    static let schema = DocFields.schema(hashingBodyDirectly: false)
    static let mergeRule = MergeRule<Doc>.causal(changeStamp: \.updatedAt)
}

// MARK: Join rules judged causally

/// A "join" that keeps the title stamped with the later wall clock.
enum WallClockTitle: SyncNamespace {
    static let name = "wall_clock_title"
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: true, replacing: [
        .hashed("title", \.title, .text, merge: .custom("keepLocalTitle") { local, _ in local }),
    ]).filter { $0.name != "title" && $0.name != "updatedAt" } + [
        .group("titleAndStamp", [.member("title", \.title, .text), .member("updatedAt", \.updatedAt, .date)],
               merge: .custom("newerStamp") { local, incoming in incoming.updatedAt > local.updatedAt ? incoming : local }),
    ])
    static let mergeRule = MergeRule<Item>.join()
}

/// Deleted is a flag, but a live copy wins over a deleted one.
enum LiveWins: SyncNamespace {
    static let name = "live_wins"
    static let schema = RowSchema(blank: ItemFields.blank, key: \.id, ItemFields.fields(merge: true, replacing: [
        .hashed("deleted", \.deleted, .bool, merge: .custom("liveWins") { $0 && $1 }),
    ]))
    static let mergeRule = MergeRule<Item>.join()
}

/// A card: a title ordered by edit counter beside a monotone flag and a grow-only set.
struct Card: Sendable, Hashable {
    var id: [UInt8]
    var title: Register<String>
    var done: Bool
    var watchers: [[UInt8]]
}

/// "Causal title + monotone done" without a hand-written join: the pattern the kit should
/// accept (the control).
enum RegisterCard: SyncNamespace {
    static let name = "register_card"
    static let schema = RowSchema<Card>(blank: Card(id: [], title: Register(""), done: false, watchers: []), key: \.id, [
        .hashed("id", \.id, .bytes(count: 16)),
        .hashed("title", \.title, .register(.text), merge: .register()),
        .hashed("done", \.done, .bool, merge: .or),
        .hashed("watchers", \.watchers, .array(.bytes()), merge: .sortedUnion()),
    ])
    static let mergeRule = MergeRule<Card>.join()
}

/// The fixtures are plausible: the kernel accepts every declaration, so what catches each defect
/// is the kit, not a refusal at registration.
final class BlindSpotFixtureTests: XCTestCase {
    func testTheKernelAcceptsEveryFixtureDeclaration() {
        let namespaces: [any SyncNamespace.Type] = [
            LossyLeaf.self, AbsentIsEmpty.self, LossyNumber.self, CanonicalLabelSet.self, CanonicalMaxTitle.self,
            MillisecondLeaf.self, NestedRawTimes.self, OptionalRawDue.self, BodyHashedDirectly.self, OffloadIsAnEdit.self,
            RestoreChangesContent.self, CorrectOffload.self, WallClockTitle.self, LiveWins.self, RegisterCard.self,
        ]
        for namespace in namespaces {
            XCTAssertNoThrow(try NamespaceSet([namespace]), "\(namespace)")
        }
    }

    func testTheDefectsAreWhereTheFixturesSayTheyAre() {
        let short = Item(id: [UInt8](repeating: 1, count: 16), title: "ab")
        var sameLength = short
        sameLength.title = "cd"
        XCTAssertEqual(LossyLeaf.leafEncoding(of: short), LossyLeaf.leafEncoding(of: sameLength), "the leaf keeps only the length")
        var scored = short
        scored.score = 2.5
        XCTAssertEqual(try LossyNumber.decodeRow(bytes: LossyNumber.rowEncoding(of: scored)).score, 2, "the score is rounded")
        let doc = Doc(id: [UInt8](repeating: 1, count: 16), body: "text", updatedAt: .distantPast)
        var offloaded = doc
        offloaded.digest = DocFields.digest(doc.body)
        offloaded.body = ""
        offloaded.offloaded = true
        XCTAssertNotEqual(BodyHashedDirectly.leafEncoding(of: doc), BodyHashedDirectly.leafEncoding(of: offloaded))
        XCTAssertEqual(CorrectOffload.leafEncoding(of: doc), CorrectOffload.leafEncoding(of: offloaded))
    }
}
