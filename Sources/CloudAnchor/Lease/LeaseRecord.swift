import Foundation

/// The content of a lease file: who holds the writer slot and until when.
///
/// Invariant: encodes to small JSON and decodes only what it encoded (anything else is `nil`,
/// read as "no readable lease").
struct LeaseRecord: Codable, Sendable, Hashable {
    /// The storage path of the lease file (a reserved engine name: never adopted, deleted or
    /// uploaded as a snapshot entry).
    static let path = "cloudanchor.lease"

    /// The holder, for messages.
    var owner: String
    /// The holder's stable id.
    var token: String
    /// When the lease ends, in seconds since 1970.
    var expires: Double

    /// The record of a claim granted for its duration.
    init(_ claim: LeaseClaim) {
        owner = claim.owner
        token = claim.token
        expires = claim.now.addingTimeInterval(claim.duration).timeIntervalSince1970
    }

    /// The bytes of the record.
    var encoded: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }

    /// The record in `data`, or `nil`.
    static func decode(_ data: Data) -> LeaseRecord? {
        try? JSONDecoder().decode(LeaseRecord.self, from: data)
    }

    /// The end as a date.
    var expiresAt: Date {
        Date(timeIntervalSince1970: expires)
    }
}
