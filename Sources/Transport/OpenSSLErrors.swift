// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL

/// The calling thread's OpenSSL error queue (OpenSSL keeps one per thread).
enum OpenSSLErrors {
    /// Empties the queue, so what a call leaves is its own.
    static func clear() { ERR_clear_error() }

    /// Every error queued since the last `clear`, oldest first, as OpenSSL words them
    /// ("error:0A000086:SSL routines::certificate verify failed"), and empties the queue;
    /// `fallback` when nothing was queued.
    static func drain(fallback: String) -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            reasons.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return reasons.isEmpty ? fallback : reasons.joined(separator: "; ")
    }
}
