// SPDX-License-Identifier: Apache-2.0
import AudioDevices

/// Ports from the ALSA device list and the route a session's category and options choose
/// among them.
///
/// Mapping (our choice; ALSA says nothing about the kind of a device, so names decide):
/// BlueALSA PCMs (`bluealsa:DEV=…,PROFILE=sco|a2dp`) are Bluetooth HFP (both ways) or A2DP
/// (output); `hdmi:` PCMs or descriptions naming HDMI are HDMI outputs; a card describing
/// itself as USB is USB audio, as a headset a wired headset; other cards and the system's
/// `default`, `sysdefault` and `pulse` PCMs are built in. Plug-in PCMs with no device of their
/// own (null, dmix, dsnoop, surround…) are not ports. One port per card and kind, the PCM
/// that converts formats preferred (sysdefault, plughw, then hw).
///
/// Choice: the preferred input when available; otherwise Bluetooth HFP, USB, headset, built
/// in, in that order (iOS takes the newest device; ALSA's list has no age). Output: the
/// speaker when overridden; the device of the chosen input when that is not built in; else
/// Bluetooth HFP, A2DP, USB, headphones, HDMI, built in. HFP beats A2DP when both are allowed
/// and the category records, as on iOS. Bluetooth ports are offered only when the options in
/// effect allow them.
public enum AudioSessionRoutes {
    typealias Port = AudioSession.PortDescription

    /// Every input and output port `devices` offers, before any option filters them.
    public static func ports(of devices: [AudioDeviceInfo]) -> (inputs: [AudioSession.PortDescription], outputs: [AudioSession.PortDescription]) {
        var inputs: [(rank: Int, key: String, port: Port)] = []
        var outputs: [(rank: Int, key: String, port: Port)] = []
        func add(_ list: inout [(rank: Int, key: String, port: Port)], _ type: AudioSession.PortType, _ device: AudioDeviceInfo, rank: Int, key: String) {
            let name = String(device.description.split(separator: " — ").first ?? Substring(device.name))
            let port = Port(portType: type, portName: name, uid: device.name)
            if let index = list.firstIndex(where: { $0.key == key && $0.port.portType == type }) {
                if rank < list[index].rank { list[index] = (rank, key, port) }
            } else {
                list.append((rank, key, port))
            }
        }
        for device in devices {
            let name = device.name.lowercased()
            let text = device.description.lowercased()
            let plays = device.directions.contains(.playback), records = device.directions.contains(.capture)
            if name.hasPrefix("bluealsa") {
                let key = bluetoothAddress(name) ?? name
                if name.contains("profile=sco") {
                    if records { add(&inputs, .bluetoothHFP, device, rank: 0, key: key) }
                    if plays { add(&outputs, .bluetoothHFP, device, rank: 0, key: key) }
                } else if plays {
                    add(&outputs, .bluetoothA2DP, device, rank: 0, key: key)
                }
                continue
            }
            let prefix = name.split(separator: ":").first.map(String.init) ?? name
            let rank: Int
            switch prefix {
            case "default", "sysdefault": rank = 0
            case "pulse": rank = 1
            case "plughw": rank = 2
            case "hw": rank = 3
            case "front": rank = 4
            case "hdmi": rank = 0
            default: continue  // plug-ins without a device of their own
            }
            let key = device.card.map { "card\($0)" } ?? "system"
            if prefix == "hdmi" || text.contains("hdmi") {
                if plays { add(&outputs, .hdmi, device, rank: rank, key: key + name) }
            } else if text.contains("usb") {
                if records { add(&inputs, .usbAudio, device, rank: rank, key: key) }
                if plays { add(&outputs, .usbAudio, device, rank: rank, key: key) }
            } else if text.contains("headset") || text.contains("headphone") {
                if records { add(&inputs, .headsetMic, device, rank: rank, key: key) }
                if plays { add(&outputs, .headphones, device, rank: rank, key: key) }
            } else {
                if records { add(&inputs, .builtInMic, device, rank: rank, key: key) }
                if plays { add(&outputs, .builtInSpeaker, device, rank: rank, key: key) }
            }
        }
        return (inputs.map(\.port), outputs.map(\.port))
    }

    /// `DEV=xx:xx:…` of a BlueALSA PCM name.
    private static func bluetoothAddress(_ name: String) -> String? {
        guard let range = name.range(of: "dev=") else { return nil }
        return String(name[range.upperBound...].prefix { $0 != "," })
    }

    /// Whether `options` (in effect) let a session use a port of `type`.
    static func allows(_ type: AudioSession.PortType, options: AudioSession.CategoryOptions) -> Bool {
        switch type {
        case .bluetoothHFP: options.contains(.allowBluetoothHFP)
        case .bluetoothA2DP: options.contains(.allowBluetoothA2DP)
        default: true
        }
    }

    /// The inputs a session of `category` with `options` may choose among.
    static func availableInputs(_ devices: [AudioDeviceInfo], category: AudioSession.Category,
                                options: AudioSession.CategoryOptions) -> [AudioSession.PortDescription] {
        guard category.records else { return [] }
        return ports(of: devices).inputs.filter { allows($0.portType, options: options) }
    }

    private static let inputOrder: [AudioSession.PortType] = [.bluetoothHFP, .usbAudio, .headsetMic, .builtInMic]
    private static let outputOrder: [AudioSession.PortType] = [.bluetoothHFP, .bluetoothA2DP, .usbAudio, .headphones, .hdmi, .builtInSpeaker]

    /// The route of a session of `category` with `options`, `preferredInput` and `override`.
    static func route(_ devices: [AudioDeviceInfo], category: AudioSession.Category, options: AudioSession.CategoryOptions,
                      preferredInput: AudioSession.PortDescription?, override: AudioSession.PortOverride) -> AudioSession.RouteDescription {
        let all = ports(of: devices)
        var inputs = category.records ? all.inputs.filter { allows($0.portType, options: options) } : []
        var outputs = category.plays ? all.outputs.filter { allows($0.portType, options: options) } : []
        // HFP wins over A2DP for a session that records with HFP allowed.
        if category.records && options.contains(.allowBluetoothHFP) && outputs.contains(where: { $0.portType == .bluetoothHFP }) {
            outputs.removeAll { $0.portType == .bluetoothA2DP }
        }
        func first(_ ports: [Port], _ order: [AudioSession.PortType]) -> Port? {
            for type in order { if let port = ports.first(where: { $0.portType == type }) { return port } }
            return nil
        }
        let input: Port? = if let preferredInput, inputs.contains(preferredInput) { preferredInput } else { first(inputs, inputOrder) }
        var output: Port?
        if override == .speaker, let speaker = outputs.first(where: { $0.portType == .builtInSpeaker }) {
            output = speaker
        } else if let input, input.portType != .builtInMic {
            output = outputs.first { $0.uid == input.uid } ?? outputs.first { $0.portType == input.portType || ($0.portType == .headphones && input.portType == .headsetMic) }
        }
        if output == nil { output = first(outputs, outputOrder) }
        inputs = input.map { [$0] } ?? []
        outputs = output.map { [$0] } ?? []
        return AudioSession.RouteDescription(inputs: inputs, outputs: outputs)
    }
}
