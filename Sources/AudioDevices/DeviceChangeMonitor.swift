// SPDX-License-Identifier: Apache-2.0
import Locking
import Synchronization

/// Watches the card list and reports cards appearing and disappearing.
///
/// ALSA has no hot-plug callback without udev, so the monitor compares the card list
/// (`ALSACalls.cards()`) with the one it saw last: on demand with `check()`, or every
/// `interval` on the stream `changes(every:)` returns.
public final class DeviceChangeMonitor<Calls: ALSACalls>: Sendable {
    private let calls: Calls
    private let known: Locked<[AudioCard]>

    /// A monitor whose baseline is the cards present now.
    public init(calls: Calls) {
        self.calls = calls
        known = Locked(calls.cards())
    }

    /// The cards seen at the last check.
    public var cards: [AudioCard] { known.withLock { $0 } }

    /// Compares the cards present now with the last check; returns what changed (removals
    /// first, then additions, by card index).
    public func check() -> [DeviceChange] {
        let now = calls.cards()
        return known.withLock { known in
            let removed = known.filter { !now.contains($0) }.map(DeviceChange.cardRemoved)
            let added = now.filter { !known.contains($0) }.map(DeviceChange.cardAdded)
            known = now
            return removed + added
        }
    }

    /// Changes found by checking every `interval`, until the consumer stops listening.
    public func changes(every interval: Duration = .seconds(1)) -> AsyncStream<DeviceChange> {
        AsyncStream { continuation in
            let task = Task {
                while !Task.isCancelled {
                    for change in self.check() { continuation.yield(change) }
                    try? await Task.sleep(for: interval)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension DeviceChangeMonitor where Calls == SystemALSA {
    /// A monitor of the system's cards.
    public convenience init() { self.init(calls: SystemALSA()) }
}
