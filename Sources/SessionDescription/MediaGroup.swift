// SPDX-License-Identifier: Apache-2.0
/// A session-level `a=group:<semantics> <mid>…` attribute (RFC 5888 §5): media sections, named
/// by their `a=mid`, that belong together. `BUNDLE` (RFC 8843) has them share one transport.
public struct MediaGroup: Sendable, Equatable {
    /// The semantics as written: `BUNDLE`, `LS`, `FID`, ….
    public var semantics: String
    /// The `a=mid` values of the grouped sections, in the order given (for `BUNDLE` the first
    /// is the one whose transport the others share).
    public var identificationTags: [String]

    /// A group of `identificationTags` under `semantics`.
    public init(semantics: String, identificationTags: [String]) {
        self.semantics = semantics
        self.identificationTags = identificationTags
    }

    /// A `BUNDLE` group of these sections.
    public static func bundle(_ identificationTags: [String]) -> MediaGroup {
        MediaGroup(semantics: bundleSemantics, identificationTags: identificationTags)
    }

    /// Whether this is a `BUNDLE` group (RFC 8843).
    public var isBundle: Bool { semantics == Self.bundleSemantics }

    static let bundleSemantics = "BUNDLE"

    /// The attribute value, `BUNDLE 0 1`.
    var attributeValue: String { ([semantics] + identificationTags).joined(separator: " ") }
}
