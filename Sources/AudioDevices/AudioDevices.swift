/// Module AudioDevices.
