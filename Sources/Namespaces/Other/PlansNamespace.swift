import Foundation
import SyncKernel

/// plans: user-edited documents keyed by planID.
///
/// Rule: `.causal`. Steps are reordered, renamed and ticked on any device; a plan is one unit of
/// conflict (the row), and vectors decide which edit descends from which.
public enum PlansNamespace: SyncNamespace {
    public static let name = "plans"

    public static let schema = RowSchema<Plan>(
        blank: Plan(planID: [], title: "", steps: [], dueAt: nil, updatedAt: .distantPast), key: \.planID, [
            .hashed("planID", \.planID, .bytes(count: 16)),
            .hashed("title", \.title, .text),
            .hashed("steps", \.steps, .array(Plan.Step.codec)),
            .hashed("dueAt", \.dueAt, .optional(.date)),
            .hashed("updatedAt", \.updatedAt, .date),
        ])

    public static let mergeRule = MergeRule<Plan>.causal(changeStamp: \.updatedAt)
}
