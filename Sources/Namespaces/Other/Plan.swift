import Foundation
import SyncKernel

/// A plan: steps toward a goal, ticked off on any device.
public struct Plan: Sendable, Hashable {
    /// One step.
    public struct Step: Sendable, Hashable {
        /// What to do.
        public var text: String
        /// Whether it is done.
        public var done: Bool

        /// Creates a step.
        public init(text: String, done: Bool) {
            self.text = text
            self.done = done
        }
    }

    /// The stable key (16 random bytes).
    public var planID: [UInt8]
    /// The title.
    public var title: String
    /// The steps, in order.
    public var steps: [Step]
    /// When the plan is due, if ever.
    public var dueAt: Date?
    /// Change stamp on the editing device's clock.
    public var updatedAt: Date

    /// Creates a plan.
    public init(planID: [UInt8], title: String, steps: [Step], dueAt: Date?, updatedAt: Date) {
        self.planID = planID
        self.title = title
        self.steps = steps
        self.dueAt = dueAt
        self.updatedAt = updatedAt
    }
}

extension Plan.Step {
    /// The wire form of a step: `[text, done]`.
    public static let codec = FieldCodec<Plan.Step>.record(Plan.Step(text: "", done: false), [
        .member("text", \.text, .text), .member("done", \.done, .bool),
    ])
}
