// SPDX-License-Identifier: Apache-2.0
internal import CALSA
internal import CALSAShims
internal import Glibc

/// The real ALSA: each method calls the libasound function it is named after.
public struct SystemALSA: ALSACalls {
    /// A private ALSA configuration (`snd_config_load_string`), kept for the PCMs opened from it.
    private final class Configuration: @unchecked Sendable {
        let tree: OpaquePointer?
        let status: Int32
        init(_ text: String) {
            var tree: OpaquePointer? = nil
            status = text.withCString { snd_config_load_string(&tree, $0, 0) }
            self.tree = tree
        }
        deinit { if let tree { snd_config_delete(tree) } }
    }

    private let configuration: Configuration?

    /// The system's ALSA library and its configuration (`/usr/share/alsa/alsa.conf`, …).
    public init() { configuration = nil }

    /// PCMs defined by `configuration` alone (`snd_pcm_open_lconf`), e.g.
    /// `pcm.loop { type pulse handle_underrun true }`: the `pulse` plugin reports underruns
    /// only when asked to.
    public init(configuration text: String) { configuration = Configuration(text) }

    public func open(device: String, direction: AudioDirection) -> (pcm: PCMHandle?, code: Int32) {
        var pcm: OpaquePointer? = nil
        let stream = direction == .capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK
        let code: Int32
        if let configuration {
            guard configuration.status >= 0, let tree = configuration.tree else { return (nil, min(configuration.status, -EINVAL)) }
            code = snd_pcm_open_lconf(&pcm, device, stream, SND_PCM_NONBLOCK, tree)
        } else {
            code = snd_pcm_open(&pcm, device, stream, SND_PCM_NONBLOCK)
        }
        guard code >= 0, let pcm else { return (nil, code) }
        return (PCMHandle(pcm), code)
    }

    public func configure(_ handle: PCMHandle, _ parameters: inout StreamParameters) -> (code: Int32, function: String) {
        var raw = ve_alsa_parameters(
            rate: UInt32(parameters.sampleRate), channels: UInt32(parameters.channelCount),
            periodFrames: UInt(parameters.periodFrames), bufferFrames: UInt(parameters.bufferFrames))
        var failed: UnsafePointer<CChar>? = nil
        let code = ve_alsa_configure(handle.pcm, &raw, &failed)
        guard code >= 0 else {
            let call = failed.map { String(cString: $0) } ?? "snd_pcm_hw_params"
            return (code, String(call.prefix { $0 != "(" }))
        }
        parameters.sampleRate = Int(raw.rate)
        parameters.periodFrames = Int(raw.periodFrames)
        parameters.bufferFrames = Int(raw.bufferFrames)
        return (0, "")
    }

    public func close(_ handle: PCMHandle) { snd_pcm_close(handle.pcm) }
    public func prepare(_ handle: PCMHandle) -> Int32 { snd_pcm_prepare(handle.pcm) }
    public func start(_ handle: PCMHandle) -> Int32 { snd_pcm_start(handle.pcm) }
    public func drop(_ handle: PCMHandle) -> Int32 { snd_pcm_drop(handle.pcm) }
    public func recover(_ handle: PCMHandle, error: Int32) -> Int32 { snd_pcm_recover(handle.pcm, error, 1) }
    public func resume(_ handle: PCMHandle) -> Int32 { snd_pcm_resume(handle.pcm) }

    public func read(_ handle: PCMHandle, into buffer: UnsafeMutablePointer<Int16>, frames: Int) -> Int {
        Int(snd_pcm_readi(handle.pcm, buffer, snd_pcm_uframes_t(frames)))
    }

    public func write(_ handle: PCMHandle, from buffer: UnsafePointer<Int16>, frames: Int) -> Int {
        Int(snd_pcm_writei(handle.pcm, buffer, snd_pcm_uframes_t(frames)))
    }

    public func availableFrames(_ handle: PCMHandle) -> Int { Int(snd_pcm_avail_update(handle.pcm)) }

    public func delay(_ handle: PCMHandle) -> (code: Int32, frames: Int) {
        var frames: snd_pcm_sframes_t = 0
        let code = snd_pcm_delay(handle.pcm, &frames)
        return (code, Int(frames))
    }

    public func timestamp(_ handle: PCMHandle) -> (code: Int32, nanoseconds: Int64) {
        var available: snd_pcm_uframes_t = 0
        var stamp = timespec()
        let code = snd_pcm_htimestamp(handle.pcm, &available, &stamp)
        return (code, Int64(stamp.tv_sec) * 1_000_000_000 + Int64(stamp.tv_nsec))
    }

    public func pollDescriptorCount(_ handle: PCMHandle) -> Int { Int(snd_pcm_poll_descriptors_count(handle.pcm)) }

    public func pollDescriptors(_ handle: PCMHandle, into descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int) -> Int {
        Int(descriptors.withMemoryRebound(to: pollfd.self, capacity: count) { snd_pcm_poll_descriptors(handle.pcm, $0, UInt32(count)) })
    }

    public func pollEvents(_ handle: PCMHandle, descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int) -> (code: Int32, events: PollEvents) {
        var events: UInt16 = 0
        let code = descriptors.withMemoryRebound(to: pollfd.self, capacity: count) {
            snd_pcm_poll_descriptors_revents(handle.pcm, $0, UInt32(count), &events)
        }
        return (code, PollEvents(rawValue: Int16(bitPattern: events)))
    }

    public func poll(_ descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int, timeoutMs: Int32) -> Int32 {
        descriptors.withMemoryRebound(to: pollfd.self, capacity: count) { Glibc.poll($0, nfds_t(count), timeoutMs) }
    }

    public func sleep(microseconds: UInt32) { usleep(microseconds) }

    public func cards() -> [AudioCard] {
        var result: [AudioCard] = []
        var card: Int32 = -1
        while snd_card_next(&card) >= 0, card >= 0 {
            var name: UnsafeMutablePointer<CChar>? = nil
            if snd_card_get_name(card, &name) >= 0, let name {
                result.append(AudioCard(index: Int(card), name: String(cString: name)))
                free(name)
            } else {
                result.append(AudioCard(index: Int(card), name: "card \(card)"))
            }
        }
        return result
    }

    public func devices() -> [AudioDeviceInfo] {
        var result = nameHints()
        for card in cards() {
            for device in cardDevices(card) where !result.contains(where: { $0.name == device.name }) {
                result.append(device)
            }
        }
        return result
    }

    /// PCMs from `snd_device_name_hint(-1, "pcm")`.
    private func nameHints() -> [AudioDeviceInfo] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>? = nil
        guard snd_device_name_hint(-1, "pcm", &hints) >= 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        func take(_ hint: UnsafeMutableRawPointer, _ id: String) -> String? {
            guard let value = snd_device_name_get_hint(hint, id) else { return nil }
            defer { free(value) }
            return String(cString: value)
        }
        var result: [AudioDeviceInfo] = []
        var index = 0
        while let hint = hints[index] {
            index += 1
            guard let name = take(hint, "NAME") else { continue }
            let description = (take(hint, "DESC") ?? name).split(separator: "\n").joined(separator: " — ")
            let directions: StreamDirections
            switch take(hint, "IOID") {
            case "Input": directions = .capture
            case "Output": directions = .playback
            default: directions = .duplex
            }
            var card: Int? = nil
            if let range = name.range(of: "CARD=") {
                let id = name[range.upperBound...].prefix { $0 != "," }
                let number = snd_card_get_index(String(id))
                if number >= 0 { card = Int(number) }
            }
            result.append(AudioDeviceInfo(name: name, description: description, directions: directions, card: card))
        }
        return result
    }

    /// Each PCM device of `card` through its control interface, so USB cards without a
    /// "sysdefault" hint still appear.
    private func cardDevices(_ card: AudioCard) -> [AudioDeviceInfo] {
        var control: OpaquePointer? = nil
        guard snd_ctl_open(&control, "hw:\(card.index)", 0) >= 0, let control else { return [] }
        defer { snd_ctl_close(control) }
        var info: OpaquePointer? = nil
        guard snd_pcm_info_malloc(&info) >= 0, let info else { return [] }
        defer { snd_pcm_info_free(info) }
        var result: [AudioDeviceInfo] = []
        var device: Int32 = -1
        while snd_ctl_pcm_next_device(control, &device) >= 0, device >= 0 {
            var directions: StreamDirections = []
            var deviceName = ""
            for direction in AudioDirection.allCases {
                snd_pcm_info_set_device(info, UInt32(device))
                snd_pcm_info_set_subdevice(info, 0)
                snd_pcm_info_set_stream(info, direction == .capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK)
                if snd_ctl_pcm_info(control, info) >= 0 {
                    directions.insert(direction == .capture ? .capture : .playback)
                    deviceName = String(cString: snd_pcm_info_get_name(info))
                }
            }
            guard !directions.isEmpty else { continue }
            result.append(AudioDeviceInfo(
                name: "hw:\(card.index),\(device)", description: "\(card.name): \(deviceName)",
                directions: directions, card: card.index))
        }
        return result
    }
}

extension PCMHandle {
    /// The handle of libasound's `snd_pcm_t` at `pcm`.
    init(_ pcm: OpaquePointer) { self.init(rawValue: UInt(bitPattern: pcm)) }

    /// libasound's `snd_pcm_t` (only for handles `SystemALSA.open` returned).
    var pcm: OpaquePointer { OpaquePointer(bitPattern: rawValue)! }
}
