import Synchronization
@testable import CloudAnchor

/// Collects values reported from `@Sendable` callbacks (progress, logs) for assertions.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    var all: [Value] {
        values.withLock { $0 }
    }
}

/// An availability source a test can change between runs.
final class SwitchableAvailability: AvailabilitySource {
    private let value = Mutex(CloudAvailability.available)

    func set(_ availability: CloudAvailability) {
        value.withLock { $0 = availability }
    }

    func availability() async -> CloudAvailability {
        value.withLock { $0 }
    }
}

/// A sleeper that returns at once and records what it was asked.
final class RecordingSleeper: Sleeper {
    let requests = Recorder<Double>()

    func sleep(seconds: Double) async throws {
        requests.append(seconds)
    }
}
