import Foundation
import SyncKernel

/// One reaction: who reacted (their account fingerprint) and with what.
///
/// Invariant: equality, hashing and order compare the emoji's UTF-8 bytes, never Swift's
/// canonical string equivalence, so "é" precomposed and "e\u{301}" are two reactions and a set
/// union of reactions is the same whatever order the copies arrive in.
public struct Reaction: Sendable, Hashable, Comparable {
    /// The reactor's account fingerprint.
    public var reactor: [UInt8]
    /// The reaction.
    public var emoji: String

    /// Creates a reaction.
    public init(reactor: [UInt8], emoji: String) {
        self.reactor = reactor
        self.emoji = emoji
    }

    public static func == (lhs: Reaction, rhs: Reaction) -> Bool {
        lhs.reactor == rhs.reactor && Array(lhs.emoji.utf8) == Array(rhs.emoji.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(reactor)
        hasher.combine(Array(emoji.utf8))
    }

    public static func < (lhs: Reaction, rhs: Reaction) -> Bool {
        if lhs.reactor != rhs.reactor { return lhs.reactor.lexicographicallyPrecedes(rhs.reactor) }
        return Array(lhs.emoji.utf8).lexicographicallyPrecedes(Array(rhs.emoji.utf8))
    }

    /// The wire form: `[reactor, emoji]`.
    public static let codec = FieldCodec<Reaction>.record(Reaction(reactor: [], emoji: ""), [
        .member("reactor", \.reactor, .bytes()), .member("emoji", \.emoji, .text),
    ])
}
