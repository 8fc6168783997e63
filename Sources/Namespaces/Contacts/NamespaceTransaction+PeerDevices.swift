import SyncKernel

extension NamespaceTransaction where N == PeerDevicesNamespace {
    /// Takes in an advertisement received from the contact; an older or equal one changes nothing.
    public func receiveAdvertisement(_ roster: PeerDeviceRoster) throws(SyncKernelError) {
        if let current = try row(forKey: roster.contactPubkey), current.lastAdvertisedAt >= roster.lastAdvertisedAt {
            return
        }
        try save(roster)
    }
}
