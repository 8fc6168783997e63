import Foundation
import SyncKernel

extension ConformanceSuite {
    /// A local edit survives the device's own merge, and a declared retraction shows at once.
    ///
    /// Under `.join()`, a device joins each edit with the row it holds. For every field whose
    /// merge is a `Register` or one the namespace wrote, an edit stamped by `touched` with a clock
    /// behind the held row's (a device whose clock runs slow or went back) must keep the value it
    /// set (compared in its settled form, after `normalize`): a merge that prefers the held value, by a clock or by "live wins", drops an edit made
    /// after seeing the row, the same loss as last-writer-wins on a wall clock. Lattice fields
    /// only grow and content fields never change, so their edits are joins by construction.
    public func checkLocalEdits() throws {
        var generator = generator(9)
        guard isJoin else { return }
        let slow = Date(timeIntervalSince1970: 1_000_000_000)
        for _ in 0..<max(trials, 4) {
            let held = touched(Subject.makeRow(&generator), at: Date(timeIntervalSince1970: 1_900_000_000))
            for entry in declared.hashedEntries where entry.field.mergeKind == .register || entry.field.mergeKind == .custom {
                let intended = touched(entry.spec.mutate(held, &generator), at: slow)
                guard let stored = Namespace.joined(held, intended), let settled = Namespace.joined(intended, intended) else { continue }
                guard DeclaredFields<Subject>.item(entry.field, stored) == DeclaredFields<Subject>.item(entry.field, settled) else {
                    throw failure(.localEdits, field: entry.spec.name,
                                  "a local edit of this field was undone by the device's own merge: the merge prefers the held value (by a clock? \"live wins\"?), so an edit made after seeing a row can lose to it; order edits by a Register's counter instead",
                                  leaves: Harness.describe(intended, stored, labels: ("edited", "after the join")))
                }
            }
            guard let retraction = Subject.retraction else { continue }
            let retracted = touched(retraction.retract(held, &generator, slow), at: slow)
            guard let stored = Namespace.joined(held, retracted) else { continue }
            guard retraction.isRetracted(stored) else {
                throw failure(.localEdits, field: Harness.blame(retracted, stored).first,
                              "a retraction was undone by the device's own merge: the merge lets the live copy win",
                              leaves: Harness.describe(retracted, stored, labels: ("retracted", "after the join")))
            }
        }
    }
}
