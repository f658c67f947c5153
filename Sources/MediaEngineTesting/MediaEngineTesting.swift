/// # MediaEngineTesting
///
/// Test doubles for the call media, never linked into what a softphone ships:
/// `ToneTranslationEngine`, a translator that speaks a tone per word.
enum MediaEngineTestingModule {}
