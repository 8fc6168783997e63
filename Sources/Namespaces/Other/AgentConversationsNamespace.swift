import Foundation
import SyncKernel

/// agentConversations: transcripts of conversations with the agent, turn by turn.
///
/// Rule: `.insertIfAbsent`. A turn is said once and never changes; a transcript is the set of its
/// turns, so appending is the only operation and the weakest rule fits.
public enum AgentConversationsNamespace: SyncNamespace {
    public typealias Row = AgentTurn

    public static let name = "agentConversations"
    public static let leafSchemaVersion = 1
    public static let excludedFields = [
        ExcludedField("localTokenCount", .perDevice, reason: "accounting of the device that produced the turn; other devices never produce it"),
    ]
    public static let mergeRule: MergeRule<AgentTurn> = .insertIfAbsent
    public static let causalMembership: CausalMembership<AgentTurn> = .untracked

    public static func key(of row: AgentTurn) -> [UInt8] { row.turnID }

    public static func encodeLeaf(_ row: AgentTurn, into writer: inout CanonicalWriter) {
        writer.write(bytes: row.turnID)
        writer.write(bytes: row.conversationID)
        writer.write(UInt64(row.role.rawValue))
        writer.write(row.text)
        writer.write(row.at)
    }

    public static func encodeRow(_ row: AgentTurn, into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 6)
        writer.write(bytes: row.turnID)
        writer.write(bytes: row.conversationID)
        writer.write(UInt64(row.role.rawValue))
        writer.write(row.text)
        writer.write(row.at)
        if let count = row.localTokenCount { writer.write(count) } else { writer.writeNull() }
    }

    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> AgentTurn {
        let fields = try value.fields(6, of: "an agent turn")
        guard try fields[2].uint() <= 1, let role = AgentTurn.Role(rawValue: UInt8(try fields[2].uint())) else {
            throw SyncKernelError(.malformedFrame, "agent turn role")
        }
        return AgentTurn(turnID: try fields[0].bytes(count: 16), conversationID: try fields[1].bytes(count: 16), role: role,
                         text: try fields[3].text(), at: try fields[4].date(),
                         localTokenCount: fields[5] == .null ? nil : try fields[5].int64())
    }

    /// Another device's token accounting is not this device's.
    public static func adopt(_ incoming: AgentTurn, over local: AgentTurn?) -> AgentTurn {
        var turn = incoming
        turn.localTokenCount = local?.localTokenCount
        return turn
    }
}
