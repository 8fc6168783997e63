import Foundation
import SyncKernel

/// One turn of a conversation with the agent.
public struct AgentTurn: Sendable, Hashable {
    /// Who spoke.
    public enum Role: UInt8, Sendable, Hashable, CaseIterable {
        /// The person.
        case user = 0
        /// The agent.
        case agent = 1
    }

    /// The stable key (16 random bytes).
    public var turnID: [UInt8]
    /// The conversation (16 bytes).
    public var conversationID: [UInt8]
    /// Who spoke.
    public var role: Role
    /// What was said.
    public var text: String
    /// When (the speaking device's clock; display order only).
    public var at: Date
    /// Tokens this device spent producing the turn (per device).
    public var localTokenCount: Int64?

    /// Creates a turn.
    public init(turnID: [UInt8], conversationID: [UInt8], role: Role, text: String, at: Date, localTokenCount: Int64? = nil) {
        self.turnID = turnID
        self.conversationID = conversationID
        self.role = role
        self.text = text
        self.at = at
        self.localTokenCount = localTokenCount
    }
}
