import Foundation

/// Looks at the cloud without writing: the probe shared by `SyncEngine` and `RestoreEngine`.
///
/// Invariant: never writes and never throws; the steps run in the contract's order
/// (availability, listing, emptiness, marker, marker bytes).
struct BackupProbe: Sendable {
    let storage: any CloudStorage
    let availability: any AvailabilitySource
    let markerPath: String

    /// Runs the probe.
    func run() async -> ProbeResult {
        if let reason = await Self.gate(availability) {
            return .unavailable(reason)
        }
        do {
            let files = try await storage.list().filter { !$0.path.bytesEqual(LeaseRecord.path) }
            if files.isEmpty { return .none }
            guard let marker = files.first(where: { $0.path.bytesEqual(markerPath) }) else { return .notReady }
            let bytes: Data
            do {
                bytes = try await storage.readBytes(markerPath)
            } catch CloudError.notFound {
                return .notReady
            }
            let identity = try await storage.identityKey() ?? marker.remoteId ?? ""
            let source = SourceRef(identityKey: identity, markerRemoteId: marker.remoteId,
                                   markerFingerprint: ContentHash.sha256(bytes))
            let others = files.filter { !$0.path.bytesEqual(markerPath) }.sorted { $0.path.bytesPrecede($1.path) }
            return .found(FoundBackup(marker: bytes, source: source, files: others))
        } catch let error as CloudError {
            return .failed(error)
        } catch {
            return .failed(.transport)
        }
    }

    /// The availability gate: the reason to stop, or `nil` when the cloud is available.
    static func gate(_ availability: any AvailabilitySource) async -> UnavailableReason? {
        switch await availability.availability() {
        case .noAccount: .noAccount
        case .needsConsent: .needsConsent
        case .available: nil
        }
    }
}
