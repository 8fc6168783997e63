import SyncKernel

extension NamespaceTransaction where N == SettingsNamespace {
    /// Sets `key` to `value`, stamping `now` (this device's clock, whole seconds).
    public func set(_ key: String, to value: String, now: Int64) throws(SyncKernelError) {
        if let current = try row(forKey: Array(key.utf8)), current.value == value { return }
        try save(Setting(key: key, value: value, updatedAt: now))
    }

    /// Advances the read mark of `conversation` to `seconds`; an older mark never moves it back.
    public func markRead(conversation: String, at seconds: Int64, now: Int64) throws(SyncKernelError) {
        let key = ReadState.key(conversation: conversation)
        if let current = try row(forKey: Array(key.utf8)), let mark = ReadState.decode(current.value), mark >= seconds {
            return
        }
        try set(key, to: ReadState.encode(seconds: seconds), now: now)
    }
}
