extension Replica {
    /// A push sent and not acknowledged: its change counter, the root it carried, its keys.
    struct PushInFlight {
        let change: UInt64
        let root: [UInt8]
        let keys: Set<[UInt8]>
    }
}
