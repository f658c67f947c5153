// SPDX-License-Identifier: Apache-2.0
import AudioDevices

/// `voicecall devices`: the ALSA PCMs and sound cards this machine offers.
enum DevicesCommand {
    static let usage = """
        usage: voicecall devices
        Lists ALSA PCMs (name hints and each card's devices) with their directions and cards.
        """

    static func run(_ arguments: inout CommandArguments) throws {
        try arguments.finish()
        let devices = AudioDeviceList.current()
        if devices.isEmpty { print("no ALSA PCMs found") }
        for device in devices {
            var directions: [String] = []
            if device.directions.includes(.capture) { directions.append("capture") }
            if device.directions.includes(.playback) { directions.append("playback") }
            let card = device.card.map { "card \($0)" } ?? "virtual"
            print("\(device.name)\t[\(directions.joined(separator: "+"))]\t\(card)\t\(device.description)")
        }
        let cards = DeviceChangeMonitor().cards
        print(cards.isEmpty ? "no sound cards" : cards.map(\.description).joined(separator: "\n"))
    }
}
