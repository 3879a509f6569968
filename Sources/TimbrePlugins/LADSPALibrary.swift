import CLilv
import Foundation

/// LADSPA plugins: shared objects in `LADSPA_PATH` (colon-separated) or, when it is unset, the
/// standard folders (~/.ladspa, /usr/local/lib/ladspa, /usr/lib/ladspa), each exporting
/// `ladspa_descriptor(index)`. A plugin is "file.so:label". Libraries are opened once and kept
/// open for the life of the process (plugins' code must outlive their instances).
///
/// LADSPA ports have names, not symbols: Timbre makes each name a symbol (lower case, runs of
/// anything but letters and digits as one "_", a number appended to a repeat), so presets
/// address them as LV2 ones: "Amps gain (dB)" → `amps_gain_db`.
final class LADSPALibrary: @unchecked Sendable {
    static let shared = LADSPALibrary()
    private let lock = NSLock()
    private var opened: [String: UnsafeMutableRawPointer] = [:]

    static var searchPath: [String] {
        if let path = ProcessInfo.processInfo.environment["LADSPA_PATH"], !path.isEmpty {
            return path.split(separator: ":").map(String.init)
        }
        return [NSHomeDirectory() + "/.ladspa", "/usr/local/lib/ladspa", "/usr/lib/ladspa"]
    }

    /// The path of `file` in the search path (a path with a slash is taken as it is).
    static func locate(_ file: String) -> String? {
        if file.contains("/") { return FileManager.default.fileExists(atPath: file) ? file : nil }
        for dir in searchPath where FileManager.default.fileExists(atPath: dir + "/" + file) { return dir + "/" + file }
        return nil
    }

    /// The descriptor function of the library at `path` (opened once).
    private func descriptorFunction(_ path: String) -> LADSPA_Descriptor_Function? {
        lock.lock(); defer { lock.unlock() }
        if opened[path] == nil {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else { return nil }
            opened[path] = handle
        }
        guard let symbol = dlsym(opened[path], "ladspa_descriptor") else { return nil }
        return unsafeBitCast(symbol, to: LADSPA_Descriptor_Function.self)
    }

    /// Every descriptor of the library at `path`.
    func descriptors(_ path: String) -> [UnsafePointer<LADSPA_Descriptor>] {
        guard let f = descriptorFunction(path) else { return [] }
        var list: [UnsafePointer<LADSPA_Descriptor>] = []
        var i: UInt = 0
        while let d = f(i) { list.append(d); i += 1 }
        return list
    }

    /// The descriptor of "file.so:label", or nil.
    func descriptor(_ id: String) -> (UnsafePointer<LADSPA_Descriptor>, path: String)? {
        let parts = id.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let path = Self.locate(parts[0]) else { return nil }
        guard let d = descriptors(path).first(where: { String(cString: $0.pointee.Label) == parts[1] }) else { return nil }
        return (d, path)
    }

    /// Every installed LADSPA plugin, sorted by id.
    func descriptions() -> [PluginDescription] {
        var list: [PluginDescription] = []
        var seen = Set<String>()
        for dir in Self.searchPath {
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: dir) else { continue }
            for file in files.sorted() where file.hasSuffix(".so") && !seen.contains(file) {
                seen.insert(file)
                for d in descriptors(dir + "/" + file) { list.append(Self.describe(d, file: file, path: dir + "/" + file)) }
            }
        }
        return list.sorted { $0.id < $1.id }
    }

    /// Port names made symbols (see the type's documentation).
    static func symbols(_ names: [String]) -> [String] {
        var used: [String: Int] = [:]
        return names.map { name in
            var s = ""
            var gap = false
            for ch in name.lowercased() {
                if ch.isASCII && (ch.isLetter || ch.isNumber) { if gap && !s.isEmpty { s.append("_") }; s.append(ch); gap = false } else { gap = true }
            }
            if s.isEmpty || s.first!.isNumber { s = "p" + s }
            used[s, default: 0] += 1
            return used[s]! > 1 ? "\(s)_\(used[s]!)" : s
        }
    }

    /// A descriptor's ports, ranges and defaults (LADSPA hints; sample-rate bounds at 48 kHz
    /// for the listing, at the real rate when a node loads it).
    static func describe(_ d: UnsafePointer<LADSPA_Descriptor>, file: String, path: String, sampleRate: Double = 48000) -> PluginDescription {
        let desc = d.pointee
        let count = Int(desc.PortCount)
        let names = (0..<count).map { String(cString: desc.PortNames[$0]!) }
        let symbols = symbols(names)
        var ports: [PluginDescription.Port] = []
        for i in 0..<count {
            let pd = desc.PortDescriptors[i]
            let isInput = pd & Int32(LADSPA_PORT_INPUT) != 0
            let kind: PluginDescription.Port.Kind = pd & Int32(LADSPA_PORT_AUDIO) != 0 ? .audio : pd & Int32(LADSPA_PORT_CONTROL) != 0 ? .control : .other
            var port = PluginDescription.Port(index: i, symbol: symbols[i], name: names[i], kind: kind, isInput: isInput)
            if kind == .control {
                let hint = desc.PortRangeHints[i]
                let h = hint.HintDescriptor
                let scale = h & Int32(LADSPA_HINT_SAMPLE_RATE) != 0 ? sampleRate : 1
                let lo = h & Int32(LADSPA_HINT_BOUNDED_BELOW) != 0 ? Double(hint.LowerBound) * scale : nil
                let hi = h & Int32(LADSPA_HINT_BOUNDED_ABOVE) != 0 ? Double(hint.UpperBound) * scale : nil
                port.minimum = lo; port.maximum = hi
                port.isToggle = h & Int32(LADSPA_HINT_TOGGLED) != 0
                port.isInteger = h & Int32(LADSPA_HINT_INTEGER) != 0
                if port.isToggle { port.minimum = 0; port.maximum = 1 }
                let log = h & Int32(LADSPA_HINT_LOGARITHMIC) != 0
                func between(_ t: Double) -> Double? {
                    guard let lo, let hi else { return nil }
                    if log && lo > 0 && hi > 0 { return exp(Foundation.log(lo) * (1 - t) + Foundation.log(hi) * t) }
                    return lo * (1 - t) + hi * t
                }
                switch h & Int32(LADSPA_HINT_DEFAULT_MASK) {
                case Int32(LADSPA_HINT_DEFAULT_MINIMUM): port.defaultValue = lo
                case Int32(LADSPA_HINT_DEFAULT_LOW): port.defaultValue = between(0.25)
                case Int32(LADSPA_HINT_DEFAULT_MIDDLE): port.defaultValue = between(0.5)
                case Int32(LADSPA_HINT_DEFAULT_HIGH): port.defaultValue = between(0.75)
                case Int32(LADSPA_HINT_DEFAULT_MAXIMUM): port.defaultValue = hi
                case Int32(LADSPA_HINT_DEFAULT_0): port.defaultValue = 0
                case Int32(LADSPA_HINT_DEFAULT_1): port.defaultValue = 1
                case Int32(LADSPA_HINT_DEFAULT_100): port.defaultValue = 100
                case Int32(LADSPA_HINT_DEFAULT_440): port.defaultValue = 440
                default: port.defaultValue = lo.map { max($0, min(hi ?? 0, 0)) } ?? 0
                }
                if port.isInteger, let v = port.defaultValue { port.defaultValue = v.rounded() }
                port.isLatency = !isInput && names[i].lowercased() == "latency"
            }
            ports.append(port)
        }
        return PluginDescription(standard: .ladspa, id: file + ":" + String(cString: desc.Label), name: String(cString: desc.Name),
                                 ports: ports, requiredFeatures: [], missingFeatures: [], presets: [], location: path)
    }
}
