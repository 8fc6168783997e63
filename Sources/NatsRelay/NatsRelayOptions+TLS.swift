import SyncRelay
import SyncKernel

extension NatsRelayOptions {
    /// TLS for the relay connection: the trust roots, an optional client certificate, and the
    /// host name the server's certificate must carry.
    ///
    /// Invariants: the server's certificate is always verified (there is no switch to skip it);
    /// a client certificate comes with its key or not at all.
    public struct TLS: Sendable, Hashable {
        /// PEM file of the certificate authorities to trust; nil: the system's roots.
        public var trustedCertificatesFile: String?
        /// PEM file of the client certificate chain, for servers that verify clients.
        public var certificateChainFile: String?
        /// PEM file of the client certificate's private key.
        public var privateKeyFile: String?
        /// The host name the server's certificate must match, when it differs from the URL's.
        public var expectedHostname: String?

        /// TLS with the given files; every one is optional.
        public init(trustedCertificatesFile: String? = nil, certificateChainFile: String? = nil,
                    privateKeyFile: String? = nil, expectedHostname: String? = nil) {
            self.trustedCertificatesFile = trustedCertificatesFile
            self.certificateChainFile = certificateChainFile
            self.privateKeyFile = privateKeyFile
            self.expectedHostname = expectedHostname
        }

        /// Refuses a certificate without its key (or the reverse) and empty paths.
        func validate() throws(RelayError) {
            guard (certificateChainFile == nil) == (privateKeyFile == nil) else {
                throw RelayError(.invalidRelayConfiguration, "a client certificate needs its key")
            }
            let values = [trustedCertificatesFile, certificateChainFile, privateKeyFile, expectedHostname]
            guard values.allSatisfy({ $0.map { !$0.isEmpty } ?? true }) else {
                throw RelayError(.invalidRelayConfiguration, "an empty TLS setting")
            }
        }
    }
}
