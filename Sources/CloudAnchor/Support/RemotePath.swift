/// Checks and splits the relative paths the engine and the backends exchange.
///
/// Invariant: a valid path is non-empty, relative, and made of components that are neither
/// empty, `.` nor `..`; nothing outside the storage root can be named by one.
public enum RemotePath {
    /// The components of `path`, or `CloudError.invalidPath` when it is not valid.
    public static func components(_ path: String) throws(CloudError) -> [String] {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !path.isEmpty,
              parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") })
        else { throw .invalidPath }
        return parts
    }
}
