/// Module Opus.
