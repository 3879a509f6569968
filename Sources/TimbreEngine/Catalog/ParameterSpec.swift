/// One numeric parameter of a node kind, as data: its JSON key, unit, range, default, scale and
/// whether a live `set` moves it inside the running kernel. Each kind lists its own
/// (``NodeDefinition/parameterSpecs``); from them come the numbers in the JSON Schema
/// (`make schema` writes them, a test fails when the file differs), the range and curve
/// `learn` gives a MIDI controller, `timbre presets parameters`, and so the web page's
/// controls, which it builds from the schema.
package struct ParameterSpec: Sendable, Equatable {
    /// How a control moves across the range.
    package enum Scale: String, Sendable {
        /// Evenly in the value (pan, milliseconds, percent).
        case linear
        /// Evenly in the value's logarithm (frequencies, Q, ratios).
        case logarithmic
        /// Evenly in decibels (the value is already in dB).
        case decibel
    }

    /// The JSON key in the node (`"gain"`), or in each element of an array (`"bands[].gain"`).
    package let key: String
    package let unit: String
    package let range: ClosedRange<Double>
    /// The value when the key is left out, if one number states it.
    package let defaultValue: Double?
    package let scale: Scale
    /// True when a live `set` reaches the running kernel as a smoothed target (no new plan).
    package let movesLive: Bool
    /// A controller's span when the whole range is wider than a knob wants (a gain node's
    /// −96…+24 dB learns as −60…+12).
    package let controlRange: ClosedRange<Double>?
    /// The schema definitions (`$defs`) holding this key.
    package let schemaDefinitions: [String]
    /// Whole numbers only (a FIR's taps): an `integer` in the schema.
    package let wholeNumber: Bool

    package init(_ key: String, unit: String = "", range: ClosedRange<Double>, default defaultValue: Double? = nil, scale: Scale = .linear,
                 movesLive: Bool = false, controlRange: ClosedRange<Double>? = nil, wholeNumber: Bool = false, in schemaDefinitions: [String]) {
        self.key = key; self.unit = unit; self.range = range; self.defaultValue = defaultValue; self.scale = scale
        self.movesLive = movesLive; self.controlRange = controlRange; self.wholeNumber = wholeNumber; self.schemaDefinitions = schemaDefinitions
    }

    /// The range a learned controller sweeps when none is given.
    package var knobRange: ClosedRange<Double> { controlRange ?? range }

    /// The key without array markers (`"bands[].gain"` → `"gain"`): the last word of a live path.
    package var name: String { String(key.split(separator: ".").last ?? "") }

    /// As `timbre presets parameters --json` lists it.
    package var json: JSONValue {
        var o: [String: JSONValue] = [
            "key": .string(key), "unit": .string(unit), "minimum": .number(range.lowerBound), "maximum": .number(range.upperBound),
            "scale": .string(scale.rawValue), "movesLive": .bool(movesLive), "schema": .array(schemaDefinitions.map { .string($0) }),
        ]
        if let defaultValue { o["default"] = .number(defaultValue) }
        if let controlRange { o["control"] = .array([.number(controlRange.lowerBound), .number(controlRange.upperBound)]) }
        return .object(o)
    }
}
