import Synchronization
import SyncEnvelope
import SyncKernel
import SyncRelay

/// The device's relay connection as an `EnvelopeCarrier`: each sealed envelope is published, as
/// opaque bytes, on the recipient's inbox subject.
///
/// Invariants: the relay is given the envelope's subject and bytes and nothing else (the wake
/// class is the bytes' second byte); an envelope the connection refuses (not connected, closed,
/// too large) is dropped, never kept for later, and counted by the connection
/// (`RelayConnection.counters`): the digest loop's re-advertisements make up for it. An envelope
/// goes in the relay's short form (`Relay.shortFormCapability`) only to a subject whose device's
/// latest announcement listed that capability (`noteCapabilities`), so a sibling of an earlier
/// build, or one that went back to one, is sent what it reads; a relay without a short form never
/// sends one.
final class RelayEnvelopeCarrier: EnvelopeCarrier {
    /// The device's connection.
    let connection: any RelayConnection
    private let shortFormCapability: String?
    private let shortForm = Mutex<Set<String>>([])

    /// A carrier over `connection`, sending every envelope in the ordinary form until a sibling
    /// announces `shortFormCapability` (nil: never).
    init(connection: any RelayConnection, shortFormCapability: String?) {
        self.connection = connection
        self.shortFormCapability = shortFormCapability
    }

    /// Records what the device whose inbox is `subject` announced: whether it reads the short form.
    func noteCapabilities(_ capabilities: [String], of subject: RecipientSubject) {
        let reads = shortFormCapability.map(capabilities.contains) ?? false
        shortForm.withLock { subjects in
            if reads { subjects.insert(subject.value) } else { subjects.remove(subject.value) }
        }
    }

    /// Whether envelopes to `subject` go in the short form.
    func sendsShortForm(to subject: RecipientSubject) -> Bool {
        shortForm.withLock { $0.contains(subject.value) }
    }

    /// Publishes `envelope.bytes` on `envelope.subject`, or drops them.
    func publish(_ envelope: SealedEnvelope) async {
        do throws(RelayError) {
            try connection.publish(envelope.bytes, to: envelope.subject.value, shortForm: sendsShortForm(to: envelope.subject))
        } catch {
            // Dropped and counted by the connection; nothing is queued (no mailbox).
            return
        }
    }
}
