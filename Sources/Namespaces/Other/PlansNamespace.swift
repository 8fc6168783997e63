import Foundation
import SyncKernel

/// plans: user-edited documents keyed by planID.
///
/// Rule: `.causal`. Steps are reordered, renamed and ticked on any device; a plan is one unit of
/// conflict (the row), and vectors decide which edit descends from which.
public enum PlansNamespace: SyncNamespace {
    public typealias Row = Plan

    public static let name = "plans"
    public static let leafSchemaVersion = 1
    public static let excludedFields: [ExcludedField] = []
    public static let mergeRule: MergeRule<Plan> = .causal
    public static let causalMembership: CausalMembership<Plan> = .tracked { CanonicalWriter.wholeSeconds($0.updatedAt) }

    public static func key(of row: Plan) -> [UInt8] { row.planID }

    public static func encodeLeaf(_ row: Plan, into writer: inout CanonicalWriter) {
        writer.write(bytes: row.planID)
        writer.write(row.title)
        encodeSteps(row.steps, into: &writer)
        writer.writeOptional(row.dueAt) { $0.write($1) }
        writer.write(row.updatedAt)
    }

    public static func encodeRow(_ row: Plan, into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 5)
        writer.write(bytes: row.planID)
        writer.write(row.title)
        encodeSteps(row.steps, into: &writer)
        writer.writeNullable(row.dueAt)
        writer.write(row.updatedAt)
    }

    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> Plan {
        let fields = try value.fields(5, of: "a plan")
        var steps: [Plan.Step] = []
        for item in try fields[2].array() {
            let pair = try item.fields(2, of: "a plan step")
            steps.append(Plan.Step(text: try pair[0].text(), done: try pair[1].bool()))
        }
        return Plan(planID: try fields[0].bytes(count: 16), title: try fields[1].text(), steps: steps,
                    dueAt: try fields[3].nullableDate(), updatedAt: try fields[4].date())
    }

    private static func encodeSteps(_ steps: [Plan.Step], into writer: inout CanonicalWriter) {
        writer.writeArray(steps) { writer, step in
            writer.writeArrayHeader(count: 2)
            writer.write(step.text)
            writer.write(step.done)
        }
    }
}
