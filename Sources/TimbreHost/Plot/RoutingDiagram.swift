import Foundation
import TimbreEngine

/// A preset's routing as an SVG picture, left to right: host inputs and generators, each
/// channel with its chain, groups, the master, and one box per output channel (named when
/// the preset names them: a crossover's bands, a `drivers` node's labels). A chain preset is
/// its inputs, one box listing its nodes (with the channel count wherever a node changes it),
/// and its outputs. A compressor or gate keyed by a channel gets a dashed arrow from it.
/// `timbre presets diagram` writes it (PNG through `rsvg-convert`, as the response plots).
package struct RoutingDiagram {
    package struct Box {
        var title: String
        var lines: [String]
        var colour: String
        var column: Int
        var x = 0.0, y = 0.0, width = 0.0
        var height: Double { RoutingDiagram.lineHeight * Double(lines.count + 1) + 12 }
    }
    struct Arrow { var from: Int; var to: Int; var label: String?; var dashed = false }

    var title: String
    var boxes: [Box] = []
    var arrows: [Arrow] = []

    static let lineHeight = 17.0, charWidth = 7.0, columnGap = 90.0, rowGap = 18.0, margin = 24.0, top = 64.0

    /// The picture of `preset` compiled for `inputChannelCount` host inputs; `outputNames`:
    /// the compiled plan's output channel names and count.
    package init(preset: Preset, inputChannelCount: Int, outputChannelCount: Int, outputNames: [String]?) {
        title = "Routing of \(preset.name)"
        func add(_ box: Box) -> Int { boxes.append(box); return boxes.count - 1 }
        let inputColour = "#e8f1fb", chainColour = "#fff6e0", busColour = "#eef8ec", auxColour = "#fdecea", outputColour = "#f3ecfb"
        var outputColumn = 0
        var finalBox = 0
        var auxBoxes: [String: Int] = [:]
        switch preset.form {
        case .chain(let chain):
            let inputs = (0..<inputChannelCount).map { add(Box(title: "in_\($0 + 1)", lines: [], colour: inputColour, column: 0)) }
            var lines: [String] = []
            var channels = inputChannelCount
            for node in chain {
                lines += Self.wrapped(node.summary)
                if let after = Self.channelsAfter(node, channels), after != channels { lines.append("→ \(after) channels"); channels = after }
            }
            finalBox = add(Box(title: "chain", lines: lines.isEmpty ? ["(empty: passes audio unchanged)"] : lines, colour: chainColour, column: 1))
            for i in inputs { arrows.append(Arrow(from: i, to: finalBox, label: nil)) }
            outputColumn = 2
        case .graph(let graph):
            var channelBoxes: [String: Int] = [:], groupBoxes: [String: Int] = [:]
            for ch in graph.channels {
                let source: String
                switch ch.source {
                case .inputs(let i): source = i.map { "in_\($0 + 1)" }.joined(separator: " + ")
                case .sine(let f, let l): source = "sine \(JSONValue.number(f).brief) Hz, \(JSONValue.number(l).brief) dBFS"
                case .player(let p): source = "player \(p.file)"
                }
                let s = add(Box(title: source, lines: [], colour: inputColour, column: 0))
                var lines = ch.chain.flatMap { Self.wrapped($0.summary) }
                let sourceWidth: Int
                if case .inputs(let i) = ch.source { sourceWidth = i.count } else { sourceWidth = 0 }
                if max(sourceWidth, ch.channelCount ?? 0) > 2 {
                    lines.append("\(max(sourceWidth, ch.channelCount ?? 0)) channels, volume \(JSONValue.number(ch.volume).brief)\(ch.mute ? ", muted" : "")\(ch.solo ? ", solo" : "")")
                } else {
                    lines.append("volume \(JSONValue.number(ch.volume).brief), pan \(JSONValue.number(ch.pan).brief)\(ch.mute ? ", muted" : "")\(ch.solo ? ", solo" : "")")
                }
                if !ch.sends.isEmpty { lines.append(Self.sendsLine(ch.sends)) }
                let c = add(Box(title: "channel \(ch.id)", lines: lines, colour: chainColour, column: 1))
                arrows.append(Arrow(from: s, to: c, label: nil))
                channelBoxes[ch.id] = c
            }
            for g in graph.groups {
                var lines = g.chain.flatMap { Self.wrapped($0.summary) }
                lines.append(Self.width(g.channelCount) + "volume \(JSONValue.number(g.volume).brief)\(g.mute ? ", muted" : "")")
                if !g.sends.isEmpty { lines.append(Self.sendsLine(g.sends)) }
                groupBoxes[g.id] = add(Box(title: "group \(g.id)", lines: lines, colour: busColour, column: 2))
            }
            let auxColumn = graph.groups.isEmpty ? 2 : 3
            for a in graph.auxes {
                var lines = a.chain.flatMap { Self.wrapped($0.summary) }
                lines.append(Self.width(a.channelCount) + "volume \(JSONValue.number(a.volume).brief)\(a.mute ? ", muted" : "")")
                auxBoxes[a.id] = add(Box(title: "aux \(a.id)", lines: lines, colour: auxColour, column: auxColumn))
            }
            var masterLines = graph.master.chain.flatMap { Self.wrapped($0.summary) }
            masterLines.append(Self.width(graph.master.channelCount) + "volume \(JSONValue.number(graph.master.volume).brief)\(graph.master.pan != 0 ? ", pan \(JSONValue.number(graph.master.pan).brief)" : "")")
            finalBox = add(Box(title: graph.master.id, lines: masterLines, colour: busColour, column: graph.auxes.isEmpty ? auxColumn : auxColumn + 1))
            for ch in graph.channels { arrows.append(Arrow(from: channelBoxes[ch.id]!, to: ch.group.flatMap { groupBoxes[$0] } ?? finalBox, label: nil)) }
            for g in graph.groups { arrows.append(Arrow(from: groupBoxes[g.id]!, to: finalBox, label: nil)) }
            // Sends (dashed, with their level), and the returns into the master.
            for (id, sends) in graph.channels.map({ ($0.id, $0.sends) }) + graph.groups.map({ ($0.id, $0.sends) }) {
                let from = channelBoxes[id] ?? groupBoxes[id]!
                for send in sends {
                    arrows.append(Arrow(from: from, to: auxBoxes[send.aux]!, label: nil, dashed: true))
                }
            }
            for a in graph.auxes where a.destination == .master { arrows.append(Arrow(from: auxBoxes[a.id]!, to: finalBox, label: nil)) }
            // Keys: a compressor or gate listening to another channel or group.
            let holders = graph.channels.map { ($0.chain, channelBoxes[$0.id]!) } + graph.groups.map { ($0.chain, groupBoxes[$0.id]!) } + [(graph.master.chain, finalBox)]
            for (chain, box) in holders {
                for node in chain {
                    let key = node.kind.settings(as: CompressorSettings.self)?.keyChannel ?? node.kind.settings(as: GateSettings.self)?.keyChannel
                    if let key, let from = channelBoxes[key] ?? groupBoxes[key] { arrows.append(Arrow(from: from, to: box, label: "key", dashed: true)) }
                }
            }
            outputColumn = boxes[finalBox].column + 1
        }
        // The master's outputs, then each aux's with outputs of its own (two each, in order).
        var feeders = [Int](repeating: finalBox, count: outputChannelCount)
        if case .graph(let graph) = preset.form {
            let separate = graph.auxes.filter { $0.destination == .outputs }
            let masterCount = outputChannelCount - 2 * separate.count
            for (j, a) in separate.enumerated() {
                for c in 0..<2 where masterCount + 2 * j + c < outputChannelCount { feeders[masterCount + 2 * j + c] = auxBoxes[a.id]! }
            }
        }
        for k in 0..<outputChannelCount {
            let name = outputNames.flatMap { k < $0.count ? $0[k] : nil }
            let o = add(Box(title: "out_\(k + 1)" + (name.map { ": \($0)" } ?? ""), lines: [], colour: outputColour, column: outputColumn))
            arrows.append(Arrow(from: feeders[k], to: o, label: nil))
        }
        layOut()
    }

    /// `sends: singer 0.9 pre, verb 0.3` (the dashed arrows' levels).
    /// "6 channels, " for a bus wider or narrower than stereo; nothing for stereo.
    static func width(_ channels: Int) -> String { channels == 2 ? "" : "\(channels) channel\(channels == 1 ? "" : "s"), " }

    static func sendsLine(_ sends: [SendSpec]) -> String {
        "sends: " + sends.map { "\($0.aux) \(JSONValue.number($0.level).brief)\($0.preFader ? " pre" : "")" }.joined(separator: ", ")
    }

    /// A node's summary as lines: a long list (the drivers' outputs) one item per line.
    static func wrapped(_ summary: String) -> [String] {
        let parts = summary.components(separatedBy: "; ")
        guard summary.count > 60, parts.count > 1 else { return [summary] }
        return [parts[0]] + parts.dropFirst().map { "· " + $0 }
    }

    /// The channels after `node` on `channels`, when its kind changes the count in a known way.
    static func channelsAfter(_ node: NodeSpec, _ channels: Int) -> Int? {
        if node.bypass { return channels }
        if let c = node.kind.settings(as: CrossoverSettings.self) { return channels * c.design.bandCount }
        if node.kind.typeName == "pan", channels == 1 { return 2 }
        return nil
    }

    /// Places columns left to right (each as wide as its widest text), boxes top to bottom,
    /// every column centred on the tallest.
    mutating func layOut() {
        let columns = (boxes.map(\.column).max() ?? 0) + 1
        var x = Self.margin
        var heights = [Double](repeating: 0, count: columns)
        for c in 0..<columns {
            let members = boxes.indices.filter { boxes[$0].column == c }
            var width = 0.0
            for i in members {
                let longest = ([boxes[i].title] + boxes[i].lines).map(\.count).max() ?? 4
                width = max(width, Double(longest) * Self.charWidth + 20)
            }
            for i in members { boxes[i].x = x; boxes[i].width = max(60, width) }
            x += max(60, width) + Self.columnGap
            heights[c] = members.map { boxes[$0].height }.reduce(0, +) + Double(max(0, members.count - 1)) * Self.rowGap
        }
        let tallest = heights.max() ?? 0
        for c in 0..<columns {
            var y = Self.top + (tallest - heights[c]) / 2
            for i in boxes.indices where boxes[i].column == c { boxes[i].y = y; y += boxes[i].height + Self.rowGap }
        }
    }

    var size: (width: Double, height: Double) {
        let right = boxes.map { $0.x + $0.width }.max() ?? 200, bottom = boxes.map { $0.y + $0.height }.max() ?? 100
        return (max(right + Self.margin, Double(title.count) * 9 + 2 * Self.margin), bottom + Self.margin)
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    package func render() -> String {
        let (w, h) = size
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(w))" height="\(Int(h))" viewBox="0 0 \(Int(w)) \(Int(h))" font-family="DejaVu Sans, Arial, sans-serif">
        <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(Self.margin)" y="34" font-size="18" font-weight="bold">\(Self.escape(title))</text>

        """
        for a in arrows {
            let f = boxes[a.from], t = boxes[a.to]
            let dash = a.dashed ? " stroke-dasharray=\"5,4\"" : ""
            let path: String, labelAt: (x: Double, y: Double)
            if f.column == t.column {
                // Within a column (a key from the channel above or below): down the right edge.
                let x = f.x + f.width - 40, down = t.y > f.y
                let y1 = down ? f.y + f.height : f.y, y2 = down ? t.y : t.y + t.height
                path = "M\(x),\(y1) L\(x),\(y2)"
                labelAt = (x + 16, (y1 + y2) / 2 + 4)
            } else {
                let x1 = f.x + f.width, y1 = f.y + f.height / 2, x2 = t.x, y2 = t.y + t.height / 2
                let bend = max(20, (x2 - x1) / 2)
                path = "M\(x1),\(y1) C\(x1 + bend),\(y1) \(x2 - bend),\(y2) \(x2),\(y2)"
                // Near the arrow's end, where sends into one aux fan in apart.
                labelAt = (x1 + 0.8 * (x2 - x1), y1 + 0.8 * (y2 - y1) - 4)
            }
            svg += "<path d=\"\(path)\" fill=\"none\" stroke=\"#555\" stroke-width=\"1.4\"\(dash) marker-end=\"url(#arrow)\"/>\n"
            if let label = a.label {
                svg += "<text x=\"\(labelAt.x)\" y=\"\(labelAt.y)\" font-size=\"11\" fill=\"#555\" text-anchor=\"middle\">\(Self.escape(label))</text>\n"
            }
        }
        for b in boxes {
            svg += "<rect x=\"\(b.x)\" y=\"\(b.y)\" width=\"\(b.width)\" height=\"\(b.height)\" rx=\"6\" fill=\"\(b.colour)\" stroke=\"#444\" stroke-width=\"1.2\"/>\n"
            svg += "<text x=\"\(b.x + 10)\" y=\"\(b.y + 6 + Self.lineHeight - 3)\" font-size=\"13\" font-weight=\"bold\">\(Self.escape(b.title))</text>\n"
            for (k, line) in b.lines.enumerated() {
                svg += "<text x=\"\(b.x + 10)\" y=\"\(b.y + 6 + Self.lineHeight * Double(k + 2) - 3)\" font-size=\"12\">\(Self.escape(line))</text>\n"
            }
        }
        return svg + "</svg>\n"
    }

    /// Writes the SVG to `svg` and, with `png`, a PNG through `rsvg-convert`.
    package func write(svg: String?, png: String?) throws(HostError) {
        try SVGPlot.writeSVG(render(), svg: svg, png: png)
    }
}
