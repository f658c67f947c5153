// SPDX-License-Identifier: Apache-2.0
import PushRegistry
import Testing

/// The registry's limits stay usable however they are set, in the init or through the
/// properties as iOS-style code sets them: no timer armed with NaN, infinity or a negative delay.
@Suite struct PushRegistryConfigurationTests {
    @Test func limitsSetThroughThePropertiesAreBounded() {
        var configuration = PushRegistryConfiguration()
        #expect(configuration.completionTimeout == 7 && configuration.maximumViolations == 3)
        configuration.completionTimeout = .nan
        #expect(configuration.completionTimeout == 7)
        configuration.completionTimeout = .infinity
        #expect(configuration.completionTimeout == PushRegistryConfiguration.maximumCompletionTimeout)
        configuration.completionTimeout = -1
        #expect(configuration.completionTimeout == 0)
        configuration.completionTimeout = 2.5
        #expect(configuration.completionTimeout == 2.5)
        configuration.maximumViolations = 0
        #expect(configuration.maximumViolations == 1)
        #expect(PushRegistryConfiguration(maximumViolations: -5, completionTimeout: 1e300).completionTimeout == 3_600)
    }
}
