import SyncEnvelope
import SyncKernel

/// The envelope opener's fuzz entry: `EnvelopeGate.open` of device 0 of `EnvelopeFuzzWorld`,
/// over a fresh seen set. The first byte picks how far the rest gets before it meets the
/// fuzzer's noise (modulo 6):
/// - 0: the rest is a whole envelope, opened as it is (the size and format checks, the sealed box);
/// - 1: the rest is an inside, sealed to device 0 by the target (the inside's layout, the
///   certificate, its issuer signature and expiry, the MAC);
/// - 2: the rest is an inside without its trailer: the target signs it with the key of the
///   device its certificate names (device 1's when none) and MACs it under the channel key
///   (the roster, the signature, the recipient, the replay window, the seen set);
/// - 3: device 1 holds a session to device 0, and the rest is a counter byte and a frame the
///   target seals in a session envelope at that counter (the session's checks and window);
/// - 4: device 1 holds a session, and the rest follows a session envelope's version, wake class
///   and index unsealed (the header's reading, the tag);
/// - 5: the rest, behind the session magic, is sealed by device 1 in a short handshake envelope
///   (`HandshakeFormat`: the reference, the key of both certified keys, the inside's reading).
///
/// Checks: every open ends in one verdict, counted once under its reason and reported once as an
/// event; a sealed input (1 and 2) is never dropped as unopenable or for its outer format; a
/// drop records no frame id; an accepted envelope comes from a sibling, records exactly one
/// frame id (a session envelope none), carries (in modes 2 and 3) exactly the frame bytes sealed,
/// and is dropped as `replayed` when opened again; mode 3 is never refused but as `replayed`
/// twice over, mode 4 is accepted only when the session key opens it to that very frame, and
/// mode 5 is accepted from device 1 with exactly the message sealed whenever it fits the form.
package enum EnvelopeFuzzTarget {
    /// Runs the target on one input.
    package static func run(_ bytes: [UInt8]) throws(FuzzViolation) -> FuzzOutcome {
        guard case .accepted = try verdict(bytes) else { return .refused }
        return .accepted
    }

    /// The gate's verdict on the input after every check above; nil for an empty input.
    package static func verdict(_ bytes: [UInt8]) throws(FuzzViolation) -> EnvelopeVerdict? {
        guard let first = bytes.first else { return nil }
        guard let world = EnvelopeFuzzWorld.shared else { throw FuzzViolation("envelope: the fixed keys could not be derived") }
        let body = Array(bytes.dropFirst())
        let mode = first % 6
        let gate: EnvelopeGate
        do {
            gate = try world.gate()
        } catch {
            throw FuzzViolation("envelope: the in-memory seen set could not be opened (\(error.code))")
        }
        let envelope: [UInt8]
        var sessionKey: [UInt8] = []
        switch mode {
        case 0:
            envelope = body
        case 1:
            envelope = try seal(body, world)
        case 5:
            let message = SessionMessage.magic + body
            guard let sealed = HandshakeFormat.seal(message, from: world.siblingKeys, to: world.certificates[0], timestamp: EnvelopeFuzzWorld.now,
                                                    wake: .silent, ephemeralSecret: EnvelopeFuzzWorld.ephemeralSeed) else {
                throw FuzzViolation("envelope: the fixed keys could not seal a short handshake")
            }
            envelope = sealed
        case 3, 4:
            guard let session = world.openSession(on: gate) else { throw FuzzViolation("envelope: the fixed session could not open") }
            sessionKey = session.key
            let head = [SessionFormat.version, WakeClass.silent.rawValue] + withUnsafeBytes(of: session.index.bigEndian) { Array($0) }
            if mode == 4 {
                envelope = head + body
            } else {
                guard let sealed = SessionFormat.seal(Array(body.dropFirst()), wake: .silent, index: session.index,
                                                      counter: UInt64(body.first ?? 0), key: session.key) else {
                    throw FuzzViolation("envelope: the fixed session could not seal")
                }
                envelope = sealed
            }
        default:
            let signer = SenderCertificate(parsing: body.dropFirst().prefix(SenderCertificate.byteCount))
                .flatMap { certificate in world.devices.first { $0.device == certificate.device } } ?? world.devices[1]
            guard let inside = EnvelopeFormat.signedAndAuthenticated(body, signingKey: signer.signing.secretKey, macKey: world.keys.channel.mac)
            else { throw FuzzViolation("envelope: the fixed keys could not sign") }
            envelope = try seal(inside, world)
        }
        let verdict = gate.open(envelope, now: EnvelopeFuzzWorld.now)
        let events = gate.drainEvents()
        switch verdict {
        case .dropped(let reason):
            guard EnvelopeDropReason.all.contains(reason), gate.dropCounts == [reason: 1], gate.acceptedCount == 0,
                  events == [.dropped(reason: reason, bytes: envelope.count)] else {
                throw FuzzViolation("envelope: a drop was not counted and reported exactly once")
            }
            guard gate.seenCount == 0 else { throw FuzzViolation("envelope: a dropped envelope recorded its frame id") }
            if [1, 2].contains(mode), [.unopenable, .unknownFormat, .noKeyMaterial, .oversized].contains(reason) {
                throw FuzzViolation("envelope: a well-sealed envelope was dropped as \(reason.name)")
            }
            if mode == 3, body.count <= SyncFrame.maxFrameBytes {
                throw FuzzViolation("envelope: a well-sealed session envelope was dropped as \(reason.name)")
            }
            if mode == 5, envelope.count >= HandshakeFormat.minBytes, envelope.count <= HandshakeFormat.maxBytes {
                throw FuzzViolation("envelope: a well-sealed short handshake was dropped as \(reason.name)")
            }
        case .accepted(let opened):
            guard gate.acceptedCount == 1, gate.dropCounts.isEmpty, events.isEmpty, gate.seenCount == ([3, 4].contains(mode) ? 0 : 1) else {
                throw FuzzViolation("envelope: an accepted envelope was counted, reported or recorded wrongly")
            }
            guard world.roster.contains(opened.sender) else { throw FuzzViolation("envelope: accepted from a device outside the roster") }
            if mode == 4, SessionFormat.header(envelope).flatMap({ SessionFormat.open(envelope, header: $0, key: sessionKey) }) != opened.frame {
                throw FuzzViolation("envelope: a session envelope its key does not open was accepted")
            }
            if mode == 2, opened.frame != Array(body.dropFirst(EnvelopeFormat.innerHeaderBytes)) {
                throw FuzzViolation("envelope: the accepted frame differs from the one sealed")
            }
            if mode == 3, opened.frame != Array(body.dropFirst()) || opened.sender != world.devices[1].device {
                throw FuzzViolation("envelope: the accepted session frame differs from the one sealed")
            }
            if mode == 5, opened.frame != SessionMessage.magic + body || opened.sender != world.devices[1].device || !opened.viaHandshake {
                throw FuzzViolation("envelope: the accepted short handshake differs from the one sealed")
            }
            guard gate.open(envelope, now: EnvelopeFuzzWorld.now) == .dropped(.replayed) else {
                throw FuzzViolation("envelope: an accepted envelope opened twice")
            }
        }
        return verdict
    }

    /// `inside` sealed to device 0 with the fixed ephemeral seed, behind the outer header.
    private static func seal(_ inside: [UInt8], _ world: EnvelopeFuzzWorld) throws(FuzzViolation) -> [UInt8] {
        guard let box = Sodium.seal(inside, to: world.devices[0].envelopePublicKey, ephemeralSeed: EnvelopeFuzzWorld.ephemeralSeed) else {
            throw FuzzViolation("envelope: the fixed keys could not seal")
        }
        return [EnvelopeFormat.version, WakeClass.silent.rawValue] + box
    }

    /// Seeds: envelopes from devices 1 and 2 carrying `frames`, and the same insides as modes 1 and 2 take them.
    static func seeds(frames: [[UInt8]]) throws(SyncKernelError) -> [[UInt8]] {
        guard let world = EnvelopeFuzzWorld.shared else { throw SyncKernelError(.keyMaterialMissing, "no fuzz keys") }
        var seeds: [[UInt8]] = []
        for (index, frame) in frames.enumerated() {
            let sender = 1 + index % 2
            let frameID = SHA256.hash(domain: Array("synckernel.fuzz.frame-id".utf8), [UInt8(truncatingIfNeeded: index)])
            let fields = [EnvelopeFormat.innerVersion] + world.certificates[sender].encoded() + world.devices[0].device.publicKey
                + Array(frameID.prefix(EnvelopeFormat.frameIDBytes)) + withUnsafeBytes(of: EnvelopeFuzzWorld.now.bigEndian) { Array($0) }
                + frame
            guard let inside = EnvelopeFormat.signedAndAuthenticated(fields, signingKey: world.devices[sender].signing.secretKey,
                                                                     macKey: world.keys.channel.mac),
                  let box = Sodium.seal(inside, to: world.devices[0].envelopePublicKey, ephemeralSeed: EnvelopeFuzzWorld.ephemeralSeed) else {
                throw SyncKernelError(.keyMaterialMissing, "the fuzz keys could not seal")
            }
            seeds.append([0] + [EnvelopeFormat.version, WakeClass.silent.rawValue] + box)
            seeds.append([1] + inside)
            seeds.append([2] + fields)
            seeds.append([3, UInt8(truncatingIfNeeded: index)] + frame)
            if let session = try? world.gate(), let opened = world.openSession(on: session),
               let sealed = SessionFormat.seal(frame, wake: .silent, index: opened.index, counter: UInt64(index), key: opened.key) {
                seeds.append([4] + sealed.dropFirst(SessionFormat.fixedHeaderBytes))
            }
            if let ephemeral = Sodium.envelopePublicKey(secretKey: EnvelopeFuzzWorld.helloSecret) {
                let hello = SessionMessage.Hello(helloID: EnvelopeFuzzWorld.helloID, ephemeral: ephemeral,
                                                 epoch: [UInt8](repeating: 0x55, count: 16), replyIndex: UInt32(index), frame: frame)
                seeds.append([5] + SessionMessage.hello(hello).encoded().dropFirst(SessionMessage.magic.count))
            }
        }
        return seeds
    }
}
