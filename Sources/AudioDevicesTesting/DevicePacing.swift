/// How a device without hardware keeps time.
public enum DevicePacing: Sendable, Hashable {
    /// One period per period duration of wall-clock time, like a sound card.
    case realtime
    /// Every period is ready at once: an hour of audio in seconds (tests, batch processing).
    case asFastAsPossible
}
