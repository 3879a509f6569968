// The two keys the dynamics nodes (`compressor`, `deesser`, `gate`, `expander`) share.

extension Field {
    /// A ratio n:1 in `range`, or `"inf"` (also "infinity", "∞") for `.infinity`.
    func ratio(in range: ClosedRange<Double>) throws(PresetError) -> Double {
        if case .string(let text) = value {
            guard ["inf", "infinity", "∞"].contains(text.lowercased()) else {
                throw PresetError(path: path, "\"\(text)\" is not a ratio (allowed \(JSONValue.number(range.lowerBound).brief)…\(JSONValue.number(range.upperBound).brief), or \"inf\")")
            }
            return .infinity
        }
        return try number(in: range, unit: ": 1")
    }

    /// The id of the channel or group a dynamics node keys on (`"key": "voice"`).
    func keyChannel() throws(PresetError) -> String {
        let id = try string()
        guard !id.isEmpty else { throw PresetError(path: path, "the key names a channel or group id (found an empty string)") }
        return id
    }
}
