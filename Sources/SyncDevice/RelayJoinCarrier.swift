import SyncRelay
import SyncJoin
import SyncKernel
import Synchronization

/// The join protocol's carrier over the device's relay connection: each message is published, as opaque
/// bytes, on its join subject.
///
/// Invariants: the relay is given the subject and the bytes and nothing else; a message the
/// connection refuses (not connected, closed) is dropped, never kept (the requester's re-sends
/// make up for it); the connection may be set after the carrier was handed out (a requester
/// needs its carrier before its reply subject exists), and until it is, publishing drops.
final class RelayJoinCarrier: JoinCarrier {
    private let connection = Mutex<(any RelayConnection)?>(nil)

    /// A carrier with no connection yet.
    init() {}

    /// A carrier publishing through `connection`.
    init(_ connection: any RelayConnection) {
        self.connection.withLock { $0 = connection }
    }

    /// Publishes through `connection` from now on.
    func attach(_ connection: any RelayConnection) {
        self.connection.withLock { $0 = connection }
    }

    /// Publishes `bytes` on `subject`, or drops them.
    func publish(_ bytes: [UInt8], to subject: JoinSubject) async {
        guard let connection = connection.withLock({ $0 }) else { return }
        do throws(RelayError) {
            try connection.publish(bytes, to: subject.value)
        } catch {
            // Dropped and counted by the connection; nothing is queued (no mailbox).
            return
        }
    }
}
