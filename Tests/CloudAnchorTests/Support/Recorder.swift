import Synchronization
import XCTest
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

/// The helpers other tests stand on: check they record what they claim and never wait.
final class RecorderSelfTests: XCTestCase {
    func testTheRecordingSleeperRecordsWithoutWaiting() async throws {
        let sleeper = RecordingSleeper()
        let clock = ContinuousClock()
        let elapsed = try await clock.measure { try await sleeper.sleep(seconds: 3_600) }
        XCTAssertEqual(sleeper.requests.all, [3_600])
        XCTAssertLessThan(elapsed, .seconds(60), "a test sleeper must never really sleep")
    }

    func testSwitchableAvailabilityReportsTheLastValueSet() async {
        let source = SwitchableAvailability()
        let initial = await source.availability()
        XCTAssertEqual(initial, .available)
        source.set(.needsConsent)
        let changed = await source.availability()
        XCTAssertEqual(changed, .needsConsent)
    }
}
