/// Module MediaEngine.
