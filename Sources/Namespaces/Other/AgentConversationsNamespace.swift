import Foundation
import SyncKernel

/// agentConversations: transcripts of conversations with the agent, turn by turn.
///
/// Rule: `.insertIfAbsent`. A turn is said once and never changes; a transcript is the set of its
/// turns, so appending is the only operation and the weakest rule fits.
public enum AgentConversationsNamespace: SyncNamespace {
    public static let name = "agentConversations"

    public static let schema = RowSchema<AgentTurn>(
        blank: AgentTurn(turnID: [], conversationID: [], role: .user, text: "", at: .distantPast), key: \.turnID, [
            .hashed("turnID", \.turnID, .bytes(count: 16)),
            .hashed("conversationID", \.conversationID, .bytes(count: 16)),
            .hashed("role", \.role, .enumeration()),
            .hashed("text", \.text, .text),
            .hashed("at", \.at, .date),
            .excluded("localTokenCount", \.localTokenCount, .optional(.int64), .perDevice,
                      reason: "accounting of the device that produced the turn; other devices never produce it"),
        ])

    public static let mergeRule = MergeRule<AgentTurn>.insertIfAbsent
}
