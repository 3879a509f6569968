import Foundation

/// Writes the catalog's numbers into the preset JSON Schema: for every ``ParameterSpec`` of
/// every node kind, its minimum, maximum and default at its key in each of its schema
/// definitions. The schema's structure and prose stay as written (`Presets/timbre-preset.schema.json`
/// is the template); the numbers are the catalog's. `timbre presets schema` prints the result,
/// `make schema` writes it, and a test fails while the file differs from it.
///
/// Where a key's property refers to a shared definition (`{"$ref": "#/$defs/frequency"}`), the
/// range goes to that definition (every kind using it must agree) and the default to the
/// property; where it is one of several forms (`{"oneOf": [{"type": "number", …}, {"const": "inf"}]}`)
/// both go to the numeric form.
package enum PresetSchemaNumbers {
    /// The schema with the catalog's numbers; throws when a spec names a key the schema lacks
    /// or two kinds sharing a definition disagree on its range.
    package static func refresh(_ schema: [String: Any], definitions: [any NodeDefinition.Type] = NodeCatalog.definitions) throws -> [String: Any] {
        var schema = schema
        var defs = schema["$defs"] as? [String: Any] ?? [:]
        for d in definitions {
            guard let entry = d.schemaEntry else { continue }
            defs[entry.name] = try entry.definition(typeNames: d.typeNames, specs: d.parameterSpecs)
            try list(entry.name, typeNames: d.typeNames, in: &defs)
        }
        var shared: [String: ClosedRange<Double>] = [:]
        for specs in definitions.map({ $0.parameterSpecs }) + [GraphSources.parameterSpecs] {
            for spec in specs {
                for name in spec.schemaDefinitions {
                    guard var def = defs[name] as? [String: Any] else { throw SchemaError("$defs.\(name) is missing (named by \(spec.key))") }
                    try write(spec, into: &def, defs: &defs, shared: &shared, at: "$defs.\(name)")
                    defs[name] = def
                }
            }
        }
        schema["$defs"] = defs
        return schema
    }

    /// Adds a generated kind to `$defs.node`: its `type` names to the enum, its entry to `oneOf`.
    static func list(_ name: String, typeNames: [String], in defs: inout [String: Any]) throws {
        guard var node = defs["node"] as? [String: Any], var properties = node["properties"] as? [String: Any],
              var type = properties["type"] as? [String: Any], var names = type["enum"] as? [String], var forms = node["oneOf"] as? [[String: Any]] else {
            throw SchemaError("$defs.node is not the shape a generated kind is listed in")
        }
        names += typeNames.filter { !names.contains($0) }
        let ref = "#/$defs/\(name)"
        if !forms.contains(where: { $0["$ref"] as? String == ref }) { forms.append(["$ref": ref]) }
        type["enum"] = names; properties["type"] = type; node["properties"] = properties; node["oneOf"] = forms
        defs["node"] = node
    }

    /// The schema text as `make schema` writes it: keys sorted, two-space indentation.
    package static func text(_ schema: [String: Any]) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: schema, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    package struct SchemaError: Error, CustomStringConvertible {
        package let description: String
        init(_ message: String) { description = "preset schema: " + message }
    }

    static func write(_ spec: ParameterSpec, into def: inout [String: Any], defs: inout [String: Any], shared: inout [String: ClosedRange<Double>],
                      at path: String) throws {
        // "bands[].gain": properties.bands.items.properties.gain; "channels[].input[]": …input.items
        try update(&def, keys: spec.key.split(separator: ".").map(String.init), at: path) { property throws in
            if let ref = property["$ref"] as? String {
                let name = String(ref.split(separator: "/").last ?? "")
                guard var target = defs[name] as? [String: Any] else { throw SchemaError("\(ref) is missing") }
                if let written = shared[name], written != spec.range {
                    throw SchemaError("$defs.\(name) is shared by kinds whose ranges differ (\(spec.key) at \(path))")
                }
                shared[name] = spec.range
                target["minimum"] = number(spec.range.lowerBound); target["maximum"] = number(spec.range.upperBound)
                defs[name] = target
                setDefault(spec, in: &property)
            } else if var forms = property["oneOf"] as? [[String: Any]], let k = forms.firstIndex(where: { ["number", "integer"].contains($0["type"] as? String ?? "") }) {
                forms[k]["minimum"] = number(spec.range.lowerBound); forms[k]["maximum"] = number(spec.range.upperBound)
                setDefault(spec, in: &forms[k])
                property["oneOf"] = forms
            } else {
                property["minimum"] = number(spec.range.lowerBound); property["maximum"] = number(spec.range.upperBound)
                setDefault(spec, in: &property)
            }
        }
    }

    /// Runs `change` on the property at `keys` in place: each key a property, one ending in
    /// `[]` an array whose items the rest (or, last, the change) applies to.
    static func update(_ object: inout [String: Any], keys: [String], at path: String, _ change: (inout [String: Any]) throws -> Void) throws {
        let isArray = keys[0].hasSuffix("[]"), key = isArray ? String(keys[0].dropLast(2)) : keys[0]
        guard var properties = object["properties"] as? [String: Any], var property = properties[key] as? [String: Any] else {
            throw SchemaError("\(path).properties.\(key) is missing")
        }
        if isArray {
            guard var items = property["items"] as? [String: Any] else { throw SchemaError("\(path).properties.\(key).items is missing") }
            if keys.count == 1 { try change(&items) } else { try update(&items, keys: Array(keys.dropFirst()), at: "\(path).properties.\(key).items", change) }
            property["items"] = items
        } else if keys.count == 1 {
            try change(&property)
        } else {
            try update(&property, keys: Array(keys.dropFirst()), at: "\(path).properties.\(key)", change)
        }
        properties[key] = property
        object["properties"] = properties
    }

    static func setDefault(_ spec: ParameterSpec, in property: inout [String: Any]) {
        if let d = spec.defaultValue { property["default"] = number(d) } else { property["default"] = nil }
    }

    /// Whole numbers as integers (`20`, not `20.0`).
    static func number(_ v: Double) -> Any { v == v.rounded() && abs(v) < 1e15 ? Int(v) as Any : v as Any }
}
