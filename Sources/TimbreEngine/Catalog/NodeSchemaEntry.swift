import Foundation

/// A node kind's whole entry in the preset JSON Schema, written from its definition: the kind's
/// `type` names, `id` and `bypass`, its numeric keys from its ``ParameterSpec``s (unit as the
/// description; range and default written by ``PresetSchemaNumbers``), and the keys that are
/// not numbers (a file name, a choice, a flag) as schema fragments. A kind that declares one
/// (``NodeDefinition/schemaEntry``) needs no hand-written schema: `make schema` writes its
/// `$defs` entry and lists it among the nodes, so adding a kind is its file and its catalog
/// line. (The kinds that were there before keep their hand-written entries, prose included.)
package struct NodeSchemaEntry: Sendable {
    /// The `$defs` key (`"firNode"`); the numeric specs name it in their `schemaDefinitions`.
    package let name: String
    package let description: String
    /// Keys that are not numbers, in order, each with its JSON Schema fragment.
    package let otherKeys: [(key: String, schema: JSONValue)]
    /// Keys a node of this kind must have.
    package let required: [String]

    package init(name: String, description: String, otherKeys: [(key: String, schema: JSONValue)] = [], required: [String] = []) {
        self.name = name; self.description = description; self.otherKeys = otherKeys; self.required = required
    }

    /// The `$defs` entry for a kind with these `type` names and numeric specs.
    func definition(typeNames: [String], specs: [ParameterSpec]) throws -> [String: Any] {
        var properties: [String: Any] = [
            "type": typeNames.count == 1 ? ["const": typeNames[0]] : ["enum": typeNames],
            "id": ["type": "string"], "bypass": ["type": "boolean"],
        ]
        for spec in specs where spec.schemaDefinitions.contains(name) && !spec.key.contains(".") {
            let type = spec.wholeNumber ? "integer" : "number"
            properties[spec.key] = spec.unit.isEmpty ? ["type": type] : ["type": type, "description": spec.unit]
        }
        for (key, fragment) in otherKeys {
            properties[key] = try JSONSerialization.jsonObject(with: Data(fragment.jsonText.utf8), options: [.fragmentsAllowed])
        }
        var entry: [String: Any] = ["type": "object", "additionalProperties": false, "description": description, "properties": properties]
        if !required.isEmpty { entry["required"] = required }
        return entry
    }
}
