// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Foundation
import Testing

/// Device enumeration and card hot-plug, with cards injected through `ScriptedALSA`.
@Suite struct DeviceListTests {
    @Test func monitorReportsCardsAppearingAndDisappearing() {
        let alsa = ScriptedALSA()
        let onboard = AudioCard(index: 0, name: "HDA Intel PCH")
        let headset = AudioCard(index: 1, name: "USB Audio Device")
        alsa.setCards([onboard])
        let monitor = DeviceChangeMonitor(calls: alsa)
        #expect(monitor.check().isEmpty)
        alsa.setCards([onboard, headset])
        #expect(monitor.check() == [.cardAdded(headset)])
        #expect(monitor.check().isEmpty)
        alsa.setCards([onboard])
        #expect(monitor.check() == [.cardRemoved(headset)])
        #expect(monitor.cards == [onboard])
    }

    @Test func changeStreamDeliversInjectedHotPlug() async {
        let alsa = ScriptedALSA()
        let monitor = DeviceChangeMonitor(calls: alsa)
        let changes = monitor.changes(every: .milliseconds(2))
        let headset = AudioCard(index: 2, name: "USB Headset")
        alsa.setCards([headset])
        var iterator = changes.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first == .cardAdded(headset))
    }

    @Test func deviceListComesFromTheCallLayer() {
        let alsa = ScriptedALSA()
        let usb = AudioDeviceInfo(name: "hw:1,0", description: "USB Audio Device: USB Audio", directions: .duplex, card: 1)
        alsa.setDevices([usb])
        #expect(AudioDeviceList.current(calls: alsa) == [usb])
        #expect(usb.directions.includes(.capture) && usb.directions.includes(.playback))
    }

    @Test func systemListIncludesALSAsBuiltInNullPCM() {
        let devices = AudioDeviceList.current()
        let null = devices.first { $0.name == "null" }
        #expect(null != nil, "alsa.conf always defines pcm.null; got \(devices.map(\.name))")
        #expect(null?.card == nil)
    }
}
