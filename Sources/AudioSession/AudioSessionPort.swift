// SPDX-License-Identifier: Apache-2.0
extension AudioSession {
    /// The kind of a route's port, with AVAudioSession.Port's raw values, mapped from the ALSA
    /// device list (`AudioSessionRoutes`).
    public enum PortType: String, Sendable, CaseIterable, CustomStringConvertible {
        /// The built-in microphone (a card's capture PCM, or the system's default PCM).
        case builtInMic = "MicrophoneBuiltIn"
        /// The built-in loudspeaker (a card's playback PCM, or the system's default PCM).
        case builtInSpeaker = "Speaker"
        /// A headset's microphone (a card that calls itself a headset).
        case headsetMic = "MicrophoneWired"
        /// Headphones or a headset's earpieces.
        case headphones = "Headphones"
        /// A USB audio device, either way.
        case usbAudio = "USBAudio"
        /// An HDMI output.
        case hdmi = "HDMI"
        /// A Bluetooth hands-free device (BlueALSA's SCO PCM), either way: only with allowBluetoothHFP.
        case bluetoothHFP = "BluetoothHFP"
        /// A Bluetooth A2DP output (BlueALSA's A2DP PCM): only where allowBluetoothA2DP is in effect.
        case bluetoothA2DP = "BluetoothA2DPOutput"

        public var description: String { rawValue }

        /// Whether a port of this type is a Bluetooth one.
        public var isBluetooth: Bool { self == .bluetoothHFP || self == .bluetoothA2DP }
    }

    /// One input or output of a route (AVAudioSessionPortDescription): its type, a name for
    /// people, and `uid`, the ALSA PCM it is reached through.
    public struct PortDescription: Sendable, Hashable, CustomStringConvertible {
        /// What kind of port it is.
        public var portType: PortType
        /// A name to show (the device's description).
        public var portName: String
        /// The ALSA PCM name, unique among ports of one direction.
        public var uid: String

        /// A port.
        public init(portType: PortType, portName: String, uid: String) {
            self.portType = portType
            self.portName = portName
            self.uid = uid
        }

        public var description: String { "\(portType) \(portName) (\(uid))" }
    }

    /// The inputs and outputs a session's audio takes (AVAudioSessionRouteDescription): empty
    /// inputs when the category does not record, empty outputs when it does not play.
    public struct RouteDescription: Sendable, Hashable, CustomStringConvertible {
        /// Where audio comes from.
        public var inputs: [PortDescription]
        /// Where audio goes.
        public var outputs: [PortDescription]

        /// A route.
        public init(inputs: [PortDescription] = [], outputs: [PortDescription] = []) {
            self.inputs = inputs
            self.outputs = outputs
        }

        public var description: String {
            "in: [\(inputs.map(\.description).joined(separator: ", "))] out: [\(outputs.map(\.description).joined(separator: ", "))]"
        }
    }

    /// `overrideOutputAudioPort`'s choices, with AVAudioSession.PortOverride's raw values.
    public enum PortOverride: UInt, Sendable {
        /// The route the category and options choose.
        case none = 0
        /// The built-in loudspeaker, until the next route change ('spkr').
        case speaker = 0x7370_6B72
    }
}
