// SPDX-License-Identifier: Apache-2.0
import SRTP

/// Each side's sending key, generated now, and what the other side reads back from the SDES
/// `a=crypto` line it was sent.
struct DemoKeys {
    let alice: SRTPKeyingMaterial, bob: SRTPKeyingMaterial
    let offer: String, answer: String
    let fromOffer: SRTPKeyingMaterial, fromAnswer: SRTPKeyingMaterial

    init(profile: SRTPProfile) throws(DemoFlowError) {
        alice = SRTPKeyingMaterial.random(profile: profile)
        bob = SRTPKeyingMaterial.random(profile: profile)
        do {
            offer = try SDESCryptoAttribute(tag: 1, keyingMaterial: alice).attributeLine
            answer = try SDESCryptoAttribute(tag: 1, keyingMaterial: bob).attributeLine
            fromOffer = try SDESCryptoAttribute(parsing: offer).keyingMaterial
            fromAnswer = try SDESCryptoAttribute(parsing: answer).keyingMaterial
        } catch {
            throw .media("SDES: \(error)")
        }
    }
}
