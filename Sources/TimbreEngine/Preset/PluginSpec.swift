/// A `plugin` node as written in a preset: which plugin, its control values by port symbol,
/// and an optional preset of the plugin's own.
///
/// ```json
/// {"type": "plugin", "uri": "http://lv2plug.in/plugins/eg-amp", "controls": {"gain": -6}}
/// {"type": "plugin", "ladspa": "amp_1181.so:amp", "controls": {"gain": -6}}
/// ```
/// The symbols and ranges are the plugin's: they are checked when the plan is compiled, by the
/// host that loads the plugin (``HostServices/plugins``).
public struct PluginSpec: Sendable, Equatable, Hashable {
    /// Where the plugin comes from.
    public enum Source: Sendable, Equatable, Hashable, CustomStringConvertible {
        /// An LV2 plugin, by URI (found through lilv in LV2_PATH or the standard folders).
        case lv2(uri: String)
        /// A LADSPA plugin, as "file.so:label" (the file found in LADSPA_PATH or the standard folders).
        case ladspa(String)

        public var description: String {
            switch self {
            case .lv2(let uri): uri
            case .ladspa(let id): id
            }
        }
    }

    public var source: Source
    /// Control input values by port symbol (LADSPA: the port name made a symbol, see `timbre plugins info`).
    public var controls: [String: Double]
    /// An LV2 preset (URI or label) applied before `controls`.
    public var preset: String?

    public init(source: Source, controls: [String: Double] = [:], preset: String? = nil) {
        self.source = source; self.controls = controls; self.preset = preset
    }
}
