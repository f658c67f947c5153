// SPDX-License-Identifier: Apache-2.0
/// The elements of an RFC 8285 header extension, iterated in place without allocating.
public struct RTPHeaderExtensionElements: Sequence {
    let data: UnsafeRawBufferPointer
    let twoByte: Bool

    /// Iterates the elements in order.
    public struct Iterator: IteratorProtocol {
        let data: UnsafeRawBufferPointer
        let twoByte: Bool
        var offset = 0

        /// The next element, or `nil` at the end of the data or at a one-byte id 15.
        public mutating func next() -> RTPHeaderExtensionElement? {
            while offset < data.count {
                switch RTPHeaderExtensionElements.step(data: data, offset: offset, twoByte: twoByte) {
                case .padding(let next):
                    offset = next
                case .element(let id, let range, let next):
                    offset = next
                    return RTPHeaderExtensionElement(id: id, data: UnsafeRawBufferPointer(rebasing: data[range]))
                case .stop, .malformed:
                    offset = data.count
                }
            }
            return nil
        }
    }

    /// An iterator over the elements.
    public func makeIterator() -> Iterator { Iterator(data: data, twoByte: twoByte) }

    enum Step {
        case padding(next: Int)
        case element(id: UInt8, range: Range<Int>, next: Int)
        case stop
        case malformed
    }

    /// Decodes the element starting at `offset` (which is below `data.count`).
    static func step(data: UnsafeRawBufferPointer, offset: Int, twoByte: Bool) -> Step {
        let first = data[offset]
        if twoByte {
            if first == 0 { return .padding(next: offset + 1) }
            guard offset + 2 <= data.count else { return .malformed }
            let end = offset + 2 + Int(data[offset + 1])
            guard end <= data.count else { return .malformed }
            return .element(id: first, range: (offset + 2)..<end, next: end)
        } else {
            let id = first >> 4
            if id == 0 { return .padding(next: offset + 1) }
            if id == 15 { return .stop }
            let end = offset + 1 + Int(first & 0x0F) + 1
            guard end <= data.count else { return .malformed }
            return .element(id: id, range: (offset + 1)..<end, next: end)
        }
    }
}
