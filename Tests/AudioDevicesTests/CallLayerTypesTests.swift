// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Glibc
import SystemErrors
import Testing

/// The call layer's Swift types stand in for C ones: `SystemALSA` hands `PollDescriptor`
/// buffers to libasound and `poll(2)` as `struct pollfd`, and ALSA's negated errno values
/// become `ALSAError` codes.
@Suite struct CallLayerTypesTests {
    @Test func pollDescriptorIsLaidOutAsPollfd() {
        #expect(MemoryLayout<PollDescriptor>.size == MemoryLayout<pollfd>.size)
        #expect(MemoryLayout<PollDescriptor>.stride == MemoryLayout<pollfd>.stride)
        #expect(MemoryLayout<PollDescriptor>.alignment == MemoryLayout<pollfd>.alignment)
        #expect(MemoryLayout<PollDescriptor>.offset(of: \.fileDescriptor) == MemoryLayout<pollfd>.offset(of: \.fd))
        #expect(MemoryLayout<PollDescriptor>.offset(of: \.events) == MemoryLayout<pollfd>.offset(of: \.events))
        #expect(MemoryLayout<PollDescriptor>.offset(of: \.returnedEvents) == MemoryLayout<pollfd>.offset(of: \.revents))
    }

    @Test func pollEventsAreThePollBits() {
        #expect(PollEvents.input.rawValue == Int16(POLLIN))
        #expect(PollEvents.output.rawValue == Int16(POLLOUT))
        #expect(PollEvents([.error, .hangUp, .invalid]).rawValue == Int16(POLLERR | POLLHUP | POLLNVAL))
    }

    @Test func alsaReturnValuesBecomePositiveErrnoCodes() {
        let error = ALSAError(function: "snd_pcm_writei", status: -EPIPE, device: "default")
        #expect(error.code == .brokenPipe)
        #expect(error.description == "snd_pcm_writei failed on default: Broken pipe (-EPIPE = -32)")
        // ALSA's own codes beyond errno keep their number and ALSA's text.
        let alsaOwn = ALSAError(function: "snd_pcm_open", status: -500_000, device: "hw:9")
        #expect(alsaOwn.code.rawValue == 500_000)
        #expect(alsaOwn.description == "snd_pcm_open failed on hw:9: Sound protocol is not compatible (-500000)")
    }

    /// The device layer's error reads as ALSA's did for ALSA's failures, and carries another
    /// backend's operation and words as they are.
    @Test func deviceErrorsReadAsTheirBackendSaysThem() {
        for status: Int32 in [-EPIPE, -EBUSY, -500_000] {
            let alsa = ALSAError(function: "snd_pcm_open", status: status, device: "hw:1,0")
            let device = AudioDeviceError(alsa)
            #expect(device.description == alsa.description)
            #expect(device.code == alsa.code && device.device == "hw:1,0" && device.operation == "snd_pcm_open")
        }
        let pipewire = AudioDeviceError(operation: "pw_context_connect", code: .connectionRefused, device: "pipewire",
                                        detail: "no PipeWire daemon on this session")
        #expect(pipewire.description == "pw_context_connect failed on pipewire: no PipeWire daemon on this session (-ECONNREFUSED = -111)")
        #expect(AudioDeviceError(operation: "open", code: .noSuchDevice, device: "x").reason == Errno.noSuchDevice.message)
    }
}
