// SPDX-License-Identifier: Apache-2.0
/// The contributing-source identifiers of an RTP packet: at most 15, stored inline (no heap
/// allocation), usable as a random-access collection.
public struct RTPCSRCList: RandomAccessCollection, Sendable, Hashable, ExpressibleByArrayLiteral {
    /// The most CSRCs a packet can carry (the 4-bit CC field).
    public static let capacity = 15

    private var storage = InlineArray<15, UInt32>(repeating: 0)
    /// Number of identifiers in the list.
    public private(set) var count = 0

    /// An empty list.
    public init() {}

    /// A list of the given identifiers.
    /// - Throws: ``RTPBuildError/tooManyCSRCs`` if there are more than 15.
    public init(_ identifiers: some Sequence<UInt32>) throws(RTPBuildError) {
        for identifier in identifiers { try append(identifier) }
    }

    /// A list from a literal; more than 15 elements is a programming error and traps.
    public init(arrayLiteral elements: UInt32...) {
        precondition(elements.count <= Self.capacity, "an RTP packet carries at most 15 CSRCs")
        for element in elements { storage[count] = element; count += 1 }
    }

    /// Appends `identifier`.
    /// - Throws: ``RTPBuildError/tooManyCSRCs`` if the list already holds 15.
    public mutating func append(_ identifier: UInt32) throws(RTPBuildError) {
        guard count < Self.capacity else { throw .tooManyCSRCs }
        storage[count] = identifier
        count += 1
    }

    /// Removes every identifier.
    public mutating func removeAll() { count = 0 }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// Equal to ``count``.
    public var endIndex: Int { count }

    /// The identifier at `position` (which must be below ``count``).
    public subscript(position: Int) -> UInt32 {
        get {
            precondition(position >= 0 && position < count, "CSRC index out of range")
            return storage[position]
        }
        set {
            precondition(position >= 0 && position < count, "CSRC index out of range")
            storage[position] = newValue
        }
    }

    /// Iterates the identifiers in order (a concrete iterator, so iteration stays free of
    /// allocation even in unoptimised builds).
    public struct Iterator: IteratorProtocol, Sendable {
        private let list: RTPCSRCList
        private var position = 0

        init(_ list: RTPCSRCList) { self.list = list }

        /// The next identifier, or `nil` at the end.
        public mutating func next() -> UInt32? {
            guard position < list.count else { return nil }
            defer { position += 1 }
            return list.storage[position]
        }
    }

    /// An iterator over the identifiers.
    public func makeIterator() -> Iterator { Iterator(self) }

    /// Lists are equal when they hold the same identifiers in the same order.
    public static func == (lhs: RTPCSRCList, rhs: RTPCSRCList) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in 0..<lhs.count where lhs.storage[index] != rhs.storage[index] { return false }
        return true
    }

    /// Hashes the identifiers in order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for index in 0..<count { hasher.combine(storage[index]) }
    }
}
