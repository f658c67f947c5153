// SPDX-License-Identifier: Apache-2.0
import Glibc
import SRTP
import Testing

/// Known answers from `vectors/srtp/` (libsrtp self-test and RFC 7714), through the public API.
@Suite struct SRTPKnownAnswerTests {
    @Test(arguments: ["libsrtp_aes_cm_128_hmac_sha1_80.txt", "libsrtp_aead_aes_128_gcm.txt"])
    func rtpKnownAnswer(file: String) throws {
        let vector = try SRTPVector(file)
        let keys = try vector.keyingMaterial()
        let plaintext = try #require(vector.bytes("rtp_plaintext"))
        let expected = try #require(vector.bytes("rtp_protected"))

        let sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        let buffer = PacketBuffer()
        buffer.load(plaintext)
        buffer.length = try sender.protect(buffer.raw, length: buffer.length)
        #expect(buffer.bytes == expected)
        #expect(buffer.length == plaintext.count + keys.profile.rtpAuthTagLength)

        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        buffer.load(expected)
        buffer.length = try receiver.unprotect(buffer.raw, length: buffer.length)
        #expect(buffer.bytes == plaintext)
    }

    /// libsrtp numbers SRTCP packets per stream from 1: the first `protectRTCP` of a new
    /// session carries index 1, the index the libsrtp self-test answer uses.
    @Test func rtcpKnownAnswerWithIndexOne() throws {
        let vector = try SRTPVector("libsrtp_aes_cm_128_hmac_sha1_80.txt")
        let keys = try vector.keyingMaterial()
        let plaintext = try #require(vector.bytes("rtcp_plaintext"))
        let expected = try #require(vector.bytes("rtcp_protected"))

        let sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        let buffer = PacketBuffer()
        buffer.load(plaintext)
        buffer.length = try sender.protectRTCP(buffer.raw, length: buffer.length)
        #expect(buffer.bytes == expected)
        // E bit set, index 1, right after the encrypted payload.
        #expect(Array(buffer.bytes[plaintext.count..<plaintext.count + 4]) == [0x80, 0, 0, 1])

        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        buffer.load(expected)
        buffer.length = try receiver.unprotectRTCP(buffer.raw, length: buffer.length)
        #expect(buffer.bytes == plaintext)

        // The second packet gets index 2.
        buffer.load(plaintext)
        buffer.length = try sender.protectRTCP(buffer.raw, length: buffer.length)
        #expect(Array(buffer.bytes[plaintext.count..<plaintext.count + 4]) == [0x80, 0, 0, 2])
    }

    /// RFC 7714 §16.1.1 gives the *session* key and salt (after key derivation), which
    /// libsrtp's session API cannot take. So this test drives libsrtp's own AES-GCM cipher —
    /// the code `SRTPSession` uses for `aeadAES128GCM`, on the NSS backend here — through its
    /// exported cipher functions (looked up with `dlsym`, their header is not in the module
    /// map), forming the IV as RFC 7714 §8.1 says. It then checks that the session API with
    /// the same bytes as *master* key/salt does not produce that answer (derivation happens).
    @Test func rfc7714AEADAES128GCMKnownAnswer() throws {
        let vector = try SRTPVector("rfc7714_16_1_1.txt")
        let key = try #require(vector.bytes("key"))
        let salt = try #require(vector.bytes("salt"))
        let plaintext = try #require(vector.bytes("rtp_plaintext"))
        let expected = try #require(vector.bytes("rtp_protected"))

        // Creating a session runs srtp_init (the crypto kernel must be up).
        let session = try SRTPSession(direction: .outbound, keyingMaterial: try vector.keyingMaterial())
        let cipher = try #require(LibSRTPCipher(aesGCM128Key: key))

        // IV = salt XOR (00 00 || SSRC || ROC || SEQ), ROC 0.
        var iv = [UInt8](repeating: 0, count: 12)
        iv[2..<6] = plaintext[8..<12]
        iv[10..<12] = plaintext[2..<4]
        for index in iv.indices { iv[index] ^= salt[index] }

        let header = Array(plaintext[..<12])
        var payload = Array(plaintext[12...])
        let tag = try #require(cipher.encrypt(&payload, iv: iv, aad: header))
        #expect(header + payload + tag == expected)

        let buffer = PacketBuffer()
        buffer.load(plaintext)
        buffer.length = try session.protect(buffer.raw, length: buffer.length)
        #expect(buffer.length == expected.count)
        #expect(buffer.bytes != expected)
    }
}

/// libsrtp's internal AES-GCM-128 cipher object, reached through `dlsym` (test only).
private final class LibSRTPCipher {
    private typealias Alloc = @convention(c) (UInt32, UnsafeMutablePointer<OpaquePointer?>, Int32, Int32) -> UInt32
    private typealias Init = @convention(c) (OpaquePointer, UnsafePointer<UInt8>) -> UInt32
    private typealias SetIV = @convention(c) (OpaquePointer, UnsafeMutablePointer<UInt8>, Int32) -> UInt32
    private typealias SetAAD = @convention(c) (OpaquePointer, UnsafePointer<UInt8>, UInt32) -> UInt32
    private typealias Process = @convention(c) (OpaquePointer, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt32>) -> UInt32
    private typealias Dealloc = @convention(c) (OpaquePointer) -> UInt32

    private let cipher: OpaquePointer

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        guard let address = dlsym(nil, name) else { return nil }  // RTLD_DEFAULT
        return unsafeBitCast(address, to: type)
    }

    /// `SRTP_AES_GCM_128` (6), key length with salt 28, 16-byte tag; nil if unavailable.
    init?(aesGCM128Key key: [UInt8]) {
        guard let alloc = Self.symbol("srtp_crypto_kernel_alloc_cipher", as: Alloc.self),
              let initialize = Self.symbol("srtp_cipher_init", as: Init.self) else { return nil }
        var created: OpaquePointer? = nil
        guard alloc(6, &created, 28, 16) == 0, let created else { return nil }
        cipher = created
        guard initialize(cipher, key) == 0 else { return nil }
    }

    deinit {
        _ = Self.symbol("srtp_cipher_dealloc", as: Dealloc.self)?(cipher)
    }

    /// Encrypts `payload` in place and returns the 16-byte tag.
    func encrypt(_ payload: inout [UInt8], iv: [UInt8], aad: [UInt8]) -> [UInt8]? {
        guard let setIV = Self.symbol("srtp_cipher_set_iv", as: SetIV.self),
              let setAAD = Self.symbol("srtp_cipher_set_aad", as: SetAAD.self),
              let encrypt = Self.symbol("srtp_cipher_encrypt", as: Process.self),
              let getTag = Self.symbol("srtp_cipher_get_tag", as: Process.self) else { return nil }
        var ivBytes = iv + [UInt8](repeating: 0, count: 4)  // libsrtp passes a 16-byte v128_t
        guard setIV(cipher, &ivBytes, 0 /* srtp_direction_encrypt */) == 0,
              setAAD(cipher, aad, UInt32(aad.count)) == 0 else { return nil }
        // The NSS GCM encrypt writes ciphertext || tag into the buffer: give it the tag's room.
        var work = payload + [UInt8](repeating: 0, count: 16)
        var length = UInt32(payload.count)
        guard encrypt(cipher, &work, &length) == 0, length == UInt32(payload.count) else { return nil }
        payload = Array(work[..<payload.count])
        var tag = [UInt8](repeating: 0, count: 16)
        var tagLength: UInt32 = 16
        guard getTag(cipher, &tag, &tagLength) == 0, tagLength == 16 else { return nil }
        return tag
    }
}
