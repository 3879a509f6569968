import TimbreHost
import ArgumentParser
import Foundation
import TimbreEngine
import TimbrePlugins

struct PresetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presets", abstract: "List, validate, show and import presets.",
        subcommands: [List.self, Validate.self, Show.self, Diagram.self, Import.self, Parameters.self, Schema.self])

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import a parametric EQ (EqualizerAPO, AutoEQ, REW) or REW's biquads as a preset.",
            usage: "timbre presets import <file> [<options>]",
            discussion: """
            The file holds lines such as `Preamp: -6.8 dB` and \
            `Filter 1: ON PK Fc 21 Hz Gain 6.7 dB Q 1.100` (PK, LSC, HSC, LS, HS, LP, \
            HP, LPQ, HPQ, NO, BP, AP), or biquads (`biquad1,` `b0=…,` … `a2=…`, a1 and a2 \
            negated as miniDSP takes them) designed at --rate: each section is read back as \
            the peaking, shelf, low- or high-pass band it was designed from. Bands keep their \
            analog shape up to Nyquist; a line that cannot be mapped is an error naming its \
            line number.
            """)
        @Argument(help: "The parametric EQ text file (- for standard input).") var file: String
        @Option(name: .shortAndLong, help: "Write the preset here (default: standard output).") var output: String?
        @Option(name: .long, help: "The preset's name (default: the file's name).") var name: String?
        @Option(name: .long, help: "The sample rate a biquad list was designed at, in Hz (REW's miniDSP export: 48000 or 96000).") var rate: Double = 48_000

        func run() throws {
            guard let data = InputText.contents(of: file) else { throw HostError.usage("\(file): cannot read the file") }
            let label = file == "-" ? "standard input" : file
            let presetName = name ?? (file == "-" ? "imported" : URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent)
            let preset: Preset
            let text = String(decoding: data, as: UTF8.self)
            do {
                preset = BiquadListImport.recognizes(text)
                    ? try BiquadListImport.preset(from: text, sampleRate: rate, name: presetName, source: label)
                    : try ParametricEQImport.preset(from: text, name: presetName, source: label)
            }
            catch { throw HostError.usage("\(error)") }
            let json = PresetEncoder.encode(preset).jsonText + "\n"
            guard let output else { print(json, terminator: ""); return }
            do { try Data(json.utf8).write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
                throw HostError.io("\(output): cannot write: \(error.localizedDescription)")
            }
            print("\(output): \(preset.name), \(preset.allNodes.count) nodes")
            for line in preset.outline { print(line) }
        }
    }

    struct Parameters: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every node kind's numeric parameters: range, unit, default, scale, and whether a live set moves it in the running kernel.")
        @Flag(name: .long, help: "As JSON.") var json = false
        func run() throws {
            if json { print(NodeCatalog.parameterJSON.jsonText) } else { NodeCatalog.parameterTable.forEach { print($0) } }
        }
    }

    struct Schema: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the preset JSON Schema with the catalog's ranges and defaults written in (make schema writes it to Presets/).")
        @Argument(help: "The schema to start from (its structure and prose are kept; default: the one built in).") var template: String?
        func run() throws {
            let label = template ?? "the built-in schema"
            guard let data = template.map({ FileManager.default.contents(atPath: $0) }) ?? Data(EmbeddedPresets.schema.utf8),
                  let schema = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { throw HostError.usage("\(label): not a JSON object") }
            do { print(try PresetSchemaNumbers.text(try PresetSchemaNumbers.refresh(schema)), terminator: "") }
            catch { throw HostError.usage("\(label): \(error)") }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the shipped presets.")
        func run() throws {
            for (name, json) in EmbeddedPresets.all {
                let p = try? PresetDecoder.decode(Data(json.utf8))
                let desc = p?.description ?? ""
                print(name.padding(toLength: 16, withPad: " ", startingAt: 0) + " " + desc)
            }
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check preset files; with --sample-rate also compile them at that rate (files their nodes name read, latency printed).",
            discussion: """
            At a given rate a high-pass at or above 0.49 × the rate is an error; bells, \
            shelves and low-passes up there are fitted below Nyquist, and those that do \
            less than 0.01 dB there are named as left out.
            """)
        @Argument(help: "Preset files.") var files: [String]
        @Option(name: .long, help: "Sample rate to compile the preset for (Hz).") var sampleRate: Double?

        func run() throws {
            for f in files {
                let (preset, _) = try PresetLoader.load(f)
                if let sampleRate {
                    let latency = try PresetLoader.compiledLatency(preset, argument: f, sampleRate: sampleRate)
                    if let notice = preset.bandsLeftOutNotice(sampleRate: sampleRate) { print("\(f): note: \(notice)") }
                    if latency > 0 { print("\(f): latency \(latency) frames (\(String(format: "%.2f", Double(latency) / sampleRate * 1000)) ms) at \(Int(sampleRate)) Hz") }
                }
                print("\(f): ok (\(preset.name), \(preset.formName) with \(preset.allNodes.count) nodes)")
                for line in preset.outline { print(line) }
            }
        }
    }

    struct Diagram: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw a preset's routing: inputs, channels, groups, master, outputs (SVG, PNG).",
            usage: "timbre presets diagram <preset> --svg <file> [--png <file>] [<options>]",
            discussion: "The outputs are the compiled preset's (a crossover's bands, named as the preset names them).")
        @Argument(help: "A preset file or a shipped preset's name.") var preset: String
        @Option(name: .long, help: "Host inputs (default: what the preset reads, at least 2).") var inputs: Int?
        @Option(name: .long, help: "Write the picture as SVG.") var svg: String?
        @Option(name: .long, help: "Write the picture as PNG (needs rsvg-convert).") var png: String?

        func run() throws {
            guard svg != nil || png != nil else { throw HostError.usage("give --svg FILE and/or --png FILE") }
            let (p, _) = try PresetLoader.load(preset)
            let inputs = self.inputs ?? max(2, p.inputChannelsUsed)
            guard (1...64).contains(inputs) else { throw HostError.usage("--inputs \(inputs) is out of range (allowed 1…64)") }
            let plan = try PresetLoader.compiled(p, argument: preset, sampleRate: 48_000, inputChannelCount: inputs)
            try RoutingDiagram(preset: p, inputChannelCount: inputs, outputChannelCount: plan.outputChannelCount, outputNames: plan.outputChannelNames)
                .write(svg: svg, png: png)
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a shipped preset's JSON.")
        @Argument(help: "Shipped preset name.") var name: String
        func run() throws {
            guard let p = EmbeddedPresets.all.first(where: { $0.name == name }) else {
                throw HostError.usage("no shipped preset named \(name)")
            }
            print(p.json, terminator: "")
        }
    }
}
