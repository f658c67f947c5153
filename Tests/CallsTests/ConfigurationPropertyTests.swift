// SPDX-License-Identifier: Apache-2.0
import AudioSession
@testable import Calls
import Foundation
import Testing

/// Row 8 of issue 23: a configuration set through its properties, as iOS code sets
/// CXProviderConfiguration's, is checked when the provider is made: a typed error naming the
/// property, never a provider on which every call is busy.
@Suite struct ConfigurationPropertyTests {
    static func providerError(_ configuration: ProviderConfiguration) -> ProviderConfigurationError? {
        do {
            _ = try CallProvider(configuration: configuration, audio: CallAudioSystem(center: AudioSessionCenter()), clock: ManualCallClock())
            return nil
        } catch {
            guard case let .configuration(error) = error else { Issue.record("unexpected \(error)"); return nil }
            return error
        }
    }

    @Test func everyPropertyIsCheckedWhenTheProviderIsMade() throws {
        var groups = ProviderConfiguration()
        groups.maximumCallGroups = 0
        #expect(Self.providerError(groups) == .invalidLimit(name: "maximumCallGroups", value: 0))

        var perGroup = ProviderConfiguration()
        perGroup.maximumCallsPerCallGroup = -3
        #expect(Self.providerError(perGroup) == .invalidLimit(name: "maximumCallsPerCallGroup", value: -3))

        var answer = ProviderConfiguration()
        answer.timeouts.answer = -1
        #expect(Self.providerError(answer) == .invalidTimeout(name: "timeouts.answer", value: -1))

        var ring = ProviderConfiguration()
        ring.timeouts.unanswered = .infinity
        #expect(Self.providerError(ring) == .invalidTimeout(name: "timeouts.unanswered", value: .infinity))

        var handles = ProviderConfiguration()
        handles.supportedHandleTypes = []
        #expect(Self.providerError(handles) == .noSupportedHandleTypes)
        #expect(throws: ProviderConfigurationError.noSupportedHandleTypes) { try handles.validate() }

        var fine = ProviderConfiguration()
        fine.maximumCallGroups = 1
        fine.timeouts.answer = 20
        fine.supportedHandleTypes = [.phoneNumber]
        #expect(Self.providerError(fine) == nil)
    }
}
