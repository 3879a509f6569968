// Engine-level test helpers build on the signal helpers; a test importing this module has both.
@_exported import TimbreTestSignals
