import NatsRelay
import SyncKernel

/// A transport that records each frame the host hands to the NATS transport, after handing it on.
struct TappedTransport: FrameTransport {
    let inner: NatsFrameTransport
    let device: Int
    let events: Recorder<FleetEvent>

    func send(_ frame: [UInt8], kind: String, to recipient: DeviceID) async {
        await inner.send(frame, kind: kind, to: recipient)
        events.append(FleetEvent(device: device, .sent(kind: kind)))
    }
}
