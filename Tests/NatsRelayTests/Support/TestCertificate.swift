import Foundation
import TestServers
import XCTest

/// A self-signed certificate for `localhost` and 127.0.0.1 (its own authority), made with the
/// `openssl` program for a TLS test.
struct TestCertificate {
    /// PEM certificate (also the trust root).
    let certificateFile: String
    /// PEM private key.
    let keyFile: String

    /// Writes a fresh certificate and key into `directory`; a missing `openssl` fails the test
    /// with what to do.
    static func make(in directory: String, file: StaticString = #filePath, line: UInt = #line) throws -> TestCertificate {
        let openssl: String
        do {
            openssl = try ProgramLocator.locate("openssl", override: "OPENSSL")
        } catch {
            XCTFail("\(error)", file: file, line: line)
            throw error
        }
        let certificate = TestCertificate(certificateFile: directory + "/cert.pem", keyFile: directory + "/key.pem")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", certificate.keyFile, "-out", certificate.certificateFile, "-days", "2",
                             "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "openssl req failed", file: file, line: line)
        return certificate
    }
}
