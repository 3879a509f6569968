import TimbreHost
import ArgumentParser
import Foundation
import TimbrePlugins

/// `timbre plugins`: the LV2 and LADSPA plugins installed here, and one in detail.
struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List the LV2 and LADSPA plugins a preset's \"plugin\" node can load.",
        discussion: """
        LV2 plugins come from LV2_PATH (unset: ~/.lv2, /usr/local/lib/lv2, /usr/lib/lv2), LADSPA \
        plugins from LADSPA_PATH (unset: ~/.ladspa, /usr/local/lib/ladspa, /usr/lib/ladspa). A node \
        names an LV2 plugin by URI and a LADSPA plugin as file.so:label, and sets controls by port \
        symbol: {"type": "plugin", "uri": "http://lv2plug.in/plugins/eg-amp", "controls": {"gain": -6}}.
        """,
        subcommands: [List.self, Info.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "One line per plugin (the default).")
        @Flag(name: .long, help: "Print JSON: every plugin with its ports, features and presets.") var json = false
        @Argument(help: "Show only plugins whose id or name contains this (case-insensitive).") var filter: String?

        func run() throws {
            var list = PluginHost.installedPlugins()
            if let filter {
                list = list.filter { $0.id.localizedCaseInsensitiveContains(filter) || $0.name.localizedCaseInsensitiveContains(filter) }
            }
            if json { try printJSON(list); return }
            for d in list {
                let io = "\(d.audioInputs)→\(d.audioOutputs)"
                let latency = d.latencyPort.map { " latency:\($0.symbol)" } ?? ""
                let status = d.unsupportedReason.map { "  [cannot load: \($0)]" } ?? ""
                print("\(d.standard.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)) \(d.id)  \(d.name)  audio \(io), \(d.controlInputs.count) controls\(latency)\(status)")
            }
            let usable = list.filter(\.isSupported).count
            print("\(list.count) plugins (\(list.filter { $0.standard == .lv2 }.count) LV2, \(list.filter { $0.standard == .ladspa }.count) LADSPA); \(usable) can be loaded as nodes. `timbre plugins info ID` shows one.")
        }
    }

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "info", abstract: "Ports, ranges, defaults, latency, features and presets of one plugin.")
        @Argument(help: "An LV2 URI or a LADSPA file.so:label.") var id: String
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run() throws {
            guard let d = PluginHost.describe(id) else {
                throw HostError.usage("no plugin \"\(id)\" is installed (`timbre plugins` lists LV2 URIs and LADSPA file.so:label ids)")
            }
            if json { try printJSON(d); return }
            print("\(d.name)\n  id:        \(d.id) (\(d.standard.rawValue))\n  from:      \(d.location)")
            print("  audio:     \(d.audioInputs) in, \(d.audioOutputs) out")
            print("  latency:   \(d.latencyPort.map { "reported on port \($0.symbol)" } ?? "none reported")")
            print("  loads:     \(d.unsupportedReason.map { "no: \($0)" } ?? "yes")")
            print("  features required: \(d.requiredFeatures.isEmpty ? "none" : d.requiredFeatures.map { f in d.missingFeatures.contains(f) ? "\(f) (missing)" : "\(f) (provided)" }.joined(separator: ", "))")
            print("  ports:")
            func fmt(_ v: Double?) -> String { v.map { $0 == $0.rounded() && abs($0) < 1e9 ? String(Int($0)) : String(format: "%g", $0) } ?? "?" }
            for p in d.ports {
                var line = "    \(String(p.index).padding(toLength: 3, withPad: " ", startingAt: 0)) \(p.isInput ? "in " : "out") \(p.kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(p.symbol)"
                if p.name != p.symbol { line += " \"\(p.name)\"" }
                if p.kind == .control && p.isInput { line += "  \(fmt(p.minimum))…\(fmt(p.maximum)), default \(fmt(p.defaultValue))" }
                if p.isToggle { line += ", toggle" }
                if p.isInteger { line += ", integer" }
                if p.isLatency { line += "  (latency)" }
                print(line)
            }
            if !d.presets.isEmpty {
                print("  presets (\"preset\": label or URI):")
                for p in d.presets { print("    \(p.label)  <\(p.uri)>") }
            }
        }
    }
}

private func printJSON<T: Encodable>(_ value: T) throws {
    let enc = JSONEncoder()
    enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try enc.encode(value), as: UTF8.self))
}
