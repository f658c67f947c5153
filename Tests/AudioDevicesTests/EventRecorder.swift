// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation
import Locking
import Synchronization

/// Collects a stream's events from its handler, for assertions.
final class EventRecorder: Sendable {
    private let events = Locked<[AudioDeviceEvent]>([])

    var handler: @Sendable (AudioDeviceEvent) -> Void { { event in self.events.withLock { $0.append(event) } } }

    var all: [AudioDeviceEvent] { events.withLock { $0 } }

    /// Waits (polling every millisecond, at most `timeoutSeconds`) for an event matching `match`.
    func wait(timeoutSeconds: Double, for match: (AudioDeviceEvent) -> Bool) -> AudioDeviceEvent? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        repeat {
            if let event = all.first(where: match) { return event }
            usleep(1_000)
        } while Date() < deadline
        return all.first(where: match)
    }
}
