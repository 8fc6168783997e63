extension Replica {
    /// Takes what a frame from `sender` says of epochs (`SyncFrame.leanCapability`): its
    /// announcement of the sender's current epoch, held to read its pushes' epoch references and
    /// echoed on the next heartbeat or digest back; an echo of this store's epoch, after which
    /// frames stop announcing it (an empty one: the sibling holds none, so the next push announces
    /// it again); and a push whose epoch reference this replica could not read, answered with an
    /// empty echo on the next frame.
    ///
    /// Invariant: a sibling's epoch reference reads as a dimension only while exactly one epoch
    /// of it is held (two copies of one device's store announce two, and then none reads), and
    /// this store's epoch counts as echoed only for the dimension the echo names.
    func takeEpochForms(of frame: SyncFrame, from sender: DeviceID) {
        guard peers[sender] != nil else { return }
        var link = epochLinks[sender] ?? EpochLink()
        if let announced = frame.epochAnnouncement {
            let dimension = announced.dimension(of: sender)
            if !link.epochs.contains(dimension) { link.epochs = Array((link.epochs + [dimension]).suffix(2)) }
            link.echoDue = link.epochs.count == 1 ? EpochAnnouncement.echo(of: dimension) : []
        } else if case .push(let response, _, _) = frame.body,
                  response.rows.contains(where: \.namesUnresolvedEpoch)
                    || response.tombstones.contains(where: { $0.vector[.unresolvedEpoch] > 0 }) {
            link.echoDue = []
        }
        if let echo = frame.epochEcho {
            let current = store.deviceEpoch?.dimension
            link.echoed = current.flatMap { echo == EpochAnnouncement.echo(of: $0) ? $0 : nil }
            if echo.isEmpty { link.announced = nil }
        }
        epochLinks[sender] = link
    }
}
