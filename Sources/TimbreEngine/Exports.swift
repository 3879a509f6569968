// TimbreEngine's API speaks in TimbreDSP's types (filter designs, planar buffers, resampler
// quality), so importing TimbreEngine brings them: `import TimbreEngine` is all an embedder writes.
@_exported import TimbreDSP
