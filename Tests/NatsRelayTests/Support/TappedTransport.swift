import TestServerSupport
import Synchronization
import SyncKernel
import XCTest

/// A transport that records each frame the host hands to an inner transport, after handing it on.
///
/// Invariant: every `send` reaches `inner` unchanged (bytes, kind, recipient) and then adds
/// exactly one `.sent(kind:)` event for `device` to `events`, in the order of the sends.
struct TappedTransport<Inner: FrameTransport>: FrameTransport {
    /// The transport the frames go to.
    let inner: Inner
    /// The device index the events name.
    let device: Int
    /// Where the taps are recorded.
    let events: Recorder<FleetEvent>

    func send(_ frame: [UInt8], kind: String, to recipient: DeviceID) async {
        await inner.send(frame, kind: kind, to: recipient)
        events.append(FleetEvent(device: device, .sent(kind: kind)))
    }
}

/// The relay tests count frames through the tap: check it taps exactly what was sent.
final class TappedTransportSelfTests: XCTestCase {
    /// An inner transport that keeps each send and how many taps were recorded when it came.
    private final class Capture: FrameTransport {
        struct Send: Equatable {
            let frame: [UInt8]
            let kind: String
            let recipient: DeviceID
            let tapsBefore: Int
        }

        let events: Recorder<FleetEvent>
        let sends = Mutex<[Send]>([])

        init(events: Recorder<FleetEvent>) {
            self.events = events
        }

        func send(_ frame: [UInt8], kind: String, to recipient: DeviceID) async {
            let taps = events.items.count
            sends.withLock { $0.append(Send(frame: frame, kind: kind, recipient: recipient, tapsBefore: taps)) }
        }
    }

    func testEverySendReachesTheInnerTransportAndIsTappedOnceAfterwards() async throws {
        let events = Recorder<FleetEvent>()
        let inner = Capture(events: events)
        let tapped = TappedTransport(inner: inner, device: 3, events: events)
        let peers = try (1...2).map { try DeviceKeyPair(seed: [UInt8](repeating: UInt8($0), count: 32)).deviceID }
        let frames: [([UInt8], String, DeviceID)] = [([1, 2, 3], "announce", peers[0]), ([], "heartbeat", peers[1]),
                                                     ([9], "sketch_req", peers[0])]
        for (frame, kind, recipient) in frames {
            await tapped.send(frame, kind: kind, to: recipient)
        }
        let expected = frames.enumerated().map { index, sent in
            Capture.Send(frame: sent.0, kind: sent.1, recipient: sent.2, tapsBefore: index)
        }
        XCTAssertEqual(inner.sends.withLock { $0 }, expected, "handed on unchanged, before its tap")
        XCTAssertEqual(events.items.map(\.device), [3, 3, 3])
        XCTAssertEqual(events.items.map { event -> String? in
            if case .sent(let kind) = event.kind { return kind }
            return nil
        }, ["announce", "heartbeat", "sketch_req"])
    }
}
