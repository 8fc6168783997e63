import Foundation
import SyncKernel
import XCTest

/// The declaration is the namespace: the fingerprint moves with everything that changes a leaf, a
/// row format or a merge; the kernel refuses declarations it can prove wrong; a save the
/// namespace cannot read back is refused with nothing written; older stored rows migrate.
final class NamespaceDeclarationTests: XCTestCase {
    private func fingerprint(_ namespace: any SyncNamespace.Type) throws -> SchemaFingerprint {
        try NamespaceSet([namespace]).schema
    }

    private func code(_ body: () throws -> Void) -> SyncKernelError.Code? {
        do {
            try body()
            return nil
        } catch {
            return (error as? SyncKernelError)?.code
        }
    }

    func testChangingTheRuleChangesTheFingerprint() throws {
        let base = try fingerprint(Decl.Base.self)
        XCTAssertEqual(base, try fingerprint(Decl.Base.self))
        XCTAssertNotEqual(base, try fingerprint(Decl.AppendOnly.self), "causal -> insertIfAbsent")
        XCTAssertNotEqual(base, try fingerprint(Decl.OtherStamp.self), "the causal stamp reads another field")
        XCTAssertNotEqual(try fingerprint(Decl.Joined.self), try fingerprint(Decl.JoinedOtherMerge.self), "a field merge changed")
        XCTAssertNotEqual(try fingerprint(Decl.Joined.self), try fingerprint(Decl.JoinedNormalized.self), "the join gained a normalize step")
    }

    func testChangingAFieldChangesTheFingerprint() throws {
        let base = try fingerprint(Decl.Base.self)
        let changed: [(String, any SyncNamespace.Type)] = [
            ("a field added", Decl.FieldAdded.self), ("a codec changed", Decl.CodecChanged.self),
            ("a hashed field excluded", Decl.RoleChanged.self), ("an exclusion's category changed", Decl.CategoryChanged.self),
            ("fields reordered", Decl.Reordered.self), ("a leaf contribution derived", Decl.LeafDerived.self),
            ("schemaVersion bumped", Decl.VersionBumped.self),
            ("granularity changed", Decl.WholeNamespace.self),
        ]
        for (what, namespace) in changed {
            XCTAssertNotEqual(base, try fingerprint(namespace), what)
        }
        XCTAssertEqual(Set(try changed.map { try fingerprint($0.1) }).count, changed.count, "every change gives its own fingerprint")
        XCTAssertNotEqual(try fingerprint(Decl.AllHashed.self), try fingerprint(Decl.AllHashedWholeRow.self), "the leaf layout changed")
    }

    func testRenamingAPropertyKeepsTheFingerprint() throws {
        XCTAssertEqual(try fingerprint(Decl.Base.self), try fingerprint(Decl.Renamed.self),
                       "a rename changes no byte that is hashed, stored or shipped")
    }

    func testRejectDeclarationsTheKernelCanProveWrong() {
        let wrong: [(String, any SyncNamespace.Type)] = [
            ("a stored property is not declared", Decl.Undeclared.self),
            ("a field names no stored property", Decl.Ghost.self),
            ("a property is declared twice", Decl.Twice.self),
            ("a hashed field has no merge under join", Decl.JoinWithoutMerge.self),
            ("a merge under a whole-row rule", Decl.MergeUnderCausal.self),
            ("an excluded field in a whole-row leaf", Decl.WholeRowExcluding.self),
            ("the key is not hashed", Decl.UnhashedKey.self),
            ("a record value with an undeclared member", Decl.RecordMissingMember.self),
        ]
        for (what, namespace) in wrong {
            XCTAssertEqual(code { _ = try NamespaceSet([namespace]) }, .invalidDeclaration, what)
        }
    }

    func testDerivedAdoptKeepsThisDevicesFieldsAndResetsThemWithoutALocalCopy() {
        let local = Decl.Row(id: "k", value: "mine", count: 1, seenBy: "phone")
        let incoming = Decl.Row(id: "k", value: "theirs", count: 2, seenBy: "laptop")
        XCTAssertEqual(Decl.Base.adopt(incoming, over: local), Decl.Row(id: "k", value: "theirs", count: 2, seenBy: "phone"))
        XCTAssertEqual(Decl.Base.adopt(incoming, over: nil).seenBy, "", "another device's per-device value means nothing here")
        XCTAssertEqual(Decl.Base.excludedFields.map(\.name), ["seenBy"])
    }

    func testASaveTheNamespaceCannotReadBackIsRefusedWithNothingWritten() throws {
        let world = try TestWorld()
        let store = try world.store([Decl.Validated.self])
        try store.write(Decl.Validated.self) { tx throws(SyncKernelError) in try tx.save(Decl.Row(id: "a", value: "ok", count: 1)) }
        let digest = store.stateDigest()
        let vector = try store.version(namespace: Decl.Validated.name, key: Array("a".utf8))
        XCTAssertEqual(code {
            try store.write(Decl.Validated.self) { tx throws(SyncKernelError) in
                try tx.save(Decl.Row(id: "a", value: "edited", count: 2))
                try tx.save(Decl.Row(id: "b", value: "", count: 3))
            }
        }, .rowRejected)
        XCTAssertEqual(try store.rows(Decl.Validated.self), [Decl.Row(id: "a", value: "ok", count: 1)], "the earlier save rolled back too")
        XCTAssertEqual(store.stateDigest(), digest)
        XCTAssertEqual(try store.version(namespace: Decl.Validated.name, key: Array("a".utf8)), vector)
        XCTAssertEqual(store.stateDigest(), try store.recomputedStateDigest())
    }

    func testACodecThatCannotReadItsOwnBytesIsRefusedAtTheSave() throws {
        let world = try TestWorld()
        let store = try world.store([Decl.LossyCodec.self])
        XCTAssertEqual(code {
            try store.write(Decl.LossyCodec.self) { tx throws(SyncKernelError) in try tx.save(Decl.Row(id: "a", value: "x", count: 1)) }
        }, .rowRejected)
        XCTAssertEqual(try store.rows(Decl.LossyCodec.self), [])
    }

    func testAnOlderStoredRowMigrates() throws {
        let world = try TestWorld()
        let path = world.path()
        do {
            let store = try KernelStore(path: path, namespaces: try NamespaceSet([Decl.Base.self]))
            try store.configureDevice(TestWorld.device(0))
            try store.write(Decl.Base.self) { tx throws(SyncKernelError) in
                try tx.save(Decl.Row(id: "a", value: "one", count: 1, seenBy: "phone"))
                try tx.save(Decl.Row(id: "b", value: "two", count: 2))
            }
            store.close()
        }
        XCTAssertEqual(code { _ = try KernelStore(path: path, namespaces: try NamespaceSet([Decl.FieldAddedNoMigration.self])) },
                       .rowFormatChanged, "a changed row format without a migration refuses to open")
        let migrated = try KernelStore(path: path, namespaces: try NamespaceSet([Decl.FieldAdded.self]))
        XCTAssertEqual(try migrated.rows(Decl.FieldAdded.self), [
            Decl.RowV2(id: "a", value: "one", count: 1, seenBy: "phone", extra: "(none)"),
            Decl.RowV2(id: "b", value: "two", count: 2, seenBy: "", extra: "(none)"),
        ])
        XCTAssertEqual(migrated.stateDigest(), try migrated.recomputedStateDigest())
        XCTAssertNotNil(try migrated.version(namespace: Decl.FieldAdded.name, key: Array("a".utf8)), "bookkeeping survives")
        migrated.close()
        let reopened = try KernelStore(path: path, namespaces: try NamespaceSet([Decl.FieldAddedNoMigration.self]))
        XCTAssertEqual(try reopened.rows(Decl.FieldAddedNoMigration.self).count, 2, "the store now records the new format")
    }

    func testAMigrationThatChangesAKeyIsRefused() throws {
        let world = try TestWorld()
        let path = world.path()
        do {
            let store = try KernelStore(path: path, namespaces: try NamespaceSet([Decl.Base.self]))
            try store.configureDevice(TestWorld.device(0))
            try store.write(Decl.Base.self) { tx throws(SyncKernelError) in try tx.save(Decl.Row(id: "a", value: "one", count: 1)) }
            store.close()
        }
        XCTAssertEqual(code { _ = try KernelStore(path: path, namespaces: try NamespaceSet([Decl.RekeyingMigration.self])) },
                       .rowFormatChanged)
        let untouched = try KernelStore(path: path, namespaces: try NamespaceSet([Decl.Base.self]))
        XCTAssertEqual(try untouched.rows(Decl.Base.self), [Decl.Row(id: "a", value: "one", count: 1)], "the failed migration wrote nothing")
    }

    func testAnAdoptThatChangesTheLeafFailsTheApplyAndWritesNothing() throws {
        let world = try TestWorld()
        let sender = try world.store([Decl.LeafChangingAdopt.self])
        let receiver = try world.store([Decl.LeafChangingAdopt.self], device: 1)
        try sender.write(Decl.LeafChangingAdopt.self) { tx throws(SyncKernelError) in try tx.save(Decl.Row(id: "a", value: "v", count: 1)) }
        let response = try XCTUnwrap(try sender.respond(to: receiver.reconcileRequest(for: Decl.LeafChangingAdopt.name)).first)
        XCTAssertEqual(code { try receiver.apply(response) }, .invalidDeclaration)
        XCTAssertEqual(try receiver.rows(Decl.LeafChangingAdopt.self), [])
    }
}
