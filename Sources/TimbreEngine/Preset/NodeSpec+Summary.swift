extension NodeSpec {
    /// One line a user recognises: `harsh: peak 3000 Hz -2.0 dB Q 1.4 (matched)`.
    public var summary: String {
        (id.map { "\($0): " } ?? "") + kind.definition.summary(ofAny: kind.parameters) + (bypass ? " [bypassed]" : "")
    }
}
